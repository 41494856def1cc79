"""The probe list of issue 17: inputs that gave a silent wrong answer, a crash or a cliff, and what each must give instead.

    python scripts/reliability_probes.py            # the ikd on sys.path; prints one line per probe and the count
    PYTHONPATH=/tmp/before python scripts/reliability_probes.py   # an older checkout (a `git worktree`), for before/after

A probe passes when it gives what is expected: a correct result (checked by a predicate), a clear `ValueError` or
`TypeError` whose message contains the expected words, or a warning that names the problem. Anything else (another
exception, a wrong result, a result without the warning) is counted as going wrong. `tests/test_bad_input.py` holds one
test per cause; this script is the before/after count.
"""
from __future__ import annotations

import pickle
import sys
import time
import tracemalloc
import warnings

import numpy as np
from scipy import sparse
from scipy.spatial import procrustes
from scipy.spatial.distance import cdist, pdist
from sklearn.datasets import load_digits, make_blobs

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
