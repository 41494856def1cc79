"""IKD's default geodesic fit against scikit-learn's Isomap, side by side in one run.

Run: python benchmarks/isomap_speed.py [--repeats 5]
Data: the GP benchmark of Sec. 3.1 (T = 1000, M = 3, N = 100, l = 3, noise sd 0.05, seed 0) scored by affine R^2, and
sklearn's digits (M = 2) scored by 5-fold 5-NN accuracy. Methods: IKD with its defaults and n_jobs=-1, IKD serial, and
Isomap (its default 5 neighbours) with n_jobs=-1. The fits alternate (IKD, Isomap, IKD, ...) so that drift in the
machine's speed affects both; prints the median time of `repeats` fits per method, the ratio to Isomap, and the score.
With --pause S each fit starts S seconds after the previous one ends: OpenBLAS's threads spin for about 0.1-0.2 s after
a product, so back to back each fit shares its cores with the spinning threads of the fit before it (the IKD fit's
shortest-path threads with Isomap's BLAS threads, for one).
"""
import argparse
import os
import time
import warnings

import numpy as np
from sklearn.datasets import load_digits
from sklearn.manifold import Isomap

from ikd import IKD
from ikd.datasets import gp_observations, ou_latent
from ikd.metrics import affine_r2, knn_accuracy


def data_sets():
    "name -> (X, M, score of an embedding)."
    Z = ou_latent(1000, 3, random_state=0)
    X_gp = gp_observations(Z, 100, lengthscale=3.0, noise=0.05, random_state=0)
    X_digits, y_digits = load_digits(return_X_y=True)
    return {"GP benchmark (T=1000, N=100), affine R^2": (X_gp, 3, lambda U: affine_r2(U, Z)),
            "digits (T=1797, N=64), 5-NN accuracy": (X_digits, 2, lambda U: knn_accuracy(U, y_digits))}


METHODS = {
    "IKD (defaults, n_jobs=-1)": lambda M: IKD(M, n_jobs=-1),
    "IKD (defaults, serial)": lambda M: IKD(M),
    "Isomap (n_jobs=-1)": lambda M: Isomap(n_components=M, n_jobs=-1),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--pause", type=float, default=0.0, help="seconds between fits (0: back to back)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print(f"{os.cpu_count()} cores; median of {args.repeats} fits, methods interleaved, {args.pause} s between fits")
    for name, (X, M, score) in data_sets().items():
        times = {method: [] for method in METHODS}
        scores = {}
        for method, make in METHODS.items(): scores[method] = score(make(M).fit_transform(X))  # warm-up and score
        for _ in range(args.repeats):
            for method, make in METHODS.items():
                time.sleep(args.pause)
                start = time.perf_counter()
                make(M).fit(X)
                times[method].append(time.perf_counter() - start)
        isomap = np.median(times["Isomap (n_jobs=-1)"])
        print(f"\n{name}")
        for method in METHODS:
            median = np.median(times[method])
            print(f"  {method:28s} {median:6.3f} s   {median / isomap:5.2f} x Isomap   score {scores[method]:.4f}")


if __name__ == "__main__":
    main()
