"""Landmark IKD on all of Fashion-MNIST, then 1 000 000 further points placed on a Dask LocalCluster (issue 20, parts 4-5).

Run: python benchmarks/dask_transform.py [--points 1000000] [--block 10000] [--workers 1 2] [--data-dir DIR]
Fits IKD(2, n_landmarks=2000) on the 70 000 images in this process and reports the pickled size of the model and of
`for_transform()`. The new points are the 70 000 images again, cycled, each block with Gaussian pixel noise (sd 8 on the
0-255 scale) seeded by the block's number. They are generated inside the task graph: one task reads the images on a
worker, and every block is made by the worker that places it, so the million points (6.3 GB as float64) are never in
one process. For each worker count: a LocalCluster of single-threaded worker processes (BLAS limited to one thread
each), wall time of computing the whole placement, throughput, the peak resident memory of each worker process, and the
largest difference from the in-process `transform` on three sample blocks. Writes benchmarks/results/dask_transform.txt.
"""
import argparse
import os
import pickle
import resource
import time
import warnings
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).parent / "results" / "dask_transform.txt"
NOISE_SD = 8.0


def fashion_pixels(data_dir):
    from ikd.datasets import load_fashion_mnist
    return load_fashion_mnist(n_samples=None, data_dir=data_dir)[0].astype(np.uint8)


def noisy_block(pixels, block, size):
    "Block `block` of the new points: cycled images plus noise seeded by the block's number."
    rows = pixels[np.arange(block * size, (block + 1) * size) % len(pixels)].astype(np.float64)
    return rows + np.random.default_rng(block).normal(0.0, NOISE_SD, rows.shape)


def peak_memory_gb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--block", type=int, default=10_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    import dask.array as da
    from dask import delayed
    from distributed import Client, LocalCluster
    from ikd import IKD
    from ikd.datasets import load_fashion_mnist

    X, _ = load_fashion_mnist(n_samples=None, data_dir=args.data_dir)
    start = time.perf_counter()
    model = IKD(2, n_landmarks=2000, random_state=0).fit(X)
    fit_seconds = time.perf_counter() - start
    lines = [f"Fashion-MNIST 70 000 x 784, IKD(2, n_landmarks=2000): fit {fit_seconds:.1f} s (this process, both cores)",
             f"pickled model {len(pickle.dumps(model)) / 1e6:.2f} MB; for_transform() {len(pickle.dumps(model.for_transform())) / 1e6:.2f} MB "
             f"(standardised landmark rows {model._train_rows.nbytes / 1e6:.2f} MB, embedding_ {model.embedding_.nbytes / 1e6:.2f} MB)", ""]
    print("\n".join(lines), flush=True)
    del X
    n_blocks = -(-args.points // args.block)
    pixels = delayed(fashion_pixels)(args.data_dir)
    new = da.concatenate([da.from_delayed(delayed(noisy_block)(pixels, b, args.block), shape=(args.block, 784), dtype=float)
                          for b in range(n_blocks)])
    placed = model.transform(new)
    samples = (0, n_blocks // 2, n_blocks - 1)
    local_pixels = fashion_pixels(args.data_dir)
    expected = {b: model.transform(noisy_block(local_pixels, b, args.block)) for b in samples}
    lines += [f"{n_blocks * args.block} new points in {n_blocks} blocks of {args.block}, placed on a LocalCluster:",
              f"{'workers':>7s}  {'seconds':>8s}  {'points/s':>9s}  {'peak GB per worker':>20s}  {'max |diff| vs in-process':>24s}"]
    for n_workers in args.workers:
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ[name] = "1"
        with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None,
                          memory_limit=None) as cluster, Client(cluster) as client:
            start = time.perf_counter()
            result = client.compute(placed).result()
            seconds = time.perf_counter() - start
            peaks = client.run(peak_memory_gb)
        difference = max(np.abs(result[b * args.block:(b + 1) * args.block] - expected[b]).max() for b in samples)
        lines.append(f"{n_workers:7d}  {seconds:8.1f}  {n_blocks * args.block / seconds:9.0f}  "
                     f"{', '.join(f'{peak:.2f}' for peak in peaks.values()):>20s}  {difference:24.1e}")
        print(lines[-1], flush=True)
    RESULTS.write_text("\n".join(lines) + "\n")
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
