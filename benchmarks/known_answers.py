"""Known-answer grid (issue 33, item 16): on GP data with a known latent, every combination of covariance x solver x
landmarks must recover the latent (fit), place held-out rows (transform) and decode its embedding (inverse_transform).

    python benchmarks/known_answers.py                      # T = 400 + 100 held out, N = 300, seed 7; ~1 min on 2 cores
    python benchmarks/known_answers.py --n-train 300 --n-test 60 --n-features 60 --seed 0   # the test's data

prints one table (one row per combination, the thresholds' verdict in the last column) and writes it to
benchmarks/results/known_answers.txt. `tests/test_known_answers.py` imports `CELLS`, `make_data`, `evaluate` and
`failures` from here and asserts every cell on smaller data, so the grid has one definition.

The data: Z = ou_latent(T + T_test, 2), X = gp_observations(Z, N) (squared-exponential kernel, lengthscale 3, noise
0.05) and the noise-free signal F (the same draw with noise=0); T_test rows chosen at random are held out, the model
is fitted on the rest.

Outputs, per cell:
* fit: `ikd.metrics.affine_r2(embedding_, Z_train)`;
* held-out: R^2 of `transform(X_test)` against Z_test under the affine map fitted on the *training* embedding (so a
  new point placed in the wrong frame, or misaligned with the fitted points, counts as wrong);
* decode: ||inverse_transform(embedding_) - F_train|| / ||F_train - column means||, the round trip's error relative
  to the signal's variation (1 = no better than the mean row).
"""
import argparse
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.base import clone
from sklearn.metrics import r2_score

from ikd import IKD
from ikd.blockwise import BlockwiseSolver
from ikd.datasets import gp_observations, ou_latent
from ikd.metrics import affine_r2

# The thresholds, in one place. A correct implementation, on the correlation rows without landmarks (the paths the
# paper and the rest of the test suite vouch for), gives on the test's data (T = 300, N = 60, seed 0): fit R^2
# 0.974-0.994, held-out R^2 0.980-0.991, decode error 0.037-0.051 (0.06 with landmarks); on the benchmark's data it does
# better. Every other option estimates the same latent from the same information, so it must reach the same bar, with a
# margin of about 0.025 in R^2 and twice the error for the variation between solvers. A broken option misses by far:
# covariance="covariance" with the geodesic solver (issue 33 item 2) gave fit 0.50-0.59, held-out 0.49-0.60, decode
# 0.64-0.74; a landmark list covering every row (item 1) gave fit 0.004 and decode 1.39.
THRESHOLDS = {"fit_r2": 0.95, "heldout_r2": 0.95, "decode_error": 0.10}

COVARIANCES = ("correlation", "covariance")
SOLVERS = {
    "auto": {},
    "geodesic-distance": {"solver": "geodesic", "path": "distance"},
    "geodesic-product": {"solver": "geodesic", "path": "product"},
    "full+refine": {"solver": "full", "refine": True},
    "blockwise-neighbourhoods": {"solver": BlockwiseSolver(cover="neighbourhoods")},
}
LANDMARKS = ("none", "farthest", "rnet", "list")
CELLS = [(covariance, solver, landmarks) for covariance in COVARIANCES for solver in SOLVERS for landmarks in LANDMARKS]


@dataclass(frozen=True)
class GPData:
    "Training and held-out rows of GP observations of a known 2-D latent."
    X_train: np.ndarray
    X_test: np.ndarray
    Z_train: np.ndarray
    Z_test: np.ndarray
    F_train: np.ndarray  # the noise-free signal behind X_train
    seed: int


def make_data(n_train: int, n_test: int, n_features: int, seed: int) -> GPData:
    "Draw train and test rows together from one GP (one latent trajectory), then hold out n_test rows at random."
    Z = ou_latent(n_train + n_test, 2, random_state=seed)
    X = gp_observations(Z, n_features, random_state=seed)
    F = gp_observations(Z, n_features, noise=0.0, random_state=seed)  # the same draw: the noise is drawn after it
    test = np.sort(np.random.default_rng(seed).choice(n_train + n_test, n_test, replace=False))
    train = np.setdiff1d(np.arange(n_train + n_test), test)
    return GPData(X[train], X[test], Z[train], Z[test], F[train], seed)


def estimator(cell, data: GPData) -> IKD:
    "The unfitted IKD of a cell; landmark rules fit T/2 landmarks, the list covers every training row, shuffled."
    covariance, solver, landmarks = cell
    params = {key: clone(value) if hasattr(value, "get_params") else value for key, value in SOLVERS[solver].items()}
    params.update(covariance=covariance, random_state=0)
    n = len(data.X_train)
    if landmarks in ("farthest", "rnet"): params.update(n_landmarks=n // 2, landmarks=landmarks)
    elif landmarks == "list": params.update(landmarks=np.random.default_rng(data.seed + 1).permutation(n))
    return IKD(2, **params)


def heldout_r2(train_embedding, Z_train, test_embedding, Z_test) -> float:
    "R^2 of the test embedding against Z_test under the least-squares affine map fitted on the training points."
    design = np.hstack([train_embedding, np.ones((len(train_embedding), 1))])
    coef, *_ = np.linalg.lstsq(design, Z_train, rcond=None)
    predicted = np.hstack([test_embedding, np.ones((len(test_embedding), 1))]) @ coef
    return float(r2_score(Z_test, predicted, multioutput="uniform_average"))


def evaluate(cell, data: GPData) -> dict:
    "Fit, held-out and decode scores of one cell; `error` holds the exception's text if a step raised."
    result = {"covariance": cell[0], "solver": cell[1], "landmarks": cell[2],
              "fit_r2": np.nan, "heldout_r2": np.nan, "decode_error": np.nan, "seconds": np.nan, "error": ""}
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the full solver's weak-covariance warning; the scores say what matters
            model = estimator(cell, data).fit(data.X_train)
            embedding = model.embedding_
            result["fit_r2"] = affine_r2(embedding, data.Z_train)
            result["heldout_r2"] = heldout_r2(embedding, data.Z_train, model.transform(data.X_test), data.Z_test)
            decoded = model.inverse_transform(embedding)
        F = data.F_train
        result["decode_error"] = float(np.linalg.norm(decoded - F) / np.linalg.norm(F - F.mean(axis=0)))
    except Exception as error:  # noqa: BLE001 -- a cell that raises is a result, reported in the table
        result["error"] = f"{type(error).__name__}: {error}"
    result["seconds"] = time.perf_counter() - start
    return result


def failures(result: dict) -> list:
    "What a cell misses of `THRESHOLDS` (empty: it passes). NaN (a step that raised or returned NaN) misses."
    missed = [f"raised {result['error']}"] if result["error"] else []
    for key in ("fit_r2", "heldout_r2"):
        if not result[key] >= THRESHOLDS[key]: missed.append(f"{key} {result[key]:.3f} < {THRESHOLDS[key]}")
    if not result["decode_error"] <= THRESHOLDS["decode_error"]:
        missed.append(f"decode_error {result['decode_error']:.3f} > {THRESHOLDS['decode_error']}")
    return missed


def run_grid(n_train: int, n_test: int, n_features: int, seed: int, cells=CELLS) -> list:
    "Evaluate every cell on one data set."
    data = make_data(n_train, n_test, n_features, seed)
    return [evaluate(cell, data) for cell in cells]


def format_table(results: list, title: str) -> str:
    lines = [title, f"thresholds: fit R^2 >= {THRESHOLDS['fit_r2']}, held-out R^2 >= {THRESHOLDS['heldout_r2']}, "
                    f"decode error <= {THRESHOLDS['decode_error']}", "",
             f"{'covariance':<12}{'solver':<26}{'landmarks':<10}{'fit R2':>8}{'held-out':>10}{'decode':>8}{'s':>7}  verdict"]
    for r in results:
        missed = failures(r)
        verdict = "ok" if not missed else "FAIL: " + "; ".join(m[:100] for m in missed)
        lines.append(f"{r['covariance']:<12}{r['solver']:<26}{r['landmarks']:<10}{r['fit_r2']:>8.3f}{r['heldout_r2']:>10.3f}"
                     f"{r['decode_error']:>8.3f}{r['seconds']:>7.2f}  {verdict}")
    failed = sum(bool(failures(r)) for r in results)
    lines += ["", f"{len(results) - failed} of {len(results)} cells pass, {failed} fail"]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-train", type=int, default=400)
    parser.add_argument("--n-test", type=int, default=100)
    parser.add_argument("--n-features", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--output", type=Path, default=Path(__file__).resolve().parent / "results" / "known_answers.txt")
    args = parser.parse_args()
    start = time.perf_counter()
    results = run_grid(args.n_train, args.n_test, args.n_features, args.seed)
    table = format_table(results, f"Known-answer grid: T = {args.n_train} fitted + {args.n_test} held out, N = "
                                  f"{args.n_features}, 2-D OU latent, seed {args.seed} ({time.perf_counter() - start:.0f} s)")
    print(table)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(table + "\n")


if __name__ == "__main__":
    main()
