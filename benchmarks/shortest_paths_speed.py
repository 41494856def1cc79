"""The shortest-path routine against SciPy's, and what BLAS threads cost the path threads, side by side in one run.

Run: python benchmarks/shortest_paths_speed.py [--points 32000] [--sources 300] [--repeats 9]
Prints, for the trusted graphs of the GP benchmark (T = 1000, N = 100, M = 3) and of sklearn's digits (T = 1797, M = 2),
all sources, median of `repeats`: SciPy's `dijkstra`, `ikd.shortest_paths.shortest_paths` on one thread with every row
searched (`READ_OFF_MAX_POINTS` set to 0) and as it runs (a fifth of the rows read off their neighbours' rows), on two
threads, and on two right after a product on two BLAS threads (whose OpenBLAS helper then spins for a while). For the trusted graph of `points` Fashion-MNIST images (k = 7,
product paths; `sources` random sources, one thread, each timed once): SciPy's, the compiled search in the points' given
order, and renumbered in reverse Cuthill-McKee order as `shortest_paths` does. Then the covariance of 1000 rows of 100
features and of 8000 rows of 784 on one and two BLAS threads. Needs IKD_DATA (or ../shared/data) for Fashion-MNIST.
"""
import argparse
import os
import time

import numpy as np
from scipy.sparse.csgraph import dijkstra
from threadpoolctl import threadpool_limits

from ikd import IKD
from ikd.covariance import covariance_from_rows
from sklearn.datasets import load_digits

import ikd.shortest_paths
from ikd.datasets import gp_observations, load_fashion_mnist, ou_latent
from ikd.shortest_paths import _dijkstra_rows, shortest_paths
from timing import wall_times


def small_graphs():
    "name -> the trusted graph of a default IKD fit."
    Z = ou_latent(1000, 3, random_state=0)
    X_gp = gp_observations(Z, 100, lengthscale=3.0, noise=0.05, random_state=0)
    return {"GP benchmark's graph": IKD(3).fit(X_gp).solver_.trusted_graph_.tocsr(),
            "digits' graph": IKD(2).fit(load_digits().data).solver_.trusted_graph_.tocsr()}


def every_row_searched(W):
    "shortest_paths with no row read off its neighbours' rows."
    limit, ikd.shortest_paths.READ_OFF_MAX_POINTS = ikd.shortest_paths.READ_OFF_MAX_POINTS, 0
    try: return shortest_paths(W)
    finally: ikd.shortest_paths.READ_OFF_MAX_POINTS = limit


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=32000)
    parser.add_argument("--sources", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores")
    product = np.random.default_rng(0).standard_normal((1000, 1000))
    for graph_name, W in small_graphs().items():
        shortest_paths(W), every_row_searched(W)  # numba's compilation (or its cache) out of the timings
        with threadpool_limits(limits=2, user_api="blas"):
            rows = {"SciPy dijkstra": (lambda: dijkstra(W, directed=True), lambda: None),
                    "shortest_paths, one thread, every row searched": (lambda: every_row_searched(W), lambda: None),
                    "shortest_paths, one thread": (lambda: shortest_paths(W), lambda: None),
                    "shortest_paths, two threads": (lambda: shortest_paths(W, n_jobs=-1), lambda: time.sleep(0.3)),
                    "two threads, right after a product on two BLAS threads": (lambda: shortest_paths(W, n_jobs=-1),
                                                                               lambda: product @ product)}
            print(f"\n{graph_name} (T = {W.shape[0]}, {W.nnz / W.shape[0]:.1f} edges a point), all sources, "
                  f"median of {args.repeats}")
            for name, (run, before) in rows.items():
                print(f"  {name:56s} {np.median(wall_times(run, args.repeats, before)) * 1e3:7.1f} ms")

    X, _ = load_fashion_mnist(args.points, data_dir=os.environ.get("IKD_DATA", "../shared/data"))
    big = IKD(2, n_landmarks=100, n_jobs=-1).fit(X).solver_.trusted_graph_.tocsr()
    T = big.shape[0]
    sources = np.random.default_rng(0).choice(T, args.sources, replace=False)
    out = np.empty((args.sources, T), dtype=np.float32)
    given_order = np.arange(T, dtype=np.int32)
    searches = {"SciPy dijkstra": lambda: dijkstra(big, directed=True, indices=sources),
                "compiled, points in their given order": lambda: _dijkstra_rows(
                    big.indptr, big.indices, big.data, given_order, sources, out),
                "compiled, renumbered (shortest_paths)": lambda: shortest_paths(big, sources=sources)}
    print(f"\n{T} Fashion-MNIST images' graph ({big.nnz / T:.1f} edges a point), {args.sources} random sources, one thread")
    for name, run in searches.items():
        print(f"  {name:56s} {wall_times(run, 1)[0] / args.sources * 1e3:7.2f} ms a source")

    print("\ncovariance of the rows (covariance_from_rows), median of 3")
    for n_rows, n_features in ((1000, 100), (8000, 784)):
        R = np.random.default_rng(0).standard_normal((n_rows, n_features))
        for threads in (1, 2):
            with threadpool_limits(limits=threads, user_api="blas"):
                seconds = np.median(wall_times(lambda: covariance_from_rows(R), 3))
            print(f"  {n_rows} x {n_features}, {threads} BLAS thread(s) {seconds * 1e3:9.1f} ms")


if __name__ == "__main__":
    main()
