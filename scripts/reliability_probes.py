"""The probe list of issues 17, 33 and 44: inputs that gave a silent wrong answer, a crash or a cliff, and what each must give instead.

    python scripts/reliability_probes.py            # the ikd on sys.path; prints one line per probe and the count
    PYTHONPATH=/tmp/before python scripts/reliability_probes.py   # an older checkout (a `git worktree`), for before/after

A probe passes when it gives what is expected: a correct result (checked by a predicate), a clear `ValueError` or
`TypeError` whose message contains the expected words, or a warning that names the problem. Anything else (another
exception, a wrong result, a result without the warning) is counted as going wrong. `tests/test_bad_input.py` holds one
test per cause; this script is the before/after count.
"""
from __future__ import annotations

import functools
import pickle
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path
from unittest import mock

import numpy as np
from scipy import sparse
from scipy.spatial import procrustes
from scipy.spatial.distance import cdist, pdist
from sklearn.datasets import load_digits, make_blobs, make_swiss_roll
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning

from ikd import IKD
from ikd.covariance import sample_covariance
from ikd.datasets import gp_observations, ou_latent
import ikd.geodesic

if hasattr(ikd.geodesic, "doubling_dimension"):  # a checkout from before the dimension estimators had their own module
    from ikd.geodesic import doubling_dimension, intrinsic_dimension
else:
    from ikd.dimension import doubling_dimension, intrinsic_dimension
from ikd.kernels import get_kernel
from ikd.metrics import affine_r2, knn_accuracy
from ikd.lvm import TractableLVM
import ikd.dimension

RNG = np.random.default_rng(0)
GP = gp_observations(ou_latent(300, 2, random_state=5), 60, lengthscale=3.0, noise=0.05, random_state=5)
NOISE = RNG.uniform(size=(300, 5))
DIGITS, DIGIT_LABELS = load_digits(return_X_y=True)
BLOBS, BLOB_LABELS = make_blobs(1000, n_features=20, centers=10, random_state=0)
CORRELATIONS = sample_covariance(GP)


LATENT2 = ou_latent(600, 2, random_state=7)
GP2 = gp_observations(LATENT2, 300, random_state=7)[:400]
LATENT2 = LATENT2[:400]
BINARY_DIGITS = (DIGITS[:600] > 8).astype(float)


def landmark_list_gap(indices):
    model = quiet(lambda: IKD(landmarks=indices).fit(GP))
    return np.abs(model.transform(GP) - model.embedding_).max() / np.abs(model.embedding_).max()


def held_out_r2(**params):
    Z = ou_latent(600, 2, random_state=7)
    X = gp_observations(Z, 300, random_state=7)
    model = quiet(lambda: IKD(**params).fit(X[:400]))
    return affine_r2(model.transform(X[400:]), Z[400:])


def round_trip_error(**params):
    model = quiet(lambda: IKD(**params).fit(GP2))
    return np.linalg.norm(model.inverse_transform(model.embedding_) - GP2) / np.linalg.norm(GP2)


def full_solver_nudge():
    Z = ou_latent(1000, 3, random_state=0)
    X = gp_observations(Z, 50, lengthscale=3.0, noise=0.05, random_state=0)
    nudged = X + 2e-6 * np.random.default_rng(5).standard_normal(X.shape)
    first, second = (affine_r2(quiet(lambda: IKD(3, solver="full", refine=True).fit_transform(data)), Z) for data in (X, nudged))
    return abs(first - second)


def sparse_score_peak():
    X = sparse.random(300, 300_000, density=60_000 / (300 * 300_000), random_state=0, format="csr")
    X.data = np.random.default_rng(0).normal(size=X.nnz) ** 2 + 0.1
    model = quiet(lambda: IKD(2).fit(X))
    tracemalloc.start()
    model.score(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6


def order_free_copies():
    "Largest difference between the fit of GP2 and the fit of GP2 stacked on itself (first half)."
    once = quiet(lambda: IKD().fit_transform(GP2))
    twice = quiet(lambda: IKD().fit_transform(np.r_[GP2, GP2]))
    return max(np.abs(twice[:len(GP2)] - once).max(), np.abs(twice[len(GP2):] - once).max()) / np.abs(once).max()


def one_dimensional_gap():
    "R^2 of the default (auto) fit below that of distance paths on a noisy 1-D latent at M = 1."
    Z = ou_latent(500, 1, random_state=3)
    X = gp_observations(Z, 200, lengthscale=3.0, noise=0.05, random_state=3)
    return affine_r2(quiet(lambda: IKD(1, path="distance").fit_transform(X)), Z) - affine_r2(quiet(lambda: IKD(1).fit_transform(X)), Z)


def twins_r2(n_neighbors):
    "R^2 of the first copies when every GP2 row is given twice, the second time with its last digits changed."
    twins = GP2 * (1 + 1e-15 * np.random.default_rng(0).standard_normal(GP2.shape))
    return affine_r2(quiet(lambda: IKD(n_neighbors=n_neighbors).fit_transform(np.r_[GP2, twins]))[:len(GP2)], LATENT2)


def precomputed_copies_gap():
    "Procrustes disparity between a precomputed fit of rows with copies and the fit of the rows themselves."
    X = np.r_[GP2[:300], GP2[:50]]
    return procrustes(quiet(lambda: IKD(covariance="precomputed").fit_transform(sample_covariance(X))),
                      quiet(lambda: IKD().fit_transform(X)))[2]


def landmark_settings_flips(rule):
    "Poisson counts (8 seeds): how often a landmark fit's settings or map change when the rows are permuted."
    flips = 0
    for seed in range(8):
        X = np.random.default_rng(seed).poisson(1.0, size=(600, 40)).astype(float)
        order = np.random.default_rng(100 + seed).permutation(len(X))
        first, second = (quiet(lambda data=data: IKD(n_landmarks=150, landmarks=rule).fit(data)) for data in (X, X[order]))
        flips += (first.settings_.describe() != second.settings_.describe()
                  or procrustes(first.embedding_, second.embedding_[np.argsort(order)])[2] > 1e-12)
    return flips


def poisson_m_hat_change():
    "m-hat of the same Poisson covariance computed from rows in another order."
    from ikd.covariance import covariance_from_rows, covariance_rows
    rows = covariance_rows(np.random.default_rng(5).poisson(1.0, size=(150, 40)).astype(float))
    order = np.random.default_rng(0).permutation(150)
    estimate = lambda R: intrinsic_dimension(covariance_from_rows(R, "correlation"), get_kernel("squared_exponential"), n_features=40)
    return abs(estimate(rows) - estimate(rows[order]))


def anti_correlated_groups():
    "Two groups whose every cross correlation is negative."
    rng = np.random.default_rng(0)
    pattern = np.r_[np.ones(20), -np.ones(20)]
    return np.r_[rng.normal(size=(50, 40)) + 3 * pattern, rng.normal(size=(50, 40)) - 3 * pattern]


def tied_counts_m_hat_change():
    "m-hat of counts whose strongest correlation several pairs share, from the same rows in another order."
    rng = np.random.default_rng(609)
    counts = rng.poisson(0.3 * np.exp(np.sin(ou_latent(200, 1, random_state=9) @ rng.standard_normal((1, 6)))))
    counts = counts[np.ptp(counts, axis=1) > 0].astype(float)
    order = np.random.default_rng(1).permutation(len(counts))
    se = get_kernel("squared_exponential")
    return abs(intrinsic_dimension(sample_covariance(counts), se) - intrinsic_dimension(sample_covariance(counts[order]), se))


def lattice_readings_spread():
    "m-hat of an exact 2-D grid's kernel matrix, shifted so that only its rounding changes: largest minus smallest."
    import itertools
    se = get_kernel("squared_exponential")
    grid = np.array(list(itertools.product(np.arange(15.0), np.arange(15.0)))) * 0.5
    readings = [intrinsic_dimension(se.covariance(grid + shift), se) for shift in (0.0, 0.1, 1 / 3)]
    return max(readings) - min(readings)


def asymmetric(S):
    S = S.copy()
    S[0, 1] += 0.3
    return S


def quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def order_disparity(make_model, X):
    "Procrustes disparity between the embedding of X and that of X with its rows permuted (put back in order)."
    order = np.random.default_rng(1).permutation(len(X))
    U = quiet(lambda: make_model().fit_transform(X))
    U_permuted = np.empty_like(U)
    U_permuted[order] = quiet(lambda: make_model().fit_transform(X[order]))
    return procrustes(U, U_permuted)[2]


def transform_gap(covariance, solver):
    X = GP * np.random.default_rng(2).uniform(0.5, 2.0, (len(GP), 1))
    if covariance == "precomputed": X = sample_covariance(X)
    params = {"threshold": 0.5} if solver == "blockwise" else {}
    model = IKD(solver=solver, covariance=covariance, refine=False, **params)
    quiet(lambda: model.fit(X))
    return np.abs(model.transform(X) - model.embedding_).max() / np.abs(model.embedding_).max()


def spread_ratio(U):
    "Largest over median distance from the centre: huge when a few points dominate the embedding."
    radius = np.linalg.norm(U - np.median(U, axis=0), axis=1)
    return radius.max() / max(np.median(radius), 1e-300)


def blockwise_cover(cover):
    try:
        from ikd.blockwise import BlockwiseSolver
        return BlockwiseSolver(cover=cover)
    except ImportError:  # before the solver objects
        return "blockwise"


def error(*words):
    return ("error", words)


def result(predicate):
    return ("result", predicate)


def warned(*words):
    return ("warning", words)


PROBES = [
    # 1. blockwise at realistic sizes: right, or refused
    ("blockwise digits: 5-NN >= 0.85 or refused", lambda: knn_accuracy(IKD(solver="blockwise").fit_transform(DIGITS), DIGIT_LABELS),
     ("result-or-error", (lambda accuracy: accuracy >= 0.85, ("geodesic",)))),
    ("blockwise digits row order (disparity < 1e-6) or refused", lambda: order_disparity(lambda: IKD(solver="blockwise"), DIGITS),
     ("result-or-error", (lambda disparity: disparity < 1e-6, ("geodesic",)))),
    ("blockwise neighbourhoods digits row order", lambda: order_disparity(lambda: IKD(solver=blockwise_cover("neighbourhoods")), DIGITS),
     result(lambda disparity: disparity < 1e-6)),
    ("blockwise 10 blobs laid apart (5-NN > 0.95)", lambda: knn_accuracy(IKD(solver="blockwise").fit_transform(BLOBS), BLOB_LABELS),
     result(lambda accuracy: accuracy > 0.95)),
    ("blockwise GP row order", lambda: order_disparity(lambda: IKD(solver="blockwise", threshold=0.5), GP),
     result(lambda disparity: disparity < 1e-6)),
    # 2. full solver: row order, no positive pair, anti-correlated rows
    ("full GP row order", lambda: order_disparity(lambda: IKD(solver="full"), GP), result(lambda d: d < 1e-6)),
    ("full uniform-noise row order", lambda: order_disparity(lambda: IKD(solver="full"), NOISE), result(lambda d: d < 1e-6)),
    ("full min_mean uniform-noise row order", lambda: order_disparity(lambda: IKD(solver="full", reference="min_mean"), NOISE),
     result(lambda d: d < 1e-6)),
    ("full no positive covariance", lambda: IKD(solver="full").fit_transform(np.eye(50)), error("positive covariance")),
    ("geodesic no positive covariance", lambda: IKD().fit_transform(np.eye(50)), error("positive covariance")),
    ("full x and -x apart", lambda: IKD(solver="full").fit_transform(np.r_[GP[:100], -GP[:100]]),
     result(lambda U: np.linalg.norm(U[:100] - U[100:], axis=1).min() > 0.1 * np.median(pdist(U)))),
    ("geodesic x and -x apart", lambda: IKD().fit_transform(np.r_[GP[:100], -GP[:100]]),
     result(lambda U: np.linalg.norm(U[:100] - U[100:], axis=1).min() > 0.1 * np.median(pdist(U)))),
    # 3. degenerate spectra, overflow
    ("identity 200 x 200", lambda: IKD().fit(np.eye(200)), error("positive covariance")),
    ("identity full", lambda: IKD(solver="full").fit(np.eye(200)), error("positive covariance")),
    ("one-hot rows (copies merged: no positive pair)", lambda: IKD().fit_transform(np.eye(10)[RNG.integers(0, 10, 300)]),
     error("positive covariance")),
    ("X * 1e154", lambda: IKD().fit_transform(GP * 1e154),
     result(lambda U: np.allclose(U, quiet(lambda: IKD().fit_transform(GP)), atol=1e-6))),
    ("X * 1e300", lambda: IKD().fit_transform(GP * 1e300),
     result(lambda U: np.allclose(U, quiet(lambda: IKD().fit_transform(GP)), atol=1e-6))),
    ("X * 1e160 with covariances", lambda: IKD(covariance="covariance").fit_transform(GP * 1e160), error("flow")),
    # 4. transform of the training rows
    *[(f"transform(X_train) {covariance} {solver}", (lambda c=covariance, s=solver: transform_gap(c, s)),
       result(lambda gap: gap < 1e-8))
      for covariance in ("correlation", "covariance", "precomputed") for solver in ("full", "geodesic", "blockwise")],
    # 5. constancy on each row's scale
    ("X * 1e-13", lambda: IKD().fit_transform(GP * 1e-13),
     result(lambda U: np.allclose(U, quiet(lambda: IKD().fit_transform(GP)), atol=1e-6))),
    ("X * 1e-300", lambda: IKD().fit_transform(GP * 1e-300),
     result(lambda U: np.allclose(U, quiet(lambda: IKD().fit_transform(GP)), atol=1e-6))),
    ("a constant row", lambda: IKD().fit(np.vstack([GP, np.full(GP.shape[1], 3.0)])), error("constant")),
    # 6. kernels whose inverse cannot be used, heavy tails
    ("full rational quadratic digits: no point 100x the median", lambda: spread_ratio(quiet(lambda: IKD(solver="full",
     kernel="rational_quadratic").fit_transform(DIGITS))), result(lambda ratio: ratio < 100)),
    *[(f"kernel {kernel} {params}", (lambda k=kernel, p=params: IKD(solver="full", kernel=k, kernel_params=p).fit_transform(GP)),
       error(next(iter(params))))
      for kernel, params in (("rational_quadratic", {"alpha": 1e-3}), ("rational_quadratic", {"alpha": 1e-4}),
                             ("gamma_exponential", {"gamma": 1e-6}), ("gamma_exponential", {"gamma": 0.01}),
                             ("matern", {"nu": 200}), ("matern", {"nu": 1000}), ("matern", {"nu": 1e-3}))],
    ("kernel matern nu 20 works", lambda: IKD(kernel="matern", kernel_params={"nu": 20}).fit_transform(GP),
     result(lambda U: np.isfinite(U).all() and np.std(U) > 0.1)),
    # 7. precomputed input, parameters
    ("precomputed zero diagonal", lambda: IKD(covariance="precomputed").fit(CORRELATIONS - np.eye(len(CORRELATIONS))),
     error("diagonal")),
    ("precomputed negative diagonal", lambda: IKD(covariance="precomputed").fit(CORRELATIONS - 2 * np.eye(len(CORRELATIONS))),
     error("diagonal")),
    ("precomputed entry above the diagonal's scale",
     lambda: IKD(covariance="precomputed").fit(np.where(np.eye(300, dtype=bool), 1.0, np.clip(1.5 * CORRELATIONS, -1.5, 1.5))),
     error("Cauchy-Schwarz")),
    ("precomputed distance matrix", lambda: IKD(covariance="precomputed").fit(cdist(GP, GP)), error("distance")),
    ("kernel_params variance", lambda: IKD(kernel_params={"variance": 5}).fit(GP), error("variance")),
    ("random_state 'abc' at T <= 200", lambda: IKD(random_state="abc").fit(GP[:150]), error("random_state")),
    ("n_neighbors=True", lambda: IKD(n_neighbors=True).fit(GP), error("n_neighbors")),
    ("n_components=True", lambda: IKD(n_components=True).fit(GP), error("n_components")),
    ("n_landmarks=True", lambda: IKD(n_landmarks=True).fit(GP), error("n_landmarks")),
    # issue 33: the estimator's core (landmark lists, covariance option, ties, full solver, decoder, dimensions)
    ("landmark list reversed: transform(X) = embedding_", lambda: landmark_list_gap(np.arange(len(GP))[::-1]),
     result(lambda gap: gap < 1e-4)),
    ("landmark list shuffled: R^2 as a plain fit", lambda: affine_r2(quiet(lambda: IKD(landmarks=np.random.default_rng(0)
     .permutation(len(GP2))).fit_transform(GP2)), LATENT2), result(lambda r2: r2 > 0.99)),
    *[(f"covariance='covariance' {name}: fit R^2", (lambda p=params: affine_r2(quiet(lambda: IKD(covariance="covariance", **p)
       .fit_transform(GP2)), LATENT2)), result(lambda r2: r2 > 0.98))
      for name, params in (("geodesic", {}), ("threshold 0.5", {"threshold": 0.5}), ("150 landmarks", {"n_landmarks": 150}),
                           ("full refined", {"solver": "full", "refine": True}))],
    ("covariance='covariance' held-out transform R^2", lambda: held_out_r2(covariance="covariance"),
     result(lambda r2: r2 > 0.98)),
    ("covariance='covariance' decoder round trip", lambda: round_trip_error(covariance="covariance"),
     result(lambda error: error < 0.1)),
    *[(f"binary digits row order, refine={refine}", (lambda r=refine: order_disparity(lambda: IKD(refine=r), BINARY_DIGITS)),
       result(lambda d: d < 1e-10)) for refine in (False, True)],
    ("binary digits sparse = dense", lambda: procrustes(quiet(lambda: IKD(refine=True).fit_transform(BINARY_DIGITS)),
     quiet(lambda: IKD(refine=True).fit_transform(sparse.csr_matrix(BINARY_DIGITS))))[2], result(lambda d: d < 1e-10)),
    ("full solver R^2 under a 2e-6 nudge of X", lambda: full_solver_nudge(), result(lambda change: change < 1e-5)),
    ("sparse 300 x 300 000 score peak memory (MB)", lambda: sparse_score_peak(), result(lambda mb: mb < 150)),
    ("decoder of X * 1e306 is finite", lambda: IKD().fit(GP * 1e306).inverse_transform(np.zeros((2, 2))),
     result(lambda rows: np.isfinite(rows).all())),
    *[(f"doubling_dimension {name}", (lambda S=S: doubling_dimension(S, get_kernel("squared_exponential"))), error(words))
      for name, S, words in (("identity", np.eye(200), "covaries"), ("non-square", np.ones((200, 100)), "square"),
                             ("NaN", np.full((50, 50), np.nan), "NaN"))],
    ("noisy 1-D latent: auto path as good as distance paths", lambda: one_dimensional_gap(),
     result(lambda gap: gap < 0.01)),
    ("full solver, every distance 0", lambda: IKD(solver="full").fit(np.r_[np.linspace(1, 7, 30)[:, None] * NOISE[0],
     -np.linspace(1, 7, 30)[:, None] * NOISE[0]]), error("every estimated distance is 0", "distinct rows")),
    ("geodesic fit of every row twice = fit of the rows", lambda: order_free_copies(), result(lambda gap: gap < 1e-12)),
    # issue 33, found by the suites and reviews: copies up to rounding, order-free samples, rounding in m-hat
    *[(f"every row twice up to rounding, {k}-NN graph: R^2", (lambda k=k: twins_r2(k)), result(lambda r2: r2 > 0.99))
      for k in (7, 10)],
    ("precomputed covariance with repeated points = fit of its rows", lambda: precomputed_copies_gap(),
     result(lambda disparity: disparity < 1e-12)),
    *[(f"landmark fit ({rule}) of Poisson counts: row order changes nothing", (lambda r=rule: landmark_settings_flips(r)),
       result(lambda flips: flips == 0)) for rule in ("farthest", "random")],
    ("m-hat of Poisson counts: row order of the product", lambda: poisson_m_hat_change(), result(lambda change: change < 1e-9)),
    *[(f"{name} of an asymmetric matrix", (lambda f=f: f(asymmetric(CORRELATIONS), get_kernel("squared_exponential"))),
       error("symmetric")) for name, f in (("intrinsic_dimension", intrinsic_dimension), ("doubling_dimension", doubling_dimension))],
    ("rational quadratic, groups with no positive covariance between them", lambda: IKD(kernel="rational_quadratic")
     .fit_transform(anti_correlated_groups()), warned("arbitrary")),
    ("random landmarks of rows given twice up to rounding: 40 distinct", lambda: len(np.unique(quiet(lambda: IKD(
     landmarks="random", n_landmarks=40).fit(np.r_[GP[:100], GP[:100] * (1 + 1e-15 * RNG.standard_normal((100, GP.shape[1])))]))
     .landmark_indices_ % 100)), result(lambda distinct: distinct == 40)),
    ("m-hat of tied counts: row order of the product", lambda: tied_counts_m_hat_change(), result(lambda change: change < 1e-9)),
    ("exact lattice: m-hat independent of rounding", lambda: lattice_readings_spread(), result(lambda spread: spread < 1e-6)),
    ("precomputed covariance * 1e-200 accepted", lambda: quiet(lambda: IKD(covariance="precomputed").fit_transform(CORRELATIONS * 1e-200)),
     result(lambda U: np.allclose(U, quiet(lambda: IKD(covariance="precomputed").fit_transform(CORRELATIONS)), atol=1e-6))),
    ("landmarks given with copies keep their order", lambda: quiet(lambda: IKD(landmarks=[150, 3, 120, 40, 7, 60, 80, 99, 10, 20, 30])
     .fit(np.r_[GP[:100], GP[:100]])).landmark_indices_.tolist(), result(lambda kept: kept == [50, 3, 20, 40, 7, 60, 80, 99, 10, 30])),
    # issue 33: landmarks, SNE, CLI, plot
    ("gonzalez on 20 equal rows, 3 centres asked", lambda: __import__("ikd.landmarks", fromlist=["gonzalez"]).gonzalez(np.zeros((20, 3)), n_centres=3),
     warned("fewer distinct rows")),
    ("IKD n_landmarks=20 on 10 distinct rows: each once", lambda: quiet(lambda: IKD(n_landmarks=20).fit(np.tile(GP[:10], (4, 1)))).landmark_indices_,
     result(lambda indices: len(np.unique(indices % 10)) == len(indices) == 10)),
    ("SNE X * 1e160", lambda: __import__("ikd.sne", fromlist=["SNE"]).SNE(random_state=0, max_iter=100).fit_transform(DIGITS[:150] * 1e160),
     result(lambda U: np.allclose(U, __import__("ikd.sne", fromlist=["SNE"]).SNE(random_state=0, max_iter=100).fit_transform(DIGITS[:150]), atol=1e-6))),
    ("SNE learning_rate=1e6", lambda: quiet(lambda: __import__("ikd.sne", fromlist=["SNE"]).SNE(learning_rate=1e6, max_iter=100).fit_transform(DIGITS[:150])),
     error("learning_rate")),
    ("SNE n_components=True", lambda: __import__("ikd.sne", fromlist=["SNE"]).SNE(n_components=True, max_iter=10).fit(DIGITS[:150]), error("n_components")),
    ("CLI --save-embedding over its input: status 2, input kept",
     lambda: (lambda tmp: (np.save(f"{tmp.name}/d.npy", GP[:40]),
                           __import__("subprocess").run([sys.executable, "-m", "ikd", "d.npy", "--save-embedding", "d.npy", "--no-baseline"],
                                                        cwd=tmp.name, capture_output=True, text=True),
                           np.array_equal(np.load(f"{tmp.name}/d.npy"), GP[:40]))[1:])(__import__("tempfile").TemporaryDirectory()),
     result(lambda outcome: outcome[0].returncode == 2 and len(outcome[0].stderr.strip().splitlines()) == 1 and outcome[1])),
    ("CLI 6 labelled rows in classes of 5 and 1: status 2, one line",
     lambda: (lambda tmp: (np.save(f"{tmp.name}/d.npy", GP[:6]), np.save(f"{tmp.name}/y.npy", np.array([0, 0, 0, 0, 0, 1])),
                           __import__("subprocess").run([sys.executable, "-m", "ikd", "d.npy", "--labels", "y.npy", "--no-baseline"],
                                                        cwd=tmp.name, capture_output=True, text=True))[-1])(__import__("tempfile").TemporaryDirectory()),
     result(lambda done: done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and "class" in done.stderr)),
    ("plot: 60 points with 5 NaN labels all drawn",
     lambda: sum(len(c.get_offsets()) for c in __import__("ikd.plot", fromlist=["points"]).points(
         np.random.default_rng(4).normal(size=(60, 2)), np.where(np.arange(60) % 12 == 0, np.nan, np.arange(60) % 3)).collections),
     result(lambda drawn: drawn == 60)),
    ("plot: mixed-type object labels",
     lambda: sum(len(c.get_offsets()) for c in __import__("ikd.plot", fromlist=["points"]).points(
         np.random.default_rng(4).normal(size=(60, 2)), np.array([1, "a", 2.5] * 20, dtype=object)).collections),
     result(lambda drawn: drawn == 60)),
    ("plot: empty embedding", lambda: __import__("ikd.plot", fromlist=["points"]).points(np.empty((0, 2))), error("point")),
    ("plot: landmark model, labels of the wrong length",
     lambda: __import__("ikd.plot", fromlist=["connectivity"]).connectivity(quiet(lambda: IKD(n_landmarks=100).fit(GP)), np.zeros(100)),
     error("labels")),
    # 8. cliffs
    ("dense threshold graph warned", lambda: IKD(threshold=0.05).fit(GP), warned("edges per point")),
    ("digits model pickle < 4 MB", lambda: len(pickle.dumps(IKD().fit(DIGITS))), result(lambda size: size < 4e6)),
    ("full refined transform of 2000 rows < 2 s", lambda: timed_transform(), result(lambda seconds: seconds < 2.0)),
]


def timed_transform():
    model = quiet(lambda: IKD(solver="full", refine=True).fit(GP))
    rows = np.tile(GP, (7, 1))[:2000] + np.random.default_rng(3).normal(scale=0.01, size=(2000, GP.shape[1]))
    start = time.perf_counter()
    quiet(lambda: model.transform(rows))
    return time.perf_counter() - start


# ---- Issue 44, items 1, 2, 3 and 9: the full solver's floor, one notion of the same point, TractableLVM's stop ----
def core_full_transform_gap(kernel="rational_quadratic", seed=7, n_points=300, n_features=100, lengthscale=3.0,
                            scale=1.0, covariance="correlation", sparse_rows=False):
    """Item 1: how far `transform` puts the training rows from their own embedding with the full solver (relative to the
    map's extent), on GP data drawn with `kernel`."""
    X = scale * gp_observations(ou_latent(n_points, 2, random_state=seed), n_features, kernel=kernel,
                                lengthscale=lengthscale, random_state=seed)
    data = sample_covariance(X) if covariance == "precomputed" else sparse.csr_matrix(X) if sparse_rows else X
    model = quiet(lambda: IKD(solver="full", kernel=kernel, covariance=covariance).fit(data))
    return np.abs(model.transform(data) - model.embedding_).max() / np.abs(model.embedding_).max()


def core_arc(step, n_points=200, n_features=50, seed=1):
    "Rows on a great circle of the standardised rows, `step` radians apart, and their angles."
    directions = np.c_[np.ones(n_features), np.random.default_rng(seed).normal(size=(n_features, 2))]
    u, v = np.linalg.qr(directions)[0][:, 1:].T  # orthonormal and centred: standardising keeps the arc
    angles = step * np.arange(n_points)
    return np.cos(angles)[:, None] * u + np.sin(angles)[:, None] * v, angles


def core_arc_r2(step, n_points=200, n_features=50, seed=1, form="dense", **params):
    "Item 3: affine R^2 of the angle from a 1-D fit of the arc (a refusal is the bug)."
    X, angles = core_arc(step, n_points, n_features, seed)
    if form == "precomputed": X, params = sample_covariance(X), {**params, "covariance": "precomputed"}
    if form == "sparse": X = sparse.csr_matrix(X)
    return affine_r2(quiet(lambda: IKD(1, **params).fit_transform(X)), angles[:, None])


def core_arc_order_disparity(step=1e-6):
    "Item 3: Procrustes disparity between the arc's fit and the fit of its rows shuffled (put back in order)."
    X, _ = core_arc(step)
    order = np.random.default_rng(0).permutation(len(X))
    U = quiet(lambda: IKD(1).fit_transform(X))
    U_permuted = np.empty_like(U)
    U_permuted[order] = quiet(lambda: IKD(1).fit_transform(X[order]))
    return procrustes(U, U_permuted)[2]


def core_pattern_plus_signal(seed=2, span=30.0, n_features=60):
    "Item 3: R^2 of the position along a line of rows that are a common pattern plus 1e-6 x position x a direction."
    rng = np.random.default_rng(seed)
    pattern, direction = rng.normal(size=(2, n_features))
    direction *= 1e-6 * np.linalg.norm(pattern) / np.linalg.norm(direction)
    position = np.linspace(0, span, 200)
    return affine_r2(quiet(lambda: IKD(1).fit_transform(pattern + position[:, None] * direction)), position[:, None])


def core_ikd_copies(rounding, X=None, **params):
    """Items 2 and 3: (largest distance of a copy from its row, disparity from the fit without copies) for IKD with
    every row given again up to rounding."""
    X = GP2[:300] if X is None else X
    copies = {"exact": X.copy(), "1e-15": X * (1 + 1e-15), "float32": X.astype(np.float32).astype(np.float64)}[rounding]
    plain = quiet(lambda: IKD(**params).fit_transform(X))
    both = quiet(lambda: IKD(**params).fit_transform(np.r_[X, copies]))
    return np.abs(both[len(X):] - both[:len(X)]).max(), procrustes(plain, both[:len(X)])[2]


def core_lvm_copies(rounding, X, labels=None, **params):
    """Item 2: (largest distance of a copy from its row relative to the map's spread, 5-NN of the originals with the
    copies, 5-NN of the originals alone) for TractableLVM with every row given again up to rounding."""
    copies = {"1e-15": X * (1 + 1e-15), "float32": X.astype(np.float32).astype(np.float64)}[rounding]
    plain = quiet(lambda: TractableLVM(random_state=0, **params).fit_transform(X))
    both = quiet(lambda: TractableLVM(random_state=0, **params).fit_transform(np.r_[X, copies]))
    spread = np.sqrt(np.mean(np.sum((both - both.mean(axis=0)) ** 2, axis=1)))
    apart = np.linalg.norm(both[len(X):] - both[:len(X)], axis=1).max() / spread
    if labels is None: return apart, None, None
    return apart, knn_accuracy(both[:len(X)], labels), knn_accuracy(plain, labels)


def core_lvm_convergence_warnings(X, **params):
    "Item 9: how many ConvergenceWarnings one fit gives."
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        TractableLVM(random_state=0, **params).fit(X)
    return sum(issubclass(w.category, ConvergenceWarning) for w in caught)


CORE_ROLL = make_swiss_roll(500, noise=0.05, random_state=1)[0]
CORE_DIGITS = DIGITS[:300] / 7  # not integers: float32 rounding changes them

PROBES_CORE = [
    # item 1: one floor rule for the full solver's fit and its new points
    *[(f"full {kernel} seed {seed}: transform(X_train) = embedding_", (lambda k=kernel, s=seed: core_full_transform_gap(k, s)),
       result(lambda gap: gap < 1e-8))
      for kernel, seed in (("rational_quadratic", 7), ("rational_quadratic", 1), ("squared_exponential", 3))],
    ("full rational quadratic, lengthscale 8: transform(X_train)",
     lambda: core_full_transform_gap(lengthscale=8.0, n_points=150, n_features=60), result(lambda gap: gap < 1e-8)),
    ("full matern, lengthscale 8: transform(X_train)",
     lambda: core_full_transform_gap("matern", 2, 150, 60, lengthscale=8.0), result(lambda gap: gap < 1e-8)),
    ("full gamma exponential, lengthscale 10: transform(X_train)",
     lambda: core_full_transform_gap("gamma_exponential", 4, 150, 60, lengthscale=10.0), result(lambda gap: gap < 1e-8)),
    ("full rational quadratic X * 1e6, covariance='covariance': transform(X_train)",
     lambda: core_full_transform_gap(scale=1e6, covariance="covariance"), result(lambda gap: gap < 1e-8)),
    ("full rational quadratic precomputed: transform(X_train)",
     lambda: core_full_transform_gap(covariance="precomputed"), result(lambda gap: gap < 1e-8)),
    ("full rational quadratic sparse rows: transform(X_train)",
     lambda: core_full_transform_gap(sparse_rows=True), result(lambda gap: gap < 1e-8)),
    # item 3: near copies merged within the radius of a representative, not along chains
    *[(f"arc of 200 rows {step:g} rad apart: fitted (R^2 > 0.95)", (lambda s=step: core_arc_r2(s)),
       result(lambda r2: r2 > 0.95)) for step in (5e-7, 1e-6, 2e-6)],
    ("arc 1e-6 apart, 100 features, seed 5", lambda: core_arc_r2(1e-6, n_features=100, seed=5), result(lambda r2: r2 > 0.95)),
    ("arc 1e-6 apart, 500 rows", lambda: core_arc_r2(1e-6, n_points=500), result(lambda r2: r2 > 0.95)),
    ("arc 1e-6 apart, precomputed covariance", lambda: core_arc_r2(1e-6, form="precomputed"), result(lambda r2: r2 > 0.95)),
    ("arc 1e-6 apart, sparse rows", lambda: core_arc_r2(1e-6, form="sparse"), result(lambda r2: r2 > 0.95)),
    ("arc 1e-6 apart, full solver", lambda: core_arc_r2(1e-6, solver="full"), result(lambda r2: r2 > 0.95)),
    ("arc 1e-6 apart, 100 farthest landmarks", lambda: core_arc_r2(1e-6, n_landmarks=100), result(lambda r2: r2 > 0.95)),
    ("arc 1e-6 apart: row order changes nothing", lambda: core_arc_order_disparity(), result(lambda d: d < 1e-9)),
    *[(f"common pattern + 1e-6 signal (seed {seed}, span {span:g}): fitted", (lambda s=seed, w=span: core_pattern_plus_signal(s, w)),
       result(lambda r2: r2 > 0.95)) for seed, span in ((2, 30.0), (3, 50.0), (4, 100.0))],
    *[(f"IKD: every row again, {rounding}: one point, the plain fit", (lambda r=rounding: core_ikd_copies(r)),
       result(lambda out: out[0] == 0 and out[1] < 1e-12)) for rounding in ("exact", "1e-15", "float32")],
    ("IKD full solver: rows again as float32, the plain fit", lambda: core_ikd_copies("float32", solver="full"),
     result(lambda out: out[0] == 0 and out[1] < 1e-12)),
    ("IKD covariance='covariance': rows again up to 1e-15, the plain fit",
     lambda: core_ikd_copies("1e-15", covariance="covariance"), result(lambda out: out[0] == 0 and out[1] < 1e-12)),
    # item 2: TractableLVM's copies up to rounding are one point
    *[(f"LVM {name}: every row again up to {rounding}, copies on their rows, 5-NN kept",
       (lambda r=rounding, X=X, y=y: core_lvm_copies(r, X, y)),
       result(lambda out: out[0] == 0 and out[1] >= out[2] - 0.02))
      for name, X, y in (("digits / 7", CORE_DIGITS, DIGIT_LABELS[:300]),) for rounding in ("1e-15", "float32")],
    *[(f"LVM swiss roll: every row again up to {rounding}, copies on their rows", (lambda r=rounding: core_lvm_copies(r, CORE_ROLL)),
       result(lambda out: out[0] == 0)) for rounding in ("1e-15", "float32")],
    ("LVM swiss roll * 1e5: rows again as float32, copies on their rows",
     lambda: core_lvm_copies("float32", CORE_ROLL * 1e5, max_iter=50), result(lambda out: out[0] == 0)),
    # item 9: TractableLVM says when it stops at max_iter
    ("LVM digits max_iter=20 warns", lambda: TractableLVM(max_iter=20, random_state=0).fit(CORE_DIGITS), warned("max_iter=20")),
    ("LVM swiss roll max_iter=5 warns", lambda: TractableLVM(max_iter=5, random_state=0).fit(CORE_ROLL), warned("max_iter=5")),
    ("LVM swiss roll max_iter=40, tol=1e-6 warns", lambda: TractableLVM(max_iter=40, tol=1e-6, random_state=0).fit(CORE_ROLL),
     warned("max_iter=40")),
    ("LVM swiss roll converged: no ConvergenceWarning", lambda: core_lvm_convergence_warnings(CORE_ROLL), result(lambda n: n == 0)),
    ("LVM tol=0, max_iter=20: no ConvergenceWarning", lambda: core_lvm_convergence_warnings(CORE_ROLL, max_iter=20, tol=0),
     result(lambda n: n == 0)),
]


# ---- Issue 44, items 5-8: structure_scores' seeding, ties and sizes; embed()'s door ----
@functools.lru_cache(maxsize=None)
def digits_map():
    "400 digits and their 2-D PCA map."
    X = DIGITS[:400].astype(float)
    return X, PCA(2).fit_transform(X), DIGIT_LABELS[:400]


@functools.lru_cache(maxsize=None)
def digit_scores(max_points, seed):
    from ikd.metrics import structure_scores
    X, Z, y = digits_map()
    return structure_scores(X, Z, y, max_points=max_points, random_state=seed)


def moved_scores(change, max_points, seed=0):
    "Largest change of any structure score when X is transformed by `change` (rows permuted with Z and y where asked)."
    from ikd.metrics import structure_scores
    X, Z, y = digits_map()
    rng = np.random.default_rng(seed + 11)
    if change == "rows":
        order = rng.permutation(len(X))
        moved = structure_scores(X[order], Z[order], y[order], max_points=max_points, random_state=seed)
    else:
        data = {"x2": lambda: X * 2.0, "x3": lambda: X * 3.0, "x0.1": lambda: X * 0.1,
                "columns": lambda: X[:, rng.permutation(X.shape[1])],
                "rotated": lambda: X @ np.linalg.qr(rng.normal(size=(64, 64)))[0] + 5.0}[change]()
        moved = structure_scores(data, Z, y, max_points=max_points, random_state=seed)
    given = digit_scores(max_points, seed)
    return max(abs(moved[name] - given[name]) for name in given)


@functools.lru_cache(maxsize=None)
def rotated_integer_scores(data, seed, scale=1.0):
    "structure_scores of integer data against an exact rotation of them (every score should be perfect)."
    from ikd.metrics import structure_scores
    rng = np.random.default_rng(seed)
    X = {"digits": lambda: DIGITS[:400].astype(float) * scale,
         "grid": lambda: rng.integers(0, 5, size=(300, 8)).astype(float) * scale}[data]()
    Q, _ = np.linalg.qr(rng.normal(size=(X.shape[1],) * 2))
    return structure_scores(X, X @ Q, random_state=seed)


def sized_scores(n_points, **params):
    from ikd.metrics import structure_scores
    X = np.random.default_rng(n_points).normal(size=(n_points, 5))
    return structure_scores(X, X[:, :2], **params)


TINY = None


def tiny():
    "40 points, 6 positive features, a third of the entries 0."
    global TINY
    if TINY is None:
        from ikd.datasets import ou_latent, sinusoidal_observations
        X = sinusoidal_observations(ou_latent(40, 2, random_state=2), 6, random_state=2)
        TINY = np.where(X > np.quantile(X, 1 / 3), X - X.min(), 0.0)
    return TINY


QUICK = {"vae": {"epochs": 2}, "gplvm": {"max_iters": 5}, "tsne": {"perplexity": 5, "max_iter": 250},
         "opentsne": {"perplexity": 5, "n_iter": 20}, "umap": {"n_epochs": 10}, "pacmap": {"num_iters": 20},
         "trimap": {"n_iters": 20}, "sne": {"max_iter": 20}, "saul_lvm": {"max_iter": 5}}


def quick_embed(method, X, n_components=2, random_state=0, **options):
    from ikd.baselines import embed
    return quiet(lambda: embed(method, X, n_components, random_state=random_state, **{**QUICK.get(method, {}), **options}))


def sparse_gap(method):
    "Procrustes disparity between a method's map of sparse X and of X.toarray() (a refusal by name is the other good outcome)."
    return procrustes(quick_embed(method, tiny()), quick_embed(method, sparse.csr_matrix(tiny())))[2]


PROBES_SCORES = [
    # 5. structure_scores is keyed by the geometry of X, not its bytes
    *[(f"structure_scores digits {change}, max_points={max_points}, seed {seed}: same scores",
       (lambda c=change, m=max_points, s=seed: moved_scores(c, m, s)), result(lambda gap: gap < 1e-12))
      for change, max_points, seed in (("x2", 150, 0), ("x3", 150, 0), ("x3", None, 0), ("x0.1", 200, 1),
                                       ("columns", 150, 0), ("columns", None, 2), ("rotated", 150, 0), ("rows", 150, 1))],
    # 6. ties: an exact rotation of integer data is perfect
    *[(f"structure_scores {data} x {scale} rotated, seed {seed}: {name} = 1",
       (lambda d=data, s=seed, c=scale, n=name: rotated_integer_scores(d, s, c)[n]), result(lambda score: score >= 1 - 1e-12))
      for data, seed, scale in (("digits", 0, 1.0), ("digits", 3, 3.0), ("grid", 1, 1.0), ("grid", 2, 0.1))
      for name in ("steadiness", "cohesiveness", "triplet_accuracy", "trustworthiness", "spearman_rho")],
    # 7. what ZADU needs, checked first and said in the package's words
    *[(f"structure_scores {n} points, k=10", (lambda n=n: sized_scores(n)), error("2 * n_neighbors"))
      for n in (3, 12, 15, 20)],
    *[(f"structure_scores max_points={m}, k={k}", (lambda m=m, k=k: sized_scores(100, max_points=m, n_neighbors=k)),
       error("max_points must be at least"))
      for m, k in ((12, 10), (20, 10), (9, 5))],
    ("structure_scores n_neighbors=0", lambda: sized_scores(100, n_neighbors=0), error("n_neighbors")),
    ("structure_scores 3 points, k=1 (no walk)", lambda: sized_scores(3, n_neighbors=1), error("steadiness and cohesiveness")),
    # 8. embed(): one check at the door, per method's needs
    *[(f"embed {method} sparse X: its dense map or refused by name", (lambda m=method: sparse_gap(m)),
       ("result-or-error", (lambda gap: gap < 1e-8, ("sparse matrix",))))
      for method in ("pca", "isomap", "lle", "tsne", "opentsne", "pacmap", "ikd", "sne")],
    *[(f"embed {method} n_components=0", (lambda m=method: quick_embed(m, tiny(), 0)), error("n_components"))
      for method in ("opentsne", "pca", "vae", "gplvm")],
    *[(f"embed trimap random_state={name}", (lambda s=seed: quick_embed("trimap", tiny(), random_state=s)), error("random_state"))
      for name, seed in (("True", True), ("RandomState(0)", np.random.RandomState(0)))],
    *[(f"embed {method} random_state=RandomState", (lambda m=method: quick_embed(m, tiny(), random_state=np.random.RandomState(0))),
       error("random_state")) for method in ("pacmap", "vae", "gplvm")],
    ("embed pacmap init * 1e25", lambda: quick_embed("pacmap", tiny(), init=quick_embed("pca", tiny()) * 1e25), error("init")),
    *[(f"embed {method} X * {factor:g}", (lambda m=method, f=factor: quick_embed(m, tiny() * f)), error("X reaches", "X spans"))
      for method, factor in (("pacmap", 1e25), ("umap", 1e25), ("opentsne", 1e30), ("trimap", 1e25), ("pca", 1e300),
                             ("kpca", 1e300), ("tsne", 1e300), ("mds", 1e300), ("pca", 1e-300))],
]


# ---- Issue 44, item 4, and issue 47, item 8: m-hat of 1-D latents, `auto` refinement, one symmetry check ----
def curve_covariance(m, n_points, noise, seed, n_features=200, kernel="squared_exponential"):
    X = gp_observations(ou_latent(n_points, m, random_state=seed), n_features, noise=noise, kernel=kernel, random_state=seed)
    return sample_covariance(X)


def fitted_m_hat(seed, n_points=600, M=2):
    "m-hat as a default fit reads it on the issue's reproducer (and its other seeds)."
    return quiet(lambda: IKD(M).fit(gp_observations(ou_latent(n_points, 1, random_state=seed), 200, random_state=seed))
                 ).settings_.intrinsic_dimension


def read_m_hat(m, n_points, noise, seed, n_features=200, kernel="squared_exponential"):
    return intrinsic_dimension(curve_covariance(m, n_points, noise, seed, n_features, kernel), get_kernel(kernel),
                               n_features=n_features)


def auto_shortfall(seed):
    "Best explicit path x refinement R^2 minus the auto fit's, on ou_latent(500, 1), N = 200, noise 0.05."
    Z = ou_latent(500, 1, random_state=seed)
    X = gp_observations(Z, 200, noise=0.05, random_state=seed)
    auto = affine_r2(quiet(lambda: IKD(1).fit_transform(X)), Z)
    best = max(affine_r2(quiet(lambda: IKD(1, path=p, refine=r).fit_transform(X)), Z)
               for p in ("distance", "product") for r in (False, True))
    return best - auto


def scale_change(scale):
    "m-hat of a noisy curve's covariance against that of the covariance times `scale` (a correlation reading)."
    S = curve_covariance(1, 400, 0.05, 3)
    se = get_kernel("squared_exponential")
    return abs(intrinsic_dimension(S * scale, se, n_features=200) - intrinsic_dimension(S, se, n_features=200))


def symmetry_checks():
    "How many times one call of intrinsic_dimension checks the T x T symmetry."
    if not hasattr(ikd.dimension, "_check_symmetric"): return -1
    S = curve_covariance(1, 300, 0.05, 0)
    with mock.patch.object(ikd.dimension, "_check_symmetric", wraps=ikd.dimension._check_symmetric) as check:
        intrinsic_dimension(S, get_kernel("squared_exponential"), n_features=200)
    return check.call_count


# 0.4: the readings' sd over seeds is at most 0.15 at T >= 200 (benchmarks/results/dimension_known_latents.txt)
near = lambda m, tolerance=0.4: result(lambda reading: abs(reading - m) < tolerance)

PROBES_DIMENSION = [
    *[(f"m-hat of the issue's curve (T = 600, seed {seed}) within 0.4 of 1", lambda seed=seed: fitted_m_hat(seed), near(1))
      for seed in (1, 2, 3)],
    *[(f"m-hat noisy curve T = {T}, noise {noise}, seed {seed} within 0.4 of 1", lambda T=T, noise=noise, seed=seed:
       read_m_hat(1, T, noise, seed), near(1)) for T, noise, seed in ((200, 0.05, 0), (500, 0.1, 1), (1000, 0.05, 2))],
    ("m-hat noisy curve, N = 50 features, within 0.4 of 1", lambda: read_m_hat(1, 500, 0.05, 0, n_features=50), near(1)),
    ("m-hat noisy curve, N = 1000 features, within 0.4 of 1", lambda: read_m_hat(1, 500, 0.05, 1, n_features=1000), near(1)),
    ("m-hat noisy curve, rational quadratic kernel, within 0.4 of 1",
     lambda: read_m_hat(1, 500, 0.05, 2, kernel="rational_quadratic"), near(1)),
    ("m-hat noisy 2-D latent (T = 500) within 0.4 of 2", lambda: read_m_hat(2, 500, 0.1, 3), near(2)),
    ("m-hat noisy 3-D latent (T = 500) within 0.4 of 3", lambda: read_m_hat(3, 500, 0.05, 4), near(3)),
    *[(f"m-hat of a curve's covariance x {scale:g} unchanged", lambda scale=scale: scale_change(scale),
       result(lambda change: change < 1e-9)) for scale in (1e-3, 2.0, 1e3)],
    *[(f"auto on a noisy curve (seed {seed}) within 1e-3 of the best path x refinement", lambda seed=seed:
       auto_shortfall(seed), result(lambda shortfall: shortfall <= 1e-3)) for seed in (4, 5, 6, 7, 8)],
    ("intrinsic_dimension checks symmetry once", symmetry_checks, result(lambda calls: calls == 1)),
    ("intrinsic_dimension floor_shift=-1 refused",
     lambda: intrinsic_dimension(curve_covariance(1, 100, 0.05, 0), get_kernel("squared_exponential"), n_features=200,
                                 floor_shift=-1.0), error("floor_shift")),
]


# ---- Issue 44, items 10 and 11: the command line's byte-order mark and options that do not apply ----
CLI_POINTS = GP[:60, :8]  # 60 points, 8 features
CLI_CLASSES = np.arange(60) % 3


def csv_text(X, labels=None, header=True, label_first=False, line_end="\n"):
    "A CSV file's text: X's rows (exact reprs of the floats), the labels in a column `type`, first or last."
    names = [f"x{k}" for k in range(X.shape[1])]
    rows = [[repr(float(v)) for v in row] for row in X]
    if labels is not None:
        names = ["type", *names] if label_first else [*names, "type"]
        rows = [[str(c), *row] if label_first else [*row, str(c)] for c, row in zip(labels, rows)]
    lines = ([",".join(names)] if header else []) + [",".join(row) for row in rows]
    return line_end.join(lines) + line_end


def cli_run(files, *argv):
    """`python -m ikd argv` in a fresh folder holding `files` (name -> (text, encoding), or name -> array for .npy):
    the finished process, the embedding it saved with `--save-embedding z.csv` (None if none), and the files it wrote."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for file, content in files.items():
            if file.endswith(".npy"): np.save(folder / file, content)
            else: (folder / file).write_bytes(content[0].encode(content[1]))
        done = subprocess.run([sys.executable, "-m", "ikd", *argv], cwd=folder, capture_output=True, text=True, timeout=600)
        saved = np.loadtxt(folder / "z.csv", delimiter=",", skiprows=1, ndmin=2) if (folder / "z.csv").exists() else None
        written = sorted(set(p.name for p in folder.iterdir()) - set(files))
    return done, saved, written


def cli_read_all(done_saved_written, labelled=False):
    "Exit 0, all 60 points embedded (and scored, when labelled)."
    done, saved, _ = done_saved_written
    return (done.returncode == 0 and saved is not None and saved.shape == (60, 2)
            and (not labelled or "5-NN accuracy" in done.stdout))


def cli_refused(*words):
    "Exit 2, one line on stderr naming `words`, nothing written."
    def check(done_saved_written):
        done, _, written = done_saved_written
        return (done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
                and all(word in done.stderr for word in words) and not written)
    return check


def cli_bom_and_plain(**layout):
    "The embeddings saved from the same table written with and without Excel's byte-order mark."
    return [cli_run({"t.csv": (csv_text(CLI_POINTS, **layout), encoding)}, "t.csv", "--no-baseline", "--save-embedding", "z.csv",
                    *(["--label-column", "type"] if layout.get("labels") is not None else []))[1]
            for encoding in ("utf-8-sig", "utf-8")]


SAVE = ("--no-baseline", "--save-embedding", "z.csv")
PROBES_CLI = [
    # issue 44 item 10: Excel's UTF-8 byte-order mark is not data
    ("CLI BOM CSV, no header: 60 of 60 rows",
     lambda: cli_run({"t.csv": (csv_text(CLI_POINTS, header=False), "utf-8-sig")}, "t.csv", *SAVE), result(cli_read_all)),
    ("CLI BOM CSV, no header, CRLF lines: 60 of 60 rows",
     lambda: cli_run({"t.csv": (csv_text(CLI_POINTS, header=False, line_end="\r\n"), "utf-8-sig")}, "t.csv", *SAVE),
     result(cli_read_all)),
    ("CLI BOM CSV, no header, --label-column 8: 60 rows scored",
     lambda: cli_run({"t.csv": (csv_text(CLI_POINTS, CLI_CLASSES, header=False), "utf-8-sig")}, "t.csv", "--label-column", "8", *SAVE),
     result(lambda outcome: cli_read_all(outcome, labelled=True))),
    ("CLI BOM CSV, header, --label-column type (first column)",
     lambda: cli_run({"t.csv": (csv_text(CLI_POINTS, CLI_CLASSES, label_first=True), "utf-8-sig")}, "t.csv", "--label-column", "type", *SAVE),
     result(lambda outcome: cli_read_all(outcome, labelled=True))),
    ("CLI BOM CSV, header, --label-column type (last column)",
     lambda: cli_run({"t.csv": (csv_text(CLI_POINTS, CLI_CLASSES), "utf-8-sig")}, "t.csv", "--label-column", "type", *SAVE),
     result(lambda outcome: cli_read_all(outcome, labelled=True))),
    ("CLI BOM CSV, no header: embedding = that of the plain file",
     lambda: cli_bom_and_plain(header=False),
     result(lambda pair: pair[0] is not None and pair[1] is not None and np.array_equal(pair[0], pair[1]))),
    ("CLI BOM CSV, header and labels first: embedding = that of the plain file",
     lambda: cli_bom_and_plain(labels=CLI_CLASSES, label_first=True),
     result(lambda pair: pair[0] is not None and pair[1] is not None and np.array_equal(pair[0], pair[1]))),
    ("CLI plain CSV, no header, class names first: 60 of 60 rows",  # a first row whose only text is its class is data
     lambda: cli_run({"t.csv": (csv_text(CLI_POINTS, ["ant", "bee", "cat"] * 20, header=False, label_first=True), "utf-8")},
                     "t.csv", "--label-column", "0", *SAVE),
     result(lambda outcome: cli_read_all(outcome, labelled=True))),
    ("CLI UTF-16 CSV: status 2, one line naming the file",
     lambda: cli_run({"t.csv": (csv_text(CLI_POINTS), "utf-16")}, "t.csv", *SAVE), result(cli_refused("t.csv"))),
    # issue 44 item 11: an option that does not apply to the input is refused, not ignored
    ("CLI --labels y.npy with a CSV data file: status 2",
     lambda: cli_run({"t.csv": (csv_text(CLI_POINTS), "utf-8"), "y.npy": CLI_CLASSES}, "t.csv", "--labels", "y.npy", *SAVE),
     result(cli_refused("--labels", "--label-column"))),
    ("CLI --label-column with an NPY data file: status 2",
     lambda: cli_run({"d.npy": CLI_POINTS}, "d.npy", "--label-column", "type", *SAVE), result(cli_refused("--label-column", "--labels"))),
    ("CLI --label-column 0 with an NPY data file: status 2",
     lambda: cli_run({"d.npy": CLI_POINTS}, "d.npy", "--label-column", "0", *SAVE), result(cli_refused("--label-column"))),
    ("CLI --labels without a data file (digits): status 2",
     lambda: cli_run({"y.npy": CLI_CLASSES}, "--labels", "y.npy", *SAVE), result(cli_refused("--labels"))),
    ("CLI --label-column without a data file (digits): status 2",
     lambda: cli_run({}, "--label-column", "type", *SAVE), result(cli_refused("--label-column"))),
    ("CLI --labels y.csv (not .npy) with an NPY data file: status 2 naming .npy",
     lambda: cli_run({"d.npy": CLI_POINTS, "y.csv": ("\n".join(map(str, CLI_CLASSES)) + "\n", "utf-8")}, "d.npy", "--labels", "y.csv", *SAVE),
     result(cli_refused("--labels", ".npy"))),
    ("CLI --labels y.npy with an NPY data file: still scored",
     lambda: cli_run({"d.npy": CLI_POINTS, "y.npy": CLI_CLASSES}, "d.npy", "--labels", "y.npy", *SAVE),
     result(lambda outcome: cli_read_all(outcome, labelled=True))),
]


PROBES += [*PROBES_CORE, *PROBES_SCORES, *PROBES_DIMENSION, *PROBES_CLI]


def outcome(probe, expected):
    "True when the probe gives what is expected, and a short description of what it gave."
    kind, detail = expected
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try: value = probe()
        except (ValueError, TypeError) as problem:
            words = {"error": detail, "warning": detail, "result-or-error": detail[1] if kind == "result-or-error" else ()}.get(kind, ())
            clear = any(word.lower() in str(problem).lower() for word in words)
            return clear, f"{type(problem).__name__}: {str(problem)[:90]}"
        except Exception as problem:  # noqa: BLE001 - a crash is an outcome to count
            return False, f"crash {type(problem).__name__}: {str(problem)[:90]}"
    messages = " ".join(str(w.message) for w in caught)
    if kind == "error": return False, f"no error (returned {type(value).__name__})"
    if kind == "warning": return any(word in messages for word in detail), "warned" if messages else "no warning"
    predicate = detail[0] if kind == "result-or-error" else detail
    good = bool(predicate(value))
    return good, f"result {value:.3g}" if np.isscalar(value) else ("correct result" if good else "wrong result")


def main():
    failures = 0
    for name, probe, expected in PROBES:
        start = time.perf_counter()
        good, what = outcome(probe, expected)
        failures += not good
        print(f"{'ok   ' if good else 'WRONG'} {name:55s} {what}  ({time.perf_counter() - start:.1f} s)", flush=True)
    print(f"\n{len(PROBES) - failures} of {len(PROBES)} probes behave; {failures} go wrong")
    return failures


if __name__ == "__main__":
    sys.exit(1 if main() else 0)
