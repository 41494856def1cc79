"""The GP benchmark of Sec. 3.1 (dataset 1) for the IKD solvers and sklearn's Isomap, and fit time against T.

Run: python benchmarks/gp_benchmark.py [--seeds 5] [--sizes 10 20 50 100 200 500 1000] [--scaling 1000 2000 4000 8000]
Latent: Eq. 12 with T = 1000, M = 3; data: SE GP with sigma^2 = 1, l = 3, noise sd 0.05. Prints the mean affine R^2
(over the seeds a solver did not refuse) and the median fit time per method and N (every threshold chosen automatically), then the fit time of the geodesic and
blockwise solvers against T at N = 100 with the fitted growth exponents.
"""
import argparse
import time
import warnings

import numpy as np
from sklearn.manifold import Isomap

from ikd import IKD
from ikd.blockwise import BlockwiseSolver
from ikd.datasets import gp_observations, ou_latent
from ikd.covariance import sample_covariance
from ikd.estimation_error import choose_threshold
from ikd.metrics import affine_r2


def blockwise_neighbourhoods(X):
    return IKD(3, solver=BlockwiseSolver(cover="neighbourhoods")).fit_transform(X)


METHODS = {
    "full IKD": lambda X: IKD(3, solver="full").fit_transform(X),
    "blockwise IKD (cliques)": lambda X: IKD(3, solver="blockwise").fit_transform(X),
    "blockwise (neighbourhoods)": blockwise_neighbourhoods,
    "IKD (auto = geodesic)": lambda X: IKD(3).fit_transform(X),
    "Isomap (5 neighbours)": lambda X: Isomap(n_neighbors=5, n_components=3).fit_transform(X),
}
SCALED = {
    "geodesic": lambda X: IKD(3, solver="geodesic").fit(X),
    "blockwise (cliques)": lambda X: IKD(3, solver="blockwise").fit(X),
    "blockwise (neighbourhoods)": blockwise_neighbourhoods,
}


def timed(fn, X):
    "The result and its time; None for a solver that refuses the data (the blockwise clique cover at its cap)."
    start = time.perf_counter()
    try: result = fn(X)
    except ValueError: result = None
    return result, time.perf_counter() - start


def score_text(scores, times):
    if np.isnan(scores).all(): return f"{'refused':>19s} ({np.median(times):5.2f}s)"
    return f"{np.nanmean(scores):19.4f} ({np.median(times):5.2f}s)"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 50, 100, 200, 500, 1000])
    parser.add_argument("--scaling", type=int, nargs="*", default=[1000, 2000, 4000, 8000])
    parser.add_argument("--scaled", nargs="*", default=list(SCALED), choices=list(SCALED),
                        help="solvers timed against T")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print(f"GP benchmark, T = 1000, M = 3, {args.seeds} seeds: mean affine R^2 (median seconds per fit)")
    print(f"{'N':>6s}  " + "  ".join(f"{name:>28s}" for name in METHODS), flush=True)
    for N in args.sizes:
        scores = {name: [] for name in METHODS}
        times = {name: [] for name in METHODS}
        for seed in range(args.seeds):
            Z = ou_latent(1000, 3, random_state=seed)
            X = gp_observations(Z, N, lengthscale=3.0, noise=0.05, random_state=seed)
            for name, fn in METHODS.items():
                U, seconds = timed(fn, X)
                scores[name].append(np.nan if U is None else affine_r2(U, Z)); times[name].append(seconds)
        print(f"{N:6d}  " + "  ".join(score_text(scores[n], times[n]) for n in METHODS), flush=True)
    if args.scaling:
        print("\nfit time against T (N = 100, seed 0), seconds")
        print(f"{'T':>6s}  " + "  ".join(f"{name:>26s}" for name in args.scaled))
        seconds = {name: [] for name in args.scaled}
        for T in args.scaling:
            X = gp_observations(ou_latent(T, 3, random_state=0), 100, lengthscale=3.0, noise=0.05, random_state=0)
            for name in args.scaled: seconds[name].append(timed(SCALED[name], X)[1])
            print(f"{T:6d}  " + "  ".join(f"{seconds[name][-1]:26.2f}" for name in args.scaled), flush=True)
        if len(args.scaling) > 1:
            exponents = {name: np.polyfit(np.log(args.scaling), np.log(values), 1)[0] for name, values in seconds.items()}
            print("growth exponent  " + "  ".join(f"{name}: T^{value:.2f}" for name, value in exponents.items()))


if __name__ == "__main__":
    main()
