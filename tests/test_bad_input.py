"""Inputs that once gave a silent wrong answer, a crash or a cliff (issue 17), one test per cause, and the table of inputs
that must give a clear error. Each test failed before its fix; `scripts/reliability_probes.py` runs the same probe list
and counts what goes wrong."""
import pickle
import warnings

import numpy as np
import pytest
from scipy.spatial import procrustes
from scipy.spatial.distance import cdist, pdist
from sklearn.datasets import load_digits, make_blobs

from ikd import IKD
from ikd.blockwise import BlockwiseSolver
from ikd.covariance import sample_covariance
from ikd.datasets import gp_observations, ou_latent
from ikd.metrics import knn_accuracy


@pytest.fixture(scope="module")
def gp_data():
    Z = ou_latent(300, 2, random_state=5)
    return gp_observations(Z, 60, lengthscale=3.0, noise=0.05, random_state=5)


@pytest.fixture(scope="module")
def digits():
    return load_digits(return_X_y=True)


def fit_quietly(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit_transform(X)


def permuted_fit(model, X, seed=0):
    "The embedding of X and the embedding of X with its rows permuted, put back in X's order."
    order = np.random.default_rng(seed).permutation(len(X))
    U = fit_quietly(model, X)
    U_permuted = np.empty_like(U)
    U_permuted[order] = fit_quietly(model, X[order])
    return U, U_permuted


# 1. blockwise at realistic sizes
def test_blockwise_refuses_when_clique_enumeration_is_capped(digits):
    with pytest.raises(ValueError, match="cover='neighbourhoods'.*solver='geodesic'"):
        IKD(solver="blockwise").fit(digits[0])


def test_blockwise_does_not_depend_on_row_order(digits):
    U, U_permuted = permuted_fit(IKD(solver=BlockwiseSolver(cover="neighbourhoods")), digits[0])
    np.testing.assert_allclose(U_permuted, U, atol=1e-8 * np.abs(U).max())


def test_blockwise_lays_disconnected_clusters_apart():
    X, y = make_blobs(1000, n_features=20, centers=10, random_state=0)
    U = fit_quietly(IKD(solver="blockwise"), X)
    assert knn_accuracy(U, y) > 0.95  # 0.54 when the clusters were stacked on one another


# 2. full solver: row order, no positive pair, anti-correlated rows
@pytest.mark.parametrize("make", [lambda gp: gp, lambda gp: np.random.default_rng(0).uniform(size=(300, 5))],
                         ids=["gp", "uniform-noise"])
def test_full_solver_does_not_depend_on_row_order(gp_data, make):
    U, U_permuted = permuted_fit(IKD(solver="full"), make(gp_data))
    np.testing.assert_allclose(U_permuted, U, atol=1e-8 * np.abs(U).max())


def test_no_positive_covariance_is_an_error():
    with pytest.raises(ValueError, match="no two points have a positive covariance"):
        IKD().fit(np.eye(200))
    with pytest.raises(ValueError, match="no two points have a positive covariance"):
        IKD(solver="full").fit(np.eye(50))


@pytest.mark.parametrize("solver", ["full", "geodesic"])
def test_anti_correlated_rows_are_not_put_together(solver):
    X = np.random.default_rng(1).normal(size=(100, 10))
    U = fit_quietly(IKD(solver=solver), np.r_[X, -X])
    assert np.linalg.norm(U[:100] - U[100:], axis=1).min() > 0.1 * np.median(pdist(U))


# 3. degenerate spectra and overflow
def test_one_hot_rows_are_refused_by_name():
    "Copies are merged first (issue 33), leaving one row per class and no pair that covaries positively: no distance."
    labels = np.random.default_rng(0).integers(0, 10, 300)
    with pytest.raises(ValueError, match="no two points have a positive covariance"):
        fit_quietly(IKD(), np.eye(10)[labels])


@pytest.mark.parametrize("factor", [1e154, 1e-13, 1e-300])
def test_correlation_does_not_depend_on_scale(gp_data, factor):
    np.testing.assert_allclose(IKD().fit_transform(gp_data * factor), IKD().fit_transform(gp_data), atol=1e-6)


def test_covariance_that_overflows_is_named(gp_data):
    with pytest.raises(ValueError, match="over- or underflows"):
        IKD(covariance="covariance").fit(gp_data * 1e160)


# 4. transform of the training rows is the embedding, in every covariance mode and for every solver
@pytest.mark.parametrize("covariance", ["correlation", "covariance", "precomputed"])
@pytest.mark.parametrize("solver", ["full", "geodesic", "blockwise"])
def test_transform_of_training_rows_is_the_embedding(gp_data, covariance, solver):
    X = gp_data * np.random.default_rng(2).uniform(0.5, 2.0, (len(gp_data), 1))  # rows of different variances
    if covariance == "precomputed": X = sample_covariance(X)
    params = {"threshold": 0.5} if solver == "blockwise" else {}
    model = IKD(solver=solver, covariance=covariance, refine=False, **params)
    fit_quietly(model, X)
    np.testing.assert_allclose(model.transform(X), model.embedding_, atol=1e-8 * np.abs(model.embedding_).max())


# 5. constancy is judged on each row's own scale
def test_tiny_rows_are_not_constant(gp_data):
    U = IKD().fit_transform(gp_data * 1e-13)
    assert np.isfinite(U).all() and np.std(U) > 0.1


def test_truly_constant_rows_are_named(gp_data):
    with pytest.raises(ValueError, match="constant"):
        IKD().fit(np.vstack([gp_data, np.full(gp_data.shape[1], 1e-13)]))


# 6. kernel parameters whose inverse cannot be used
@pytest.mark.parametrize("kernel, params, message", [
    ("rational_quadratic", {"alpha": 1e-3}, "alpha=0.001"), ("gamma_exponential", {"gamma": 1e-6}, "gamma=1e-06"),
    ("gamma_exponential", {"gamma": 0.01}, "gamma=0.01"), ("matern", {"nu": 200}, "nu must be"),
    ("matern", {"nu": 1e-3}, "nu=0.001"),
])
def test_unusable_kernel_parameters_are_refused(gp_data, kernel, params, message):
    with pytest.raises(ValueError, match=message):
        IKD(solver="full", kernel=kernel, kernel_params=params).fit(gp_data)


def test_heavy_tailed_full_solution_is_not_a_few_far_points(digits):
    "The rational quadratic's inverse of the weakest covariances: read at the floor, not at the single weakest (issue 33)."
    U = fit_quietly(IKD(solver="full", kernel="rational_quadratic"), digits[0])
    radius = np.linalg.norm(U - np.median(U, axis=0), axis=1)
    assert radius.max() < 100 * np.median(radius)
    assert knn_accuracy(U, digits[1]) > 0.45


# 7. precomputed input and parameters
@pytest.fixture(scope="module")
def correlations(gp_data):
    return sample_covariance(gp_data)


@pytest.mark.parametrize("spoil, message", [
    (lambda S: S - np.diag(np.diag(S)), "distance matrix"),
    (lambda S: S - 2 * np.diag(np.diag(S)), "non-positive diagonal"),
    (lambda S: np.where(np.eye(len(S), dtype=bool), S, 1.5 * S), "Cauchy-Schwarz"),
    (lambda S: cdist(S[:, :20], S[:, :20]), "distance matrix"),
])
def test_precomputed_matrices_that_are_not_covariances(correlations, spoil, message):
    S = correlations.copy()
    S[0, 1] = S[1, 0] = 0.9  # an entry that exceeds sqrt(s_ii s_jj) once scaled by 1.5
    with pytest.raises(ValueError, match=message):
        IKD(covariance="precomputed").fit(spoil(S))


@pytest.mark.parametrize("params, error, message", [
    ({"kernel_params": {"variance": 5}}, ValueError, "variance"),
    ({"random_state": "abc"}, ValueError, "random_state"),
    ({"n_neighbors": True}, TypeError, "n_neighbors must be an integer"),
    ({"n_components": True}, TypeError, "n_components must be an integer"),
    ({"n_landmarks": True}, TypeError, "n_landmarks must be an integer"),
])
def test_parameters_that_were_accepted_silently(gp_data, params, error, message):
    with pytest.raises(error, match=message):
        IKD(**params).fit(gp_data)


# 8. cliffs
def test_dense_threshold_graph_is_warned_about(gp_data):
    with pytest.warns(RuntimeWarning, match="trusted edges per point"):
        IKD(threshold=0.05).fit(gp_data)


def test_full_refined_transform_refines_against_few_anchors(gp_data):
    model = IKD(solver="full", refine=True).fit(gp_data)
    S_new = model._train_rows[:5] @ model._train_rows.T
    assert model.solver_.relate(S_new, model.embedding_, for_refinement=True).neighbours.shape == (5, 64)


def test_geodesic_model_pickles_small_and_transforms_the_same(digits):
    model = IKD().fit(digits[0])
    restored = pickle.loads(pickle.dumps(model))
    assert len(pickle.dumps(model)) < 4e6  # 25.6 MB when the T x T path lengths were kept
    np.testing.assert_array_equal(restored.transform(digits[0][:50]), model.transform(digits[0][:50]))


# the table of inputs that must give a clear error
@pytest.mark.parametrize("X, params, error, message", [
    (np.eye(200), {}, ValueError, "positive covariance"),
    (np.full((20, 5), 3.0), {}, ValueError, "constant"),
    (np.ones((20, 1)), {}, ValueError, "1 feature"),
    (np.zeros((0, 5)), {}, ValueError, "sample"),
    (np.array([[1.0, np.nan, 2.0]] * 10), {}, ValueError, "NaN"),
    (np.zeros((10, 10)), {"covariance": "precomputed"}, ValueError, "non-positive diagonal"),
    (np.ones((10, 12)), {"covariance": "precomputed"}, ValueError, "square"),
    (np.random.default_rng(0).normal(size=(30, 5)), {"n_landmarks": 10, "covariance": "precomputed"}, ValueError,
     "n_landmarks"),
    (np.random.default_rng(0).normal(size=(30, 5)), {"solver": "blockwise", "reference": "min_max"}, ValueError,
     "takes no reference"),
])
def test_inputs_that_must_give_a_clear_error(X, params, error, message):
    with pytest.raises(error, match=message):
        IKD(**params).fit(X)


def test_cli_bad_input_prints_one_line_and_exits_2(tmp_path):
    import subprocess
    import sys
    path = tmp_path / "identity.csv"
    np.savetxt(path, np.eye(30), delimiter=",")
    result = subprocess.run([sys.executable, "-m", "ikd", str(path), "--output", str(tmp_path / "out.png")],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "positive covariance" in result.stderr
