"""Sparse input (issue 20, part 1): the same fit, transform, decoder and score as on the dense copy, without a dense copy."""
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from ikd import IKD
from ikd.datasets import sparse_observations


def sparse_counts(n_points, n_features, density, seed):
    "Sparse positive data with a 2-D latent behind it."
    latent = np.random.default_rng(seed).uniform(-1, 1, (n_points, 2))
    return sparse_observations(latent, n_features, density, random_state=seed)


@pytest.fixture(scope="module")
def data():
    return sparse_counts(400, 1500, 0.03, 0), sparse_counts(60, 1500, 0.03, 1)


CONFIGS = [dict(), dict(covariance="covariance"), dict(solver="full"), dict(refine=True),
           dict(n_landmarks=120), dict(n_landmarks=120, landmarks="rnet"),
           dict(n_landmarks=120, landmarks="random", covariance="covariance"), dict(threshold=0.2, n_landmarks=150)]


@pytest.mark.parametrize("params", CONFIGS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "defaults")
@pytest.mark.parametrize("layout", ["csr", "csc"])
def test_sparse_fit_and_transform_equal_the_dense_path(data, params, layout):
    X, new = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the full solver's warning about weak covariances, on both paths
        dense = IKD(2, random_state=0, **params).fit(X.toarray())
        fitted = IKD(2, random_state=0, **params).fit(X.asformat(layout))
    np.testing.assert_allclose(fitted.embedding_, dense.embedding_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(fitted.transform(new.asformat(layout)), dense.transform(new.toarray()), rtol=0, atol=1e-10)
    if "n_landmarks" in params: np.testing.assert_array_equal(fitted.landmark_indices_, dense.landmark_indices_)


def test_sparse_decoder_and_score_equal_the_dense_path(data):
    X, new = data
    dense, fitted = IKD(2, random_state=0).fit(X.toarray()), IKD(2, random_state=0).fit(X)
    Z = dense.transform(new.toarray())
    np.testing.assert_allclose(fitted.inverse_transform(Z), dense.inverse_transform(Z), rtol=0, atol=1e-10)
    assert abs(fitted.score(new) - dense.score(new.toarray())) < 1e-10


def test_precomputed_sparse_covariance_is_accepted(data):
    X, _ = data
    S = np.corrcoef(X.toarray())
    S[np.abs(S) < 0.05] = 0.0  # a thresholded covariance, as a user might store it
    dense = IKD(2, covariance="precomputed", random_state=0).fit(S)
    fitted = IKD(2, covariance="precomputed", random_state=0).fit(sp.csr_array(S))
    np.testing.assert_allclose(fitted.embedding_, dense.embedding_, rtol=0, atol=1e-10)


def test_sparse_fit_never_forms_the_dense_rows():
    # 3000 x 100 000 at 0.1% density: 300 000 stored entries (4 MB); a dense copy would be 2.4 GB. What is allowed is
    # O(N k): the principal-coordinate sketch of the landmark rule holds a few (N, 74) arrays (59 MB each)
    X = sparse_counts(3000, 100_000, 0.001, 2)
    tracemalloc.start()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # so few shared features leave the trusted graph in pieces
        model = IKD(2, n_landmarks=200, random_state=0).fit(X)
    model.transform(X[:500])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 400e6, f"peak {peak / 1e6:.0f} MB"
    assert np.all(np.isfinite(model.embedding_)) and np.ptp(model.embedding_, axis=0).min() > 0


def test_sparse_rows_are_row_order_invariant(data):
    X, _ = data
    order = np.random.default_rng(3).permutation(X.shape[0])
    a = IKD(2, random_state=0).fit_transform(X)
    b = IKD(2, random_state=0).fit_transform(X[order])
    np.testing.assert_allclose(b, a[order], atol=1e-8)


def test_dense_fit_places_sparse_rows_and_the_reverse(data):
    X, new = data
    dense, fitted = IKD(2, random_state=0).fit(X.toarray()), IKD(2, random_state=0).fit(X)
    expected = dense.transform(new.toarray())
    np.testing.assert_allclose(dense.transform(new), expected, rtol=0, atol=1e-10)
    np.testing.assert_allclose(fitted.transform(new.toarray()), expected, rtol=0, atol=1e-10)
