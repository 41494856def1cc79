"""Landmark IKD on the full Fashion-MNIST (70 000 x 784), next to UMAP and PCA on the same data in the same run.

Run: python benchmarks/fashion_mnist_full.py [--data-dir DIR] [--n-landmarks 2000] [--components 2 10] [--skip-umap]
Each method runs in a fresh subprocess, so that its wall time and peak resident memory (ru_maxrss, data loading
included) are its own. Prints and writes benchmarks/results/fashion_mnist_full.csv: method, M, seconds, peak GB and
5-fold 5-NN accuracy on all 70 000 points. Then, at the largest M: the landmark embedding's accuracy on a random 3000
points against full IKD fitted on those 3000 points alone.
"""
import argparse
import csv
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from timing import report_from_child, run_in_child

RESULTS = Path(__file__).parent / "results" / "fashion_mnist_full.csv"


def embed(method, n_components, n_landmarks, data_dir):
    "Load the data and embed it with `method`; returns the embedding and the seconds the embedding took."
    from ikd.datasets import load_fashion_mnist
    X, _ = load_fashion_mnist(n_samples=None, data_dir=data_dir)
    start = time.perf_counter()
    if method == "ikd":
        from ikd import IKD
        U = IKD(n_components, n_landmarks=n_landmarks).fit_transform(X)
    elif method == "umap":
        import umap
        U = umap.UMAP(n_components=n_components).fit_transform(X)
    else:
        from sklearn.decomposition import PCA
        U = PCA(n_components).fit_transform(X)
    return U, time.perf_counter() - start


def run_single(args):
    warnings.simplefilter("ignore")
    U, seconds = embed(args.single, args.components[0], args.n_landmarks, args.data_dir)
    np.save(args.output, U)
    report_from_child(seconds)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=None, help="folder with fashion-mnist/ (default: $IKD_DATA)")
    parser.add_argument("--n-landmarks", type=int, default=2000)
    parser.add_argument("--components", type=int, nargs="+", default=[2, 10])
    parser.add_argument("--skip-umap", action="store_true")
    parser.add_argument("--single", choices=["ikd", "umap", "pca"], help=argparse.SUPPRESS)
    parser.add_argument("--output", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.single: return run_single(args)

    from ikd import IKD
    from ikd.datasets import load_fashion_mnist
    from ikd.metrics import knn_accuracy
    warnings.simplefilter("ignore")
    X, y = load_fashion_mnist(n_samples=None, data_dir=args.data_dir)
    methods = ["ikd", "pca"] + ([] if args.skip_umap else ["umap"])
    rows, embeddings = [], {}
    print(f"Fashion-MNIST, T = {len(X)}, N = {X.shape[1]}; IKD with {args.n_landmarks} farthest-point landmarks")
    print(f"{'method':>6s} {'M':>3s} {'seconds':>9s} {'peak GB':>8s} {'5-NN acc':>9s}")
    for M in args.components:
        for method in methods:
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / "embedding.npy"
                command = [sys.executable, __file__, "--single", method, "--components", str(M), "--output", str(out),
                           "--n-landmarks", str(args.n_landmarks)] + (["--data-dir", args.data_dir] if args.data_dir else [])
                report = run_in_child(command)
                embeddings[method, M] = np.load(out)
            accuracy = knn_accuracy(embeddings[method, M], y, n_neighbors=5)
            rows.append({"method": method, "M": M, "seconds": round(report["seconds"], 2),
                         "peak_gb": round(report["peak_gb"], 2), "knn_accuracy": round(accuracy, 4)})
            print(f"{method:>6s} {M:3d} {report['seconds']:9.1f} {report['peak_gb']:8.2f} {accuracy:9.4f}", flush=True)
    for M in args.components:
        if ("umap", M) in embeddings:
            ikd, umap_row = (next(r for r in rows if r["method"] == name and r["M"] == M) for name in ("ikd", "umap"))
            print(f"M = {M}: IKD took {ikd['seconds'] / umap_row['seconds']:.3f} of UMAP's time")
    M = max(args.components)
    subset = np.sort(np.random.default_rng(0).choice(len(X), 3000, replace=False))
    on_subset = knn_accuracy(embeddings["ikd", M][subset], y[subset], n_neighbors=5)
    alone = knn_accuracy(IKD(M).fit_transform(X[subset]), y[subset], n_neighbors=5)
    print(f"M = {M}, the same random 3000 points: landmark IKD on all 70 000 -> {on_subset:.4f}; "
          f"IKD fitted on the 3000 alone -> {alone:.4f}; difference {on_subset - alone:+.4f}")
    rows.append({"method": "ikd landmarks, 3000-point subset", "M": M, "seconds": "", "peak_gb": "", "knn_accuracy": round(on_subset, 4)})
    rows.append({"method": "ikd fitted on the 3000 alone", "M": M, "seconds": "", "peak_gb": "", "knn_accuracy": round(alone, 4)})
    RESULTS.parent.mkdir(exist_ok=True)
    with open(RESULTS, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader(); writer.writerows(rows)
    print(f"written {RESULTS}")


if __name__ == "__main__":
    main()
