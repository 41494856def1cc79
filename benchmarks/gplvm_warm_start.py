"""GPy's GPLVM started at IKD's solution against GPy's default start (PCA, unit hyperparameters), side by side.

Usage: python benchmarks/gplvm_warm_start.py [--seeds 3] [--bayesian] [--data-dir DIR]

For each data set: the final log-likelihood, latent R^2 against the truth (5-NN accuracy under the paper's folds for
qPCR), wall time of the optimisation (IKD's fit included for the warm start), and the time the warm start takes to reach
the default's final log-likelihood (read from a trace of every objective evaluation of the warm start's one L-BFGS run,
IKD's fit included). Both are given the same data (`ikd.gpy_warm_start.gplvm_data`) and at most 1000 iterations. With --bayesian
both are GPy's BayesianGPLVM (30 inducing points; the log-likelihood is its variational lower bound). --csv writes the
rows as a table too.
"""
import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd


def log_likelihood(gp):
    return float(np.asarray(gp.log_likelihood()).squeeze())  # a BayesianGPLVM returns a 1-element array


def traced(gp, start):
    "Record (seconds since `start`, log-likelihood) at every objective evaluation of `gp.optimize` (L-BFGS's own calls)."
    trace, evaluate = [], gp._objective_grads
    def recording(x):
        objective, gradient = evaluate(x)
        trace.append((time.perf_counter() - start, -float(objective)))  # the objective is minus the log-likelihood
        return objective, gradient
    gp._objective_grads = recording  # paramz looks the method up on the instance when the optimiser starts
    return trace


def run(X, M, seed, score, bayesian=False):
    import GPy
    from ikd.gpy_warm_start import gplvm_data, gplvm_from_ikd
    Y = gplvm_data(X)
    np.random.seed(seed)
    default = (GPy.models.BayesianGPLVM(Y, M, kernel=GPy.kern.RBF(M), num_inducing=min(30, len(Y))) if bayesian
               else GPy.models.GPLVM(Y, M, kernel=GPy.kern.RBF(M)))
    latent = (lambda gp: np.asarray(gp.X.mean)) if bayesian else (lambda gp: np.asarray(gp.X))
    start = time.perf_counter(); default.optimize(max_iters=1000); default_time = time.perf_counter() - start
    target = log_likelihood(default)
    start = time.perf_counter(); warm = gplvm_from_ikd(X, M, bayesian=bayesian, random_state=seed)
    trace = traced(warm, start)
    warm.optimize(max_iters=1000)
    warm_time = time.perf_counter() - start
    reach = next((seconds for seconds, ll in trace if ll >= target), float("nan"))
    return dict(default_ll=target, warm_ll=log_likelihood(warm), default_score=score(latent(default)),
                warm_score=score(latent(warm)), default_s=default_time, warm_s=warm_time, reach_s=reach)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--bayesian", action="store_true", help="compare BayesianGPLVMs instead of GPLVMs")
    parser.add_argument("--data-dir", default=os.environ.get("IKD_DATA"))
    parser.add_argument("--csv", help="also write the rows to this CSV file")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    from ikd.datasets import gp_observations, load_guo_qpcr, medium_latent, ou_latent
    from ikd.metrics import affine_r2, knn_accuracy
    cases = []
    for N in (20, 100):
        for seed in range(args.seeds):
            Z = ou_latent(500, 3, random_state=seed)
            cases.append((f"GP benchmark T=500 N={N}", gp_observations(Z, N, lengthscale=3.0, noise=0.05, random_state=seed),
                          3, seed, lambda U, Z=Z: affine_r2(U, Z)))
    Z = medium_latent()
    cases.append(("Fig. 4 medium latent N=1000", gp_observations(Z, 1000, lengthscale=0.5, noise=0.05, random_state=0), 3, 0,
                  lambda U, Z=Z: affine_r2(U, Z)))
    if args.data_dir:
        X, y = load_guo_qpcr(args.data_dir)
        cases.append(("qPCR (5-NN, paper folds)", np.asarray(X, dtype=np.float64), 2, 0,
                      lambda U, y=y: knn_accuracy(U, y, n_neighbors=[5], folds="paper")[5]))
    print(f"{'case':30s} {'seed':>4s} {'default ll':>11s} {'warm ll':>11s} {'score def':>9s} {'score warm':>10s} "
          f"{'def s':>6s} {'warm s':>6s} {'reach s':>7s} {'speed-up':>8s}")
    rows = []
    for name, X, M, seed, score in cases:
        r = run(X, M, seed, score, args.bayesian)
        rows.append({"case": name, "seed": seed, **r})
        if args.csv: pd.DataFrame(rows).to_csv(args.csv, index=False)
        print(f"{name:30s} {seed:4d} {r['default_ll']:11.1f} {r['warm_ll']:11.1f} {r['default_score']:9.3f} "
              f"{r['warm_score']:10.3f} {r['default_s']:6.1f} {r['warm_s']:6.1f} {r['reach_s']:7.2f} "
              f"{r['default_s'] / r['reach_s']:8.1f}", flush=True)


if __name__ == "__main__":
    main()
