"""Sparse input against densifying it first (issue 20, part 1): time and peak memory of the same landmark IKD fit.

Run: python benchmarks/sparse_input.py [--points 20000] [--features 20000] [--density 0.01] [--n-landmarks 2000]
Data: `datasets.sparse_observations` of a 2-D uniform latent (a random pattern of stored entries, each exp(z . w)), the
default 20 000 x 20 000 at 1% density (4 million stored entries, 48 MB as CSR; 3.2 GB dense). Each variant runs in a
fresh process: "sparse" fits IKD(2, n_landmarks=L) on the CSR array and places 2000 further sparse rows with
`transform`; "densified" does the same after `toarray()`. Reported: seconds (fit + transform; data generation and the
densifying itself not counted), the peak resident memory of the process (ru_maxrss, data included), and the largest
difference between the two embeddings. Writes benchmarks/results/sparse_input.txt.
"""
import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from timing import report_from_child, run_in_child

RESULTS = Path(__file__).parent / "results" / "sparse_input.txt"


def data(args, n_points, seed):
    from ikd.datasets import sparse_observations
    latent = np.random.default_rng(seed).uniform(-1, 1, (n_points, 2))
    return sparse_observations(latent, args.features, args.density, random_state=seed)


def run_single(args):
    from ikd import IKD
    warnings.simplefilter("ignore")
    X, new = data(args, args.points, 0), data(args, 2000, 1)
    if args.variant == "densified": X, new = X.toarray(), new.toarray()
    start = time.perf_counter()
    model = IKD(2, n_landmarks=args.n_landmarks, random_state=0).fit(X)
    placed = model.transform(new)
    seconds = time.perf_counter() - start
    np.save(args.save, np.vstack([model.embedding_, placed]))
    report_from_child(seconds)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=20000)
    parser.add_argument("--features", type=int, default=20000)
    parser.add_argument("--density", type=float, default=0.01)
    parser.add_argument("--n-landmarks", type=int, default=2000)
    parser.add_argument("--variant", choices=("sparse", "densified"), help=argparse.SUPPRESS)
    parser.add_argument("--save", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.variant:
        run_single(args)
        return
    import tempfile
    common = [sys.executable, __file__, "--points", str(args.points), "--features", str(args.features),
              "--density", str(args.density), "--n-landmarks", str(args.n_landmarks)]
    lines = [f"IKD(2, n_landmarks={args.n_landmarks}) on {args.points} x {args.features} sparse observations at density "
             f"{args.density} ({args.points * args.features * args.density / 1e6:.1f} million stored entries), then "
             "transform of 2000 more rows; one fresh process each", f"{'variant':>10s}  {'seconds':>8s}  {'peak GB':>8s}"]
    embeddings = {}
    with tempfile.TemporaryDirectory() as folder:
        for variant in ("sparse", "densified"):
            path = str(Path(folder) / f"{variant}.npy")
            report = run_in_child(common + ["--variant", variant, "--save", path])
            embeddings[variant] = np.load(path)
            lines.append(f"{variant:>10s}  {report['seconds']:8.1f}  {report['peak_gb']:8.2f}")
            print(lines[-1], flush=True)
    lines.append(f"largest difference between the two embeddings: {np.abs(embeddings['sparse'] - embeddings['densified']).max():.1e}")
    print(lines[-1])
    RESULTS.write_text("\n".join(lines) + "\n")
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
