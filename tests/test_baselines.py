"""Every baseline of Sec. 3 on small data: the right shape, finite values, and determinism under random_state."""
import re
import warnings

import numpy as np
import pytest
from scipy import sparse
from scipy.spatial import procrustes
from sklearn.datasets import load_digits

from ikd.baselines import METHODS, embed
from ikd.datasets import ou_latent, sinusoidal_observations
from ikd.metrics import knn_accuracy

@pytest.fixture(scope="module")
def small():
    X = sinusoidal_observations(ou_latent(90, 2, random_state=1), 12, random_state=1)
    return X, (np.arange(90) // 30)


OPTIONS = {"vae": {"epochs": 30}, "gplvm": {"max_iters": 50}, "tsne": {"perplexity": 10}}


@pytest.mark.parametrize("method", sorted(METHODS))
def test_baseline_shape_finite_and_deterministic(small, method):
    X, _ = small
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = embed(method, X, 2, random_state=0, **OPTIONS.get(method, {}))
        assert first.shape == (90, 2) and np.all(np.isfinite(first))
        # every method is deterministic under a seed (UMAP then runs single-threaded)
        second = embed(method, X, 2, random_state=0, **OPTIONS.get(method, {}))
        np.testing.assert_allclose(first, second, rtol=1e-6, atol=1e-8)


def test_tsne_beyond_three_dimensions_uses_the_exact_method(small):
    X, _ = small
    assert embed("tsne", X, 4, random_state=0, perplexity=10).shape == (90, 4)


def test_kpca_picks_a_kernel_by_accuracy(small):
    X, labels = small
    chosen = embed("kpca", X, 2, random_state=0, labels=labels)
    candidates = [embed("kpca", X, 2, random_state=0, kernel=k) for k in ("poly", "rbf", "sigmoid", "cosine")]
    assert any(np.allclose(chosen, c) for c in candidates)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:500], y[:500]


# measured on these 500 digits at M = 2 (seed 0): openTSNE 0.990, PaCMAP 0.966, TriMap 0.972
@pytest.mark.parametrize("method", ["opentsne", "pacmap", "trimap"])
def test_structure_methods_keep_digits_apart(digits, method):
    X, y = digits
    first = embed(method, X, 2, random_state=0)
    assert first.shape == (500, 2) and np.all(np.isfinite(first))
    np.testing.assert_array_equal(embed(method, X, 2, random_state=0), first)
    assert knn_accuracy(first, y) > 0.9
    assert embed(method, X, 3, random_state=0).shape == (500, 3)


# issue 44: one check at embed()'s door, per method's needs, in the package's words
@pytest.fixture(scope="module")
def tiny():
    "40 points, 6 positive features with a third of the entries 0 (so that a sparse copy is sparse)."
    X = sinusoidal_observations(ou_latent(40, 2, random_state=2), 6, random_state=2)
    return np.where(X > np.quantile(X, 1 / 3), X - X.min(), 0.0)


QUICK = {"vae": {"epochs": 2}, "gplvm": {"max_iters": 5}, "tsne": {"perplexity": 5, "max_iter": 250},
         "opentsne": {"perplexity": 5, "n_iter": 20}, "umap": {"n_epochs": 10}, "pacmap": {"num_iters": 20},
         "trimap": {"n_iters": 20}, "sne": {"max_iter": 20}, "saul_lvm": {"max_iter": 5}}


def quick_embed(method, X, n_components=2, random_state=0, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return embed(method, X, n_components, random_state=random_state, **{**QUICK.get(method, {}), **options})


REFUSED_BY_EVERY_METHOD = {  # (arguments, error, words): nothing a method runs, and no library's words
    "n_components=0": ({"n_components": 0}, ValueError, "n_components must be a positive integer, got 0"),
    "n_components=True": ({"n_components": True}, ValueError, "n_components must be a positive integer, got True"),
    "n_components=2.5": ({"n_components": 2.5}, ValueError, "n_components must be a positive integer"),
    "random_state=True": ({"random_state": True}, TypeError, "random_state of .* must be an integer seed"),
    "random_state=-1": ({"random_state": -1}, ValueError, "random_state must lie in"),
    "random_state=Generator": ({"random_state": np.random.default_rng(0)}, TypeError, "random_state of .* must be an integer seed"),
    "X with NaN": ({"X": lambda X: np.where(np.eye(*X.shape, dtype=bool), np.nan, X)}, ValueError, "X must be a finite 2-D array"),
}


@pytest.mark.parametrize("bad", list(REFUSED_BY_EVERY_METHOD))
@pytest.mark.parametrize("method", list(METHODS))
def test_what_no_method_takes_is_refused_at_the_door(tiny, method, bad):
    "n_components=0 went on to an IndexError in openTSNE, random_state=True to a numba TypingError in TriMap."
    arguments, error, words = REFUSED_BY_EVERY_METHOD[bad]
    X = arguments.get("X", lambda X: X)(tiny)
    call = {"n_components": 2, "random_state": 0, **{k: v for k, v in arguments.items() if k != "X"}}
    with pytest.raises(error, match=words): quick_embed(method, X, **call)


@pytest.mark.parametrize("method", list(METHODS))
def test_sparse_x_is_taken_as_dense_or_refused_by_name(tiny, method):
    "Sparse X gave 'setting an array element with a sequence' for every method."
    sparse_X = sparse.csr_matrix(tiny)
    if not METHODS[method].sparse:
        with pytest.raises(TypeError, match=f"X is a sparse matrix, which {re.escape(METHODS[method].name)} does not take"):
            quick_embed(method, sparse_X)
        return
    assert procrustes(quick_embed(method, tiny), quick_embed(method, sparse_X))[2] < 1e-8


@pytest.mark.parametrize("method", list(METHODS))
def test_a_randomstate_is_a_seed_where_the_method_takes_one(tiny, method):
    "TriMap, PaCMAP, GPy and the VAE seed from an integer: a RandomState gave a TypingError, an AssertionError, a cast error."
    if METHODS[method].seeds == "integer":
        with pytest.raises(TypeError, match="must be an integer seed or None, got RandomState"):
            quick_embed(method, tiny, random_state=np.random.RandomState(0))
    else:
        assert np.all(np.isfinite(quick_embed(method, tiny, random_state=np.random.RandomState(0))))


@pytest.mark.parametrize("method", list(METHODS))
def test_x_beyond_the_range_a_method_squares_in_is_refused_by_name(tiny, method):
    "X * 1e300 gave 'contains infinity', 'contains NaN' or a failed reshape; float32 methods failed already at 1e25."
    precision = METHODS[method].precision
    if precision is None:  # a method that works on any scale: the same map, or its own refusal that names X's scale
        try: huge = quick_embed(method, tiny * 1e300)
        except ValueError as refusal: assert "X" in str(refusal)
        else: assert procrustes(quick_embed(method, tiny), huge)[2] < 1e-6
        return
    for factor in (1e300, 1e-300) + ((1e25,) if precision == "float32" else ()):
        with pytest.raises(ValueError, match="X reaches|X spans only"): quick_embed(method, tiny * factor)


def test_trimap_needs_two_dimensions_and_pacmap_an_init_within_float32(tiny):
    with pytest.raises(ValueError, match="TriMap embeds into at least 2 dimensions, got n_components=1"):
        quick_embed("trimap", tiny, n_components=1)
    start = quick_embed("pca", tiny)
    with pytest.raises(ValueError, match="init reaches"): quick_embed("pacmap", tiny, init=start * 1e25)
