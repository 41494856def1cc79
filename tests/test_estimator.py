"""The IKD estimator against scikit-learn's conventions, its bad-input errors, determinism and regressions."""
import logging
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits
from sklearn.utils.estimator_checks import check_estimator

from ikd import IKD
from ikd.blockwise import BlockwiseSolver
from ikd.datasets import gp_observations, medium_latent, ou_latent
from ikd.experiments import latent_data
from ikd.metrics import affine_r2, knn_accuracy

# The checks IKD does not pass, with the reason: check_estimators_dtypes draws integer data in {0, 1, 2} with 5
# features, in which some rows are constant; IKD rejects constant rows by design (their correlation is undefined). The
# three sparse checks fit 3-feature data with about 80% zeros, where many rows are all zero, so constant, for the same
# reason; IKD's sparse input itself is tested in tests/test_sparse.py.
# The blockwise solver is checked with its neighbourhood cover: on the checks' small random data the clique cover merges
# too few points and refuses, by design (tests/test_bad_input.py).
DTYPES = {"check_estimators_dtypes", "check_estimator_sparse_tag", "check_estimator_sparse_array",
          "check_estimator_sparse_matrix"}
# Six checks fit blobs with 2 features: centred over its features every row is a multiple of (1, -1), so the rows are at
# most two distinct points up to scale; IKD refuses 2 features by name ("needs at least 3 ... at most 2 distinct rows").
TWO_FEATURES = {"check_estimators_overwrite_params", "check_estimators_fit_returns_self", "check_readonly_memmap_input",
                "check_fit_idempotent", "check_fit_check_is_fitted", "check_n_features_in"}


@pytest.mark.parametrize("estimator, expected", [
    (IKD(), DTYPES | TWO_FEATURES), (IKD(solver="full"), DTYPES | TWO_FEATURES), (IKD(threshold=0.3), DTYPES | TWO_FEATURES),
    (IKD(path="product", reference=0), DTYPES | TWO_FEATURES),
    (IKD(solver=BlockwiseSolver(threshold=0.3, cover="neighbourhoods")), DTYPES | TWO_FEATURES),
    (IKD(refine=True), DTYPES | TWO_FEATURES), (IKD(solver="full", refine=True), DTYPES | TWO_FEATURES),
], ids=["geodesic-knn", "full", "geodesic-threshold", "geodesic-product", "blockwise-neighbourhoods", "geodesic-refined", "full-refined"])
def test_sklearn_check_estimator(estimator, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(estimator, on_fail=None)
    failed = {r["check_name"] for r in results if r["status"] == "failed"}
    assert failed == expected, {r["check_name"]: str(r["exception"])[:300] for r in results if r["status"] == "failed"}
    assert all("distinct rows" in str(r["exception"]) for r in results if r["check_name"] in TWO_FEATURES)
    assert sum(r["status"] == "passed" for r in results) > 35


@pytest.fixture(scope="module")
def gp_data():
    Z = ou_latent(300, 2, random_state=3)
    return gp_observations(Z, 60, lengthscale=3.0, noise=0.05, random_state=3), Z


@pytest.mark.parametrize("bad, error, message", [
    (lambda X: np.where(np.arange(X.size).reshape(X.shape) == 7, np.nan, X), ValueError, "NaN"),
    (lambda X: np.where(np.arange(X.size).reshape(X.shape) == 7, np.inf, X), ValueError, "infinity"),
    (lambda X: X[:3], ValueError, "at least n_components \\+ 2"),
    (lambda X: X[:, :1], ValueError, "1 feature"),
    (lambda X: np.vstack([X, np.full(X.shape[1], 2.0)]), ValueError, "constant"),
    (lambda X: X + 1j, ValueError, "[Cc]omplex"),
    (lambda X: sp.csr_matrix(np.where(np.arange(X.size).reshape(X.shape) == 7, np.nan, X)), ValueError, "NaN"),
    (lambda X: sp.vstack([sp.csr_matrix(X), sp.csr_matrix((1, X.shape[1]))]), ValueError, "constant"),
    (lambda X: sp.csr_matrix(X + 1e6), ValueError, "common offset"),
])
def test_bad_input_is_named(gp_data, bad, error, message):
    X, _ = gp_data
    with pytest.raises(error, match=message):
        IKD().fit(bad(X))


@pytest.mark.parametrize("params, message", [
    ({"n_components": 0}, "n_components"), ({"n_components": 2.5}, "n_components"),
    ({"solver": "blockwise-ish"}, "solver"), ({"solver": "blockwise", "n_neighbors": 5}, "no n_neighbors option"), ({"covariance": "spearman"}, "covariance"),
    ({"kernel": "rational_quadratic", "kernel_params": {"alpha": -1}}, "alpha"),
    ({"kernel": "gamma_exponential", "kernel_params": {"gamma": 3}}, "gamma"),
    ({"threshold": 1.5}, "threshold"), ({"n_neighbors": 0}, "n_neighbors"),
    ({"threshold": 0.3, "n_neighbors": 5}, "not both"), ({"reference": "median"}, "reference"),
    ({"path": "walk"}, "path"), ({"refine": "yes"}, "refine"),
    ({"n_jobs": 0}, "n_jobs"),  # no processes at all: scikit-learn's convention has no 0 (it ran serially, silently)
])
def test_invalid_parameters(gp_data, params, message):
    with pytest.raises(ValueError, match=message):
        IKD(**params).fit(gp_data[0])


def test_duplicate_rows_share_a_position(gp_data):
    X, _ = gp_data
    U = IKD(n_components=2).fit_transform(np.vstack([X, X[:5]]))
    assert np.all(np.isfinite(U))
    # the refinement moves each copy separately (ties in the neighbour graph are broken by row), so the copies agree to
    # its convergence tolerance, not to machine precision; the embedding spans about 4 units
    np.testing.assert_allclose(U[-5:], U[:5], atol=1e-5)


@pytest.mark.parametrize("solver", ["full", "geodesic"])
def test_same_input_same_output(gp_data, solver):
    X, _ = gp_data
    first = IKD(n_components=2, solver=solver, random_state=4).fit_transform(X)
    second = IKD(n_components=2, solver=solver, random_state=4).fit_transform(X.copy())
    np.testing.assert_array_equal(first, second)


def test_transform_of_training_points_is_the_embedding(gp_data):
    X, _ = gp_data
    for model in (IKD(solver="full").fit(X), IKD(refine=False).fit(X), IKD(path="product", reference=5, refine=False).fit(X)):
        np.testing.assert_allclose(model.transform(X), model.embedding_, atol=1e-6)
    # refined: a training point is pulled to itself by its own correlation 1, whose weight is capped, so not to 1e-6
    refined = IKD(refine=True).fit(X)
    np.testing.assert_allclose(refined.transform(X), refined.embedding_, atol=1e-4 * np.std(refined.embedding_))


def test_precomputed_covariance_matches_data(gp_data):
    X, _ = gp_data
    from ikd.covariance import sample_covariance
    S = sample_covariance(X)
    np.testing.assert_allclose(IKD(covariance="precomputed").fit_transform(S), IKD().fit_transform(X), atol=1e-8)


def test_digits_do_not_depend_on_row_order():
    X, y = load_digits(return_X_y=True)
    perm = np.random.default_rng(0).permutation(len(X))
    U = IKD(n_components=2).fit_transform(X)
    U_perm = IKD(n_components=2).fit_transform(X[perm])
    np.testing.assert_allclose(U_perm, U[perm], atol=1e-6)


def test_gp_benchmark_regression():
    """Sec. 3.1 GP benchmark at N = 100 (T = 1000, M = 3): the default (geodesic, distance paths, refined) recovers the
    latent with R^2 0.994 on this seed; issue 5 asks for 0.975. The result does not depend on the order of the rows."""
    Z = ou_latent(1000, 3, random_state=1)
    X = gp_observations(Z, 100, lengthscale=3.0, noise=0.05, random_state=1)
    model = IKD(n_components=3).fit(X)
    assert model.solver_.path == "distance" and model.settings_.refine
    assert affine_r2(model.embedding_, Z) > 0.99
    perm = np.random.default_rng(0).permutation(len(X))
    np.testing.assert_allclose(IKD(n_components=3).fit_transform(X[perm]), model.embedding_[perm], atol=1e-6)


def test_noisy_medium_latent_regression():
    """Fig. 5 setting at noise sd 0.5 (medium latent, SE, N = 1000): neither the noise floor (5.1 before it was taken off)
    nor the noise's scatter inflates the intrinsic dimension; read beyond the noise radius it is 2.45, a little below the
    2.8 of low noise (the annulus estimate reads low under heavy noise, see the dimension notebook). The defaults keep
    distance paths and the refinement: R^2 0.966 on this seed, where max-product paths without refinement gave 0.828."""
    Z = medium_latent()
    X = gp_observations(Z, 1000, lengthscale=0.5, noise=0.5, random_state=0)
    model = IKD(n_components=3).fit(X)
    assert 2 < model.settings_.intrinsic_dimension < 3.5
    assert model.solver_.path == "distance" and model.settings_.refine
    assert affine_r2(model.embedding_, Z) > 0.95


def test_refinement_on_for_a_latent_of_lower_dimension_than_m():
    """Fig. 4 setting (hard latent, SE, N = 1000, M = 3): the data look 1.9-dimensional, below M - 1, and the defaults
    still refine, because the refinement only crowds points when M is below the data's dimension: R^2 0.982 on this
    seed, against 0.941 unrefined (the rule before refined only when |m - M| <= 1)."""
    X, Z = latent_data("hard", "squared_exponential", 1000, seed=0)
    model = IKD(n_components=3).fit(X)
    assert model.settings_.intrinsic_dimension < 2 and model.settings_.refine
    unrefined = IKD(n_components=3, refine=False).fit_transform(X)
    assert affine_r2(model.embedding_, Z) > affine_r2(unrefined, Z) + 0.02


def test_digits_regression():
    """Issue 5's digits targets with the defaults: 5-NN accuracy at M = 2, 3, 5, 10 (measured 0.902, 0.959, 0.979, 0.983)."""
    X, y = load_digits(return_X_y=True)
    for M, target in ((2, 0.88), (3, 0.93), (5, 0.96), (10, 0.965)):
        assert knn_accuracy(IKD(n_components=M).fit_transform(X), y) >= target, M


def test_blockwise_model_match_beats_full():
    """Sec. 2.4 / Fig. 6 top: medium latent, SE data, T = 100, N = 1000, noise 0.05, solved with SE."""
    from ikd.datasets import medium_latent
    Z = medium_latent(100)
    X = gp_observations(Z, 1000, lengthscale=1.0, noise=0.05, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        blockwise = affine_r2(IKD(3, solver="blockwise").fit_transform(X), Z)
        full = affine_r2(IKD(3, solver="full").fit_transform(X), Z)
    assert blockwise >= 0.99 and blockwise > full


def test_blockwise_transform_places_held_out_points():
    from ikd.datasets import medium_latent
    Z = medium_latent(100)
    X = gp_observations(Z, 1000, lengthscale=1.0, noise=0.05, random_state=1)
    model = IKD(3, solver="blockwise").fit(X[::2])
    placed = np.r_[model.embedding_, model.transform(X[1::2])]
    assert affine_r2(placed, np.r_[Z[::2], Z[1::2]]) > 0.97


def test_out_of_sample_matches_fitting_everything():
    """GP benchmark with N = 200: fit 80 %, transform 20 %; the R^2 over all points is within 0.02 of fitting them all."""
    Z = ou_latent(1000, 3, random_state=2)
    X = gp_observations(Z, 200, lengthscale=3.0, noise=0.05, random_state=2)
    order = np.random.default_rng(2).permutation(1000)
    train, held_out = order[:800], order[800:]
    model = IKD(n_components=3).fit(X[train])
    transformed = model.transform(X[held_out])
    r2_split = affine_r2(np.r_[model.embedding_, transformed], np.r_[Z[train], Z[held_out]])
    r2_all = affine_r2(IKD(n_components=3).fit_transform(X), Z)
    assert abs(r2_split - r2_all) < 0.02
    assert affine_r2(transformed, Z[held_out]) > 0.95


def test_inverse_transform_decodes_in_the_data_units(gp_data):
    "The GP decoder: shape, data units, a row order that does not matter, landmarks' L x L system, refusals."
    from sklearn.exceptions import NotFittedError
    X, _ = gp_data
    X = 5.0 + 3.0 * X  # an offset and scale of its own, which the decoder must restore
    model = IKD(n_components=2, random_state=0).fit(X)
    decoded = model.inverse_transform(model.embedding_)
    assert decoded.shape == X.shape and decoded.dtype == np.float64
    assert np.mean((decoded - X) ** 2) < 0.2 * np.var(X)
    order = np.random.default_rng(1).permutation(len(X))
    permuted = IKD(n_components=2, random_state=0).fit(X[order])
    np.testing.assert_allclose(permuted.inverse_transform(permuted.embedding_), decoded[order], atol=1e-6)
    landmark = IKD(n_components=2, n_landmarks=80, random_state=0).fit(X)
    assert landmark.decoder().anchors.shape == (80, 2) and landmark.decoder().inverse.shape == (80, 80)
    with pytest.raises(ValueError, match="n_components = 2"):
        model.inverse_transform(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="NaN"):
        model.inverse_transform(np.full((1, 2), np.nan))
    with pytest.raises(NotFittedError):
        IKD().inverse_transform(np.zeros((1, 2)))


def test_inverse_transform_is_deterministic_and_survives_pickling(gp_data):
    import pickle
    X, _ = gp_data
    model = IKD(n_components=3, covariance="covariance", random_state=0).fit(X)
    grid = np.random.default_rng(0).normal(size=(7, 3))
    first = model.inverse_transform(grid)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).inverse_transform(grid), first)
    np.testing.assert_array_equal(IKD(n_components=3, covariance="covariance", random_state=0).fit(X).inverse_transform(grid), first)


def test_score_and_bic_are_order_free_deterministic_and_rank_m(gp_data):
    "score/bic/aic: row order does not matter, the same input gives the same number, BIC prefers the true M = 2."
    X, _ = gp_data
    model = IKD(n_components=2, random_state=0).fit(X)
    order = np.random.default_rng(2).permutation(len(X))
    permuted = IKD(n_components=2, random_state=0).fit(X[order])
    assert abs(permuted.score(X[order]) - model.score(X)) < 1e-6
    assert model.score(X) == IKD(n_components=2, random_state=0).fit(X).score(X)
    assert np.isfinite(model.score(X[:40])) and model.score(X[:40]) != model.score(X)
    bics = {m: IKD(n_components=m, random_state=0).fit(X).bic(X) for m in (1, 2, 4)}
    assert bics[2] < bics[1] and bics[2] < bics[4], bics
    n, entries = X.shape[0], X.size
    assert np.isclose(model.bic(X), -2 * model.score(X) * entries + (2 * n + 1) * np.log(entries))
    assert np.isclose(model.aic(X), -2 * model.score(X) * entries + 2 * (2 * n + 1))
    landmark = IKD(n_components=2, n_landmarks=80, random_state=0).fit(X)
    assert abs(landmark.score(X) - model.score(X)) < 0.5


def test_score_refuses_what_it_cannot_score(gp_data):
    from sklearn.exceptions import NotFittedError
    X, _ = gp_data
    with pytest.raises(NotFittedError):
        IKD().score(X)
    with pytest.raises(ValueError, match="precomputed"):
        S = np.corrcoef(X)
        IKD(covariance="precomputed").fit(S).bic(S)
    with pytest.raises(ValueError, match="NaN"):
        IKD(random_state=0).fit(X).score(np.where(np.arange(X.size).reshape(X.shape) == 3, np.nan, X))


def test_verbose_logs_every_stage_with_its_time(capsys):
    X, _ = load_digits(return_X_y=True)
    IKD(2, n_landmarks=200, refine=True).fit(X)
    assert capsys.readouterr().err == ""  # silent by default
    model = IKD(2, n_landmarks=200, refine=True, verbose=True).fit(X)
    logged = capsys.readouterr().err.splitlines()
    stages = [line.split()[1] for line in logged]
    # a landmark fit over every row places every row from its paths, then refines them all (issue 47)
    assert stages == ["rows", "landmarks", "covariance", "settings", "graph", "paths", "distances", "solver", "eigensolver",
                      "placement", "refinement"], logged
    assert all(line.startswith("[ikd] ") and line.endswith(" s") and float(line.split()[-2]) >= 0 for line in logged)
    model.transform(X[:5])
    assert [line.split()[1] for line in capsys.readouterr().err.splitlines()] == ["placement"]
    assert logging.getLogger("ikd").level == logging.NOTSET and not logging.getLogger("ikd").handlers


def test_ikd_logger_reaches_an_application_handler(caplog):
    X, _ = load_digits(return_X_y=True)
    with caplog.at_level(logging.INFO, logger="ikd"):
        IKD(2).fit(X)
    assert {"covariance", "paths", "eigensolver"} <= {record.getMessage().split()[0] for record in caplog.records}


@pytest.mark.parametrize("params", [{}, {"n_landmarks": 120}, {"solver": "full"}, {"covariance": "precomputed"}],
                         ids=["geodesic", "landmarks", "full", "precomputed"])
def test_model_saved_for_transform_is_smaller_and_transforms_identically(gp_data, params):
    import pickle
    X, _ = gp_data
    data = np.corrcoef(X) if params.get("covariance") == "precomputed" else X
    precomputed = params.get("covariance") == "precomputed"
    model = IKD(2, random_state=0, **params).fit(data[:250, :250] if precomputed else data[:250])
    new = data[250:, :250] if precomputed else data[250:]
    compact = model.for_transform()
    # with landmarks the embedding of all T rows is dropped; without, embedding_ is the fitted embedding itself
    slack = -1 if "n_landmarks" in params else 64
    assert len(pickle.dumps(compact)) <= len(pickle.dumps(model)) + slack
    loaded = pickle.loads(pickle.dumps(compact))
    np.testing.assert_array_equal(loaded.transform(new), model.transform(new))
    assert not hasattr(loaded, "embedding_")
    if not precomputed:
        with pytest.raises(ValueError, match="for_transform"):
            loaded.inverse_transform(np.zeros((1, 2)))



def _transform_outcome(model, X):
    "What `transform` gives: the coordinates, or the error it raises (a warning counted as an error)."
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try: return model.transform(X)
        except Exception as error: return f"{type(error).__name__}: {error}"


def _same_outcome(a, b, X):
    first, second = _transform_outcome(a, X), _transform_outcome(b, X)
    return type(first) is type(second) and np.array_equal(first, second)


@pytest.mark.parametrize("precomputed", [False, True], ids=["rows", "precomputed"])
def test_for_transform_keeps_exactly_what_transform_reads(gp_data, precomputed):
    """`FOR_TRANSFORM` lists what `transform` reads: the copy transforms as the model does and holds nothing else, and
    without any one listed attribute transform breaks (it fails, or no longer refuses what the model refuses)."""
    import pandas as pd
    from ikd.estimator import FOR_TRANSFORM
    X, _ = gp_data
    data = np.corrcoef(X)[:, :250] if precomputed else X
    named = pd.DataFrame(data, columns=[f"f{i}" for i in range(data.shape[1])])
    kind = "precomputed" if precomputed else "correlation"
    # each model with its new points, and new points with a feature missing (named columns: feature_names_in_)
    cases = [(IKD(2, random_state=0, covariance=kind).fit(fitted), [new, new.iloc[:, :-1] if hasattr(new, "iloc") else new[:, :-1]])
             for fitted, new in ((named.iloc[:250], named.iloc[250:]), (data[:250], data[250:]))]
    for model, inputs in cases:
        compact = model.for_transform()
        assert all(_same_outcome(compact, model, X_new) for X_new in inputs)
        kept = {name for name in vars(compact) if name not in compact.get_params()}
        assert kept == {name for name in FOR_TRANSFORM if hasattr(model, name)} | {"_row_location", "_row_scale", "_decoder"}
    for name in FOR_TRANSFORM:
        def stripped(model):
            compact = model.for_transform()
            delattr(compact, name)
            return compact
        assert any(not _same_outcome(stripped(model), model, X_new) for model, inputs in cases if hasattr(model, name)
                   for X_new in inputs), f"transform does not read {name}"
