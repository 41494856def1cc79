"""Choosing the latent dimension M and the kernel from the data with IKD's GP likelihood (issue 19, must-show 4).

Run: python benchmarks/model_selection.py [--seeds 5] [--out benchmarks/results/model_selection.csv]
Data: the GP benchmark of Sec. 3.1 generated with each kernel of Tab. 1 (default parameters), true M in {2, 3, 5},
T = 500, N = 100, lengthscale 3, noise sd 0.1, `--seeds` seeds each. Candidates: M = 1..7 with the true kernel, and the
four kernels at the true M. Criteria: the per-entry log-likelihood `IKD.score` and `IKD.bic`, each on the fitted data
("train") and as the mean over 5 shuffled folds of held-out rows ("5-fold", `GridSearchCV` with both scorers). Prints
how often each criterion picks the truth and writes one row per data set with every pick.
"""
import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.model_selection import GridSearchCV, KFold

from ikd import IKD
from ikd.datasets import gp_observations, ou_latent
from ikd.decoder import bic_scorer

KERNELS = ["squared_exponential", "rational_quadratic", "gamma_exponential", "matern"]
CANDIDATE_M = list(range(1, 8))
SCORERS = {"loglik": lambda model, X, y=None: model.score(X), "bic": bic_scorer}  # both: greater is better


def picks(X, grid, fixed):
    "Best candidate of `grid` (one parameter) by each criterion: train and 5-fold log-likelihood and BIC."
    name, values = next(iter(grid.items()))
    search = GridSearchCV(IKD(random_state=0, **fixed), grid, scoring=SCORERS, refit=False,
                          cv=KFold(5, shuffle=True, random_state=0)).fit(X)
    held_out = {criterion: values[int(np.argmax(search.cv_results_[f"mean_test_{criterion}"]))] for criterion in SCORERS}
    train = {}
    for value in values:
        model = IKD(random_state=0, **fixed, **{name: value}).fit(X)
        train[value] = {criterion: scorer(model, X) for criterion, scorer in SCORERS.items()}
    return {"train loglik": max(values, key=lambda v: train[v]["loglik"]),
            "train bic": max(values, key=lambda v: train[v]["bic"]),
            "5-fold loglik": held_out["loglik"], "5-fold bic": held_out["bic"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--out", default="benchmarks/results/model_selection.csv")
    args = parser.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)  # M = 1 fits of 3-D data break their trusted graph, and say so
    rows = []
    for kernel in KERNELS:
        for true_m in (2, 3, 5):
            for seed in range(args.seeds):
                start = time.perf_counter()
                X = gp_observations(ou_latent(500, true_m, random_state=seed), 100, kernel=kernel, lengthscale=3.0,
                                    noise=0.1, random_state=seed)
                by_m = picks(X, {"n_components": CANDIDATE_M}, {"kernel": kernel})
                by_kernel = picks(X, {"kernel": KERNELS}, {"n_components": true_m})
                row = {"kernel": kernel, "true M": true_m, "seed": seed}
                row.update({f"M by {criterion}": value for criterion, value in by_m.items()})
                row.update({f"kernel by {criterion}": by_kernel[criterion] for criterion in ("train loglik", "5-fold loglik")})
                row["seconds"] = round(time.perf_counter() - start, 1)
                rows.append(row)
                print(" ".join(f"{key}={value}" for key, value in row.items()), flush=True)
    table = pd.DataFrame(rows)
    table.to_csv(args.out, index=False)
    print(f"\nHow often each criterion picks the truth ({len(table)} data sets, {args.seeds} seeds per kernel and M):")
    for criterion in ("train loglik", "train bic", "5-fold loglik", "5-fold bic"):
        hits = table[f"M by {criterion}"] == table["true M"]
        within = (table[f"M by {criterion}"] - table["true M"]).abs() <= 1
        by_m = ", ".join(f"M={m}: {hits[table['true M'] == m].mean():.2f}" for m in (2, 3, 5))
        print(f"  M by {criterion:14s} {hits.mean():.2f} ({by_m}); within one: {within.mean():.2f}")
    for criterion in ("train loglik", "5-fold loglik"):
        hits = table[f"kernel by {criterion}"] == table["kernel"]
        by_kernel = ", ".join(f"{kernel}: {hits[table['kernel'] == kernel].mean():.2f}" for kernel in KERNELS)
        print(f"  kernel by {criterion:14s} {hits.mean():.2f} ({by_kernel})")


if __name__ == "__main__":
    main()
