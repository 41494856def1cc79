"""The GP benchmark of Sec. 3.1 (dataset 1) for the IKD solvers and sklearn's Isomap, and fit time against T.

Run: python benchmarks/gp_benchmark.py [--seeds 5] [--sizes 10 20 50 100 200 500 1000] [--scaling 1000 2000 4000]
Latent: Eq. 12 with T = 1000, M = 3; data: SE GP with sigma^2 = 1, l = 3, noise sd 0.05. Prints the mean affine R^2
and the median fit time per method and N, then the geodesic fit time against T at N = 100 with the fitted exponent.
"""
import argparse
import time
import warnings

import numpy as np
from sklearn.manifold import Isomap

from ikd import IKD
from ikd.datasets import gp_observations, ou_latent
from ikd.metrics import affine_r2

METHODS = {
    "full IKD": lambda X: IKD(3, solver="full").fit_transform(X),
    "geodesic IKD (auto)": lambda X: IKD(3).fit_transform(X),
    "geodesic IKD, product paths": lambda X: IKD(3, path="product").fit_transform(X),
    "Isomap (5 neighbours)": lambda X: Isomap(n_neighbors=5, n_components=3).fit_transform(X),
}


def timed(fn, X):
    start = time.perf_counter()
    result = fn(X)
    return result, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 50, 100, 200, 500, 1000])
    parser.add_argument("--scaling", type=int, nargs="*", default=[1000, 2000, 4000])
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print(f"GP benchmark, T = 1000, M = 3, {args.seeds} seeds: mean affine R^2 (median seconds per fit)")
    print(f"{'N':>6s}  " + "  ".join(f"{name:>28s}" for name in METHODS))
    for N in args.sizes:
        scores = {name: [] for name in METHODS}
        times = {name: [] for name in METHODS}
        for seed in range(args.seeds):
            Z = ou_latent(1000, 3, random_state=seed)
            X = gp_observations(Z, N, lengthscale=3.0, noise=0.05, random_state=seed)
            for name, fn in METHODS.items():
                U, seconds = timed(fn, X)
                scores[name].append(affine_r2(U, Z)); times[name].append(seconds)
        print(f"{N:6d}  " + "  ".join(f"{np.mean(scores[n]):19.4f} ({np.median(times[n]):5.2f}s)" for n in METHODS), flush=True)
    if args.scaling:
        print("\ngeodesic IKD fit time against T (N = 100)")
        sizes, seconds = [], []
        for T in args.scaling:
            X = gp_observations(ou_latent(T, 3, random_state=0), 100, lengthscale=3.0, noise=0.05, random_state=0)
            _, s = timed(lambda X: IKD(3).fit(X), X)
            sizes.append(T); seconds.append(s)
            print(f"  T = {T:6d}: {s:7.2f} s", flush=True)
        if len(sizes) > 1:
            exponent = np.polyfit(np.log(sizes), np.log(seconds), 1)[0]
            print(f"  fitted growth exponent: time ~ T^{exponent:.2f}")


if __name__ == "__main__":
    main()
