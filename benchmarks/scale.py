"""Fit time and peak memory against T for full, geodesic and landmark IKD, on Fashion-MNIST subsets.

Run: python benchmarks/scale.py [--data-dir DIR] [--sizes 1000 2000 4000 8000 16000 32000 70000] [--n-landmarks 2000]
        [--memory-gb 16] [--timeout 600]
Each fit runs in a fresh subprocess so that its peak resident memory (ru_maxrss, data loading included) is its own.
Geodesic and landmark IKD run with n_jobs=-1 (the shortest paths on every core); full and geodesic IKD fit every row
(n_landmarks=None, which n_landmarks="auto" would replace by landmarks beyond `landmarks.AUTO_EXACT_POINTS`). Full IKD
holds several T x T float64 matrices, geodesic IKD the covariance and the float32 path lengths (1.5 such matrices), or,
past `estimator.EXACT_FROM_ROWS_POINTS` rows, the float32 path lengths alone (0.5); a
size whose predicted need exceeds --memory-gb is skipped, as is any larger size after a run that timed out. Prints a table and the fitted growth
exponents, and writes benchmarks/results/scale.csv (method, T, seconds, peak_gb), replacing only the rows it measured.
"""
import argparse
import csv
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from timing import report_from_child, run_in_child

RESULTS = Path(__file__).parent / "results" / "scale.csv"
METHODS = ("full", "geodesic", "landmark")
DENSE_COPIES = {"full": 6, "geodesic": 1.5}  # T x T float64 matrices a fit holds at its peak


def dense_copies(method, T):
    "T x T float64 matrices the fit holds at its peak: the geodesic fit from the rows holds the float32 paths only."
    from ikd.estimator import EXACT_FROM_ROWS_POINTS
    return 0.5 if method == "geodesic" and T > EXACT_FROM_ROWS_POINTS else DENSE_COPIES.get(method, 0)


def run_single(method, T, n_landmarks, data_dir):
    from ikd import IKD
    from ikd.datasets import load_fashion_mnist
    warnings.simplefilter("ignore")
    X, _ = load_fashion_mnist(n_samples=None if T >= 70000 else T, data_dir=data_dir)
    model = {"full": IKD(2, solver="full", n_landmarks=None), "geodesic": IKD(2, solver="geodesic", n_landmarks=None, n_jobs=-1),
             "landmark": IKD(2, n_landmarks=n_landmarks, n_jobs=-1)}[method]
    start = time.perf_counter()
    model.fit(X)
    seconds = time.perf_counter() - start
    report_from_child(seconds)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000, 8000, 16000, 32000, 70000])
    parser.add_argument("--n-landmarks", type=int, default=2000)
    parser.add_argument("--memory-gb", type=float, default=16.0)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--single", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.single: return run_single(args.single[0], int(args.single[1]), args.n_landmarks, args.data_dir)

    rows = []
    print(f"Fashion-MNIST subsets, M = 2; landmark IKD with {args.n_landmarks} farthest-point landmarks")
    print(f"{'method':>9s} {'T':>6s} {'seconds':>9s} {'peak GB':>8s}")
    for method in args.methods:
        for T in args.sizes:
            need = dense_copies(method, T) * 8 * T ** 2 / 2 ** 30
            if need > args.memory_gb:
                print(f"{method:>9s} {T:6d}   skipped: about {need:.0f} GB of T x T matrices")
                continue
            command = [sys.executable, __file__, "--single", method, str(T), "--n-landmarks", str(args.n_landmarks)]
            if args.data_dir: command += ["--data-dir", args.data_dir]
            try:
                report = run_in_child(command, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                print(f"{method:>9s} {T:6d}   stopped after {args.timeout:.0f} s; larger sizes skipped")
                break
            except subprocess.CalledProcessError as failure:  # e.g. a crash inside a library; the table is kept
                print(f"{method:>9s} {T:6d}   failed (exit status {failure.returncode}); larger sizes skipped")
                break
            rows.append({"method": method, "T": T, "seconds": round(report["seconds"], 3), "peak_gb": round(report["peak_gb"], 3)})
            print(f"{method:>9s} {T:6d} {report['seconds']:9.2f} {report['peak_gb']:8.2f}", flush=True)
    for method in args.methods:
        sizes = [r["T"] for r in rows if r["method"] == method and r["T"] >= 2000]
        seconds = [r["seconds"] for r in rows if r["method"] == method and r["T"] >= 2000]
        if len(sizes) > 1:
            print(f"{method}: time ~ T^{np.polyfit(np.log(sizes), np.log(seconds), 1)[0]:.2f} (T >= 2000)")
    RESULTS.parent.mkdir(exist_ok=True)
    # rows of earlier runs stay unless this run measured the same method and T
    measured = {(r["method"], str(r["T"])) for r in rows}
    kept = [r for r in csv.DictReader(RESULTS.open())] if RESULTS.exists() else []
    merged = [r for r in kept if (r["method"], r["T"]) not in measured] + rows
    merged.sort(key=lambda r: (METHODS.index(r["method"]), int(r["T"])))
    with open(RESULTS, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["method", "T", "seconds", "peak_gb"])
        writer.writeheader(); writer.writerows(merged)
    print(f"written {RESULTS}")


if __name__ == "__main__":
    main()
