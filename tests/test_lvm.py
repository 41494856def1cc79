"""Saul's tractable LVM (issue 22): scikit-learn's estimator checks, bad input, determinism, row order, monotone EM."""
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_swiss_roll
from sklearn.utils.estimator_checks import check_estimator

from ikd.baselines import embed
from ikd.lvm import TractableLVM, neighbour_graph


def test_check_estimator_passes():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(TractableLVM(max_iter=20), on_fail=None)
    failed = {r["check_name"]: str(r["exception"])[:300] for r in results if r["status"] == "failed"}
    assert not failed, failed
    assert sum(r["status"] == "passed" for r in results) > 30


@pytest.fixture(scope="module")
def roll():
    return make_swiss_roll(600, noise=0.05, random_state=4)


@pytest.mark.parametrize("params, error, message", [
    ({"n_neighbors": 600}, ValueError, "n_neighbors must be below"),
    ({"n_components": 0}, ValueError, "n_components"),
    ({"coarse_levels": -1}, ValueError, "coarse_levels"),
    ({"linear_solver": "lu"}, ValueError, "linear_solver"),
    ({"max_iter": True}, TypeError, "boolean"),
])
def test_bad_parameters_are_named(roll, params, error, message):
    with pytest.raises(error, match=message):
        TractableLVM(**params).fit(roll[0])


@pytest.mark.parametrize("bad, message", [
    (lambda X: np.where(np.arange(X.size).reshape(X.shape) == 5, np.nan, X), "NaN"),
    (lambda X: np.ones_like(X), "identical"),
    (lambda X: X[:1], "minimum of 2"),
])
def test_bad_input_is_named(roll, bad, message):
    with pytest.raises(ValueError, match=message):
        TractableLVM(max_iter=5).fit(bad(roll[0]))


def test_same_seed_same_output_and_rows_permute(roll):
    X, _ = roll
    first = TractableLVM(max_iter=30, random_state=7).fit_transform(X)
    np.testing.assert_array_equal(first, TractableLVM(max_iter=30, random_state=7).fit_transform(X))
    order = np.random.default_rng(1).permutation(len(X))
    np.testing.assert_array_equal(TractableLVM(max_iter=30, random_state=7).fit_transform(X[order]), first[order])


@pytest.mark.parametrize("levels", [0, 1, 2])
def test_no_half_step_lowers_the_objective(roll, levels):
    model = TractableLVM(coarse_levels=levels, max_iter=40, random_state=0).fit(roll[0])
    history = model.objective_history_
    assert len(history) == 81 and history[-1] > history[0]
    assert np.diff(history).min() >= -1e-12 * np.abs(history).max()


def test_graph_properties_on_random_data():
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(size=(200, 5)), np.full((1, 5), 25.0)])  # a planted outlier, the last row
    for k in (4, 9):
        graphs = [neighbour_graph(X, k, s) for s in (1, 2, 3)]
        for graph in graphs:
            assert (graph.edges > graph.knn.astype(bool)).nnz == 0
            assert graph.edges[200].nnz == 1 and graph.edges[:, 200].nnz == 0  # only its own tree edge
        for smaller, larger in zip(graphs, graphs[1:]):
            assert (smaller.edges > larger.edges).nnz == 0


def test_embed_entry_and_variances(roll):
    Z = embed("saul_lvm", roll[0], 2, random_state=0, max_iter=30)
    assert Z.shape == (600, 2) and np.all(np.isfinite(Z))
    model = TractableLVM(max_iter=30, random_state=0).fit(roll[0])
    np.testing.assert_array_equal(model.embedding_, Z)
    assert np.all(model.variances_ > 0) and model.edges_.shape == (600, 600)
