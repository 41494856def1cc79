"SNE (issue 21): scikit-learn's contract, bad input, determinism and row order, and the calibration on random data."
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils.estimator_checks import check_estimator

from ikd.baselines import embed
from ikd.sne import SNE, conditional_probabilities, entropy_term, sne_cost_gradient


def test_sklearn_check_estimator():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(SNE(perplexity=5, max_iter=50), on_fail=None)
    failed = {r["check_name"]: str(r["exception"])[:300] for r in results if r["status"] == "failed"}
    assert not failed, failed
    assert sum(r["status"] == "passed" for r in results) > 30


@given(st.integers(0, 10_000), st.floats(2.0, 20.0))
@settings(max_examples=20, deadline=None)
def test_calibration_hits_the_perplexity(seed, perplexity):
    X = np.random.default_rng(seed).normal(size=(40, 3)) * np.random.default_rng(seed + 1).uniform(0.1, 10)
    P, beta = conditional_probabilities(euclidean_distances(X, squared=True), perplexity)
    with np.errstate(divide="ignore", invalid="ignore"):
        bits = -np.sum(np.where(P > 0, P * np.log2(P), 0.0), axis=1)
    assert np.max(np.abs(2 ** bits / perplexity - 1)) < 1e-5
    assert np.all(beta > 0) and np.allclose(P.sum(axis=1), 1.0)


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(3)
    P, _ = conditional_probabilities(euclidean_distances(rng.normal(size=(25, 4)), squared=True), 6)
    Y, entropy = rng.normal(size=(25, 3)), entropy_term(P)
    _, gradient = sne_cost_gradient(Y, P, entropy)
    numeric = np.zeros_like(Y)
    for index in np.ndindex(*Y.shape):
        step = np.zeros_like(Y); step[index] = 1e-6
        numeric[index] = (sne_cost_gradient(Y + step, P, entropy)[0] - sne_cost_gradient(Y - step, P, entropy)[0]) / 2e-6
    np.testing.assert_allclose(gradient, numeric, atol=1e-6)


def test_same_input_same_output_and_row_order():
    X = np.random.default_rng(0).normal(size=(120, 6))
    first = SNE(random_state=1, max_iter=150).fit_transform(X)
    np.testing.assert_array_equal(SNE(random_state=1, max_iter=150).fit_transform(X), first)
    order = np.random.default_rng(2).permutation(len(X))
    np.testing.assert_array_equal(SNE(random_state=1, max_iter=150).fit_transform(X[order]), first[order])
    assert not np.array_equal(SNE(random_state=2, max_iter=150).fit_transform(X), first)
    np.testing.assert_array_equal(embed("sne", X, 2, random_state=1, max_iter=150), first)


def test_cost_falls_and_clusters_separate():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(centre, 1.0, size=(60, 10)) for centre in (0.0, 8.0, 16.0)])
    model = SNE(random_state=0, max_iter=400).fit(X)
    history = model.cost_history_
    assert history[-1] < history[0] and np.mean(history[len(history) // 2:]) < np.mean(history[:len(history) // 2])
    centres = np.array([model.embedding_[k * 60:(k + 1) * 60].mean(axis=0) for k in range(3)])
    spread = max(model.embedding_[k * 60:(k + 1) * 60].std() for k in range(3))
    assert np.min(euclidean_distances(centres)[np.triu_indices(3, 1)]) > 2 * spread


@pytest.mark.parametrize("bad, error, message", [
    (lambda X: np.where(np.arange(X.size).reshape(X.shape) == 5, np.nan, X), ValueError, "NaN"),
    (lambda X: X[:10], ValueError, "perplexity must be less than T - 1"),
    (lambda X: X + 1j, ValueError, "[Cc]omplex"),
])
def test_bad_input_is_named(bad, error, message):
    X = np.random.default_rng(0).normal(size=(50, 4))
    with pytest.raises(error, match=message):
        SNE(perplexity=15, max_iter=10).fit(bad(X))


def test_invalid_parameters_are_named():
    X = np.random.default_rng(0).normal(size=(50, 4))
    with pytest.raises(ValueError, match="'learning_rate' parameter of SNE"):
        SNE(learning_rate=-1).fit(X)
    with pytest.raises(ValueError, match="'perplexity' parameter of SNE"):
        SNE(perplexity=0.5).fit(X)
