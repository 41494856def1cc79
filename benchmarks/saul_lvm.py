"""Saul's tractable LVM against PCA, IKD, UMAP and t-SNE on digits, and on all of MNIST (issue 22, parts 4-5).

Run: python benchmarks/saul_lvm.py [--mnist] [--mnist-only] [--dims 2 5 10] [--data-dir DIR]
Digits (scikit-learn's 1797 images): shuffled stratified 5-fold 9-NN accuracy of each embedding at d = 2 and 10, and the
fit time (t-SNE at d = 10 uses the exact method; Barnes-Hut allows at most 3). With --mnist: all 70 000 MNIST images,
each method in a fresh process (wall time and peak resident memory, data loading included) embedding all of them at
each d; the 9-NN test error trains on the 60 000 training images' outputs and tests on the 10 000 test images' (the
paper's protocol). The LVM uses the paper's settings (k = 9, s = 1, one coarse level, 400 iterations). Writes
benchmarks/results/saul_lvm.txt, and benchmarks/results/saul_lvm_mnist.npz (the 2-D maps of the LVM and UMAP, the LVM's
variances, the labels) for the figures of the lvm page.
"""
import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from timing import report_from_child, run_in_child

RESULTS = Path(__file__).parent / "results"
METHODS = ("saul_lvm", "pca", "ikd", "umap", "tsne")
MNIST_METHODS = ("saul_lvm", "pca", "umap")


def run_single(method, d, data_dir, save):
    from ikd.baselines import embed
    from ikd.datasets import load_mnist
    warnings.simplefilter("ignore")
    X, _ = load_mnist(data_dir)
    start = time.perf_counter()
    if method == "saul_lvm":
        from ikd.lvm import TractableLVM
        model = TractableLVM(d, n_neighbors=9, n_walk_steps=1, coarse_levels=1, max_iter=400, linear_solver="cg_jacobi",
                             random_state=0).fit(X)
        Z, variances = model.embedding_, model.variances_
    else: Z, variances = embed(method, X, d, random_state=0), None
    seconds = time.perf_counter() - start
    np.savez(save, embedding=Z, **({} if variances is None else {"variances": variances}))
    report_from_child(seconds)


def test_error(Z, y, n_train=60000):
    from sklearn.neighbors import KNeighborsClassifier
    classifier = KNeighborsClassifier(n_neighbors=9).fit(Z[:n_train], y[:n_train])
    return 1.0 - classifier.score(Z[n_train:], y[n_train:])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mnist", action="store_true", help="also all 70 000 MNIST images (about an hour)")
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 5, 10], help="MNIST output dimensions")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--mnist-only", action="store_true",
                        help="skip digits; write results/saul_lvm_mnist_d<dims>.txt instead of saul_lvm.txt")
    parser.add_argument("--single", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.single:
        run_single(args.single[0], int(args.single[1]), args.data_dir, args.single[2])
        return
    warnings.simplefilter("ignore")
    from sklearn.datasets import load_digits
    from ikd.baselines import embed
    from ikd.metrics import knn_accuracy
    X, y = load_digits(return_X_y=True)
    lines = [] if args.mnist_only else ["Digits (1797 x 64): shuffled stratified 5-fold 9-NN accuracy (fit seconds)",
                                        f"{'method':>10s}  " + "  ".join(f"{f'd = {d}':>17s}" for d in (2, 10))]
    for method in () if args.mnist_only else METHODS:
        cells = []
        for d in (2, 10):
            start = time.perf_counter()
            Z = embed(method, X, d, random_state=0)
            seconds = time.perf_counter() - start
            cells.append(f"{knn_accuracy(Z, y, n_neighbors=9):.3f} ({seconds:6.1f} s)")
        lines.append(f"{method:>10s}  " + "  ".join(f"{cell:>17s}" for cell in cells))
        print(lines[-1], flush=True)
    if args.mnist:
        import tempfile
        from ikd.datasets import load_mnist
        _, labels = load_mnist(args.data_dir)
        lines += ["", "MNIST 70 000 x 784, all images embedded; 9-NN test error (train 60 000, test 10 000), fit seconds, "
                  "peak GB (fresh process each)", f"{'method':>10s}  {'d':>3s}  {'error':>6s}  {'seconds':>8s}  {'peak GB':>7s}"]
        maps = {"labels": labels}
        with tempfile.TemporaryDirectory() as folder:
            for d in args.dims:
                for method in MNIST_METHODS:
                    save = str(Path(folder) / f"{method}_{d}.npz")
                    command = [sys.executable, __file__, "--single", method, str(d), save]
                    if args.data_dir: command += ["--data-dir", args.data_dir]
                    report = run_in_child(command)
                    saved = np.load(save)
                    if d == 2:
                        maps[f"{method}_map"] = saved["embedding"].astype(np.float32)
                        if "variances" in saved: maps["saul_lvm_variances"] = saved["variances"].astype(np.float32)
                    lines.append(f"{method:>10s}  {d:3d}  {test_error(saved['embedding'], labels):6.3f}  "
                                 f"{report['seconds']:8.1f}  {report['peak_gb']:7.2f}")
                    print(lines[-1], flush=True)
        if 2 in args.dims: np.savez_compressed(RESULTS / "saul_lvm_mnist.npz", **maps)
    output = RESULTS / (f"saul_lvm_mnist_d{'_'.join(map(str, args.dims))}.txt" if args.mnist_only else "saul_lvm.txt")
    output.write_text("\n".join(lines).strip("\n") + "\n")
    print(f"written to {output}")


if __name__ == "__main__":
    main()
