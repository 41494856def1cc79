"""Hypothesis properties of g(D), the decomposition and its refinement, across random latents."""
import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from scipy.spatial.distance import cdist

from ikd.datasets import gp_observations, medium_latent
from ikd.covariance import sample_covariance
from ikd.decompose import decompose
from ikd.refine import refine_embedding, stress_weights
from ikd.dimension import intrinsic_dimension
from ikd.gram import gram
from ikd.kernels import get_kernel
from ikd.metrics import affine_r2, rigid_align

latents = st.integers(5, 40).flatmap(lambda T: st.integers(1, 3).flatmap(
    lambda M: arrays(np.float64, (T, M), elements=st.floats(-3, 3, allow_nan=False))))


def examples(ci_count):
    "A test's number of examples: `ci_count` under the default (CI) profile, ten times as many under `explore` (conftest.py)."
    return ci_count * settings.default.max_examples // settings.get_profile("ci").max_examples


def squared_distances(Z):
    return ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1)


@settings(max_examples=examples(100))
@given(Z=latents, data=st.data())
def test_gram_is_shifted_inner_products(Z, data):
    r = data.draw(st.integers(0, len(Z) - 1))
    G = gram(squared_distances(Z), r)
    np.testing.assert_allclose(G, (Z - Z[r]) @ (Z - Z[r]).T, atol=1e-10)
    assert np.all(G[r] == 0) and np.all(G[:, r] == 0)
    np.testing.assert_allclose(gram(squared_distances(Z), "centroid"), (Z - Z.mean(0)) @ (Z - Z.mean(0)).T, atol=1e-10)


@settings(max_examples=examples(40))
@given(seed=st.integers(0, 10_000), name=st.sampled_from(["squared_exponential", "rational_quadratic", "matern"]),
       lengthscale=st.floats(1.0, 3.0))
def test_exact_kernel_matrix_is_recovered_rigidly(seed, name, lengthscale):
    rng = np.random.default_rng(seed)
    Z = rng.uniform(-1, 1, size=(30, 2))
    kernel = get_kernel(name)
    U = decompose(kernel.covariance(Z, lengthscale=lengthscale), 2, kernel=kernel).embedding
    assert affine_r2(U, Z) > 1 - 1e-8
    np.testing.assert_allclose(rigid_align(U * lengthscale, Z), Z, atol=1e-5)


@settings(max_examples=examples(25))
@given(seed=st.integers(0, 10_000), n_features=st.integers(20, 500))
def test_refinement_never_raises_the_weighted_stress(seed, n_features):
    rng = np.random.default_rng(seed)
    Z = rng.uniform(-1.5, 1.5, size=(25, 2))
    X = np.linalg.cholesky(get_kernel("squared_exponential").covariance(Z) + 1e-8 * np.eye(25)) @ rng.standard_normal((25, n_features))
    S = np.corrcoef(X)
    start = decompose(S, 2, reference="centroid").embedding if np.all(S > 0) else rng.standard_normal((25, 2))
    targets, weights = stress_weights(S)

    def stress(Y):
        return np.sum(weights * (cdist(Y, Y) - targets) ** 2)
    assert stress(refine_embedding(start, S)) <= stress(start) * (1 + 1e-12)


def test_refinement_reaches_the_exactness_target_where_plain_ikd_misses_it():
    """Issue 4: SE, medium latent, N = 50 000 noiseless samples; seed 2 is the worst draw for Algorithm 1 as written."""
    Z = medium_latent(100)
    S = sample_covariance(gp_observations(Z, 50_000, lengthscale=1.0, noise=0.0, random_state=2))
    plain = decompose(S, 3).embedding
    assert affine_r2(plain, Z) < 0.999
    assert affine_r2(refine_embedding(decompose(S, 3, reference="centroid").embedding, S), Z) > 0.999


@settings(max_examples=examples(15))
@given(seed=st.integers(0, 10_000), dimension=st.integers(2, 4), shrink=st.floats(0.4, 1.0))
def test_intrinsic_dimension_ignores_the_noise_floor(seed, dimension, shrink):
    # observation noise multiplies every off-diagonal correlation by one factor; the estimate must not move with it
    Z = np.random.default_rng(seed).uniform(0, 4, size=(800, dimension))
    kernel = get_kernel("squared_exponential")
    K = kernel.covariance(Z)
    noisy = shrink * K + (1 - shrink) * np.eye(len(K))
    clean, estimate = intrinsic_dimension(K, kernel), intrinsic_dimension(noisy, kernel)
    assert abs(estimate - clean) < 0.1 * clean
    assert abs(clean - dimension) < 0.3 * dimension


graph_cases = st.tuples(st.integers(1, 60), st.floats(0.0, 0.3), st.booleans(), st.integers(0, 10_000))


@settings(max_examples=examples(60), deadline=None)
@given(case=graph_cases, n_jobs=st.sampled_from([None, 2]))
def test_shortest_paths_agree_with_scipy(case, n_jobs):
    """`shortest_paths` against SciPy's Dijkstra on random graphs: directed or not, with explicit zero weights, loops,
    isolated points and parts no path joins. Searched rows are SciPy's bit for bit, rows read off their neighbours' rows
    agree to a few units in float64's last place (inf exactly where SciPy has it), and the float32 result is SciPy's
    rounded; given as explicit sources, every row is searched (bit for bit); the points permuted, the table permuted."""
    from scipy import sparse
    from scipy.sparse.csgraph import dijkstra
    from ikd.shortest_paths import shortest_paths
    T, density, symmetric, seed = case
    rng = np.random.default_rng(seed)
    W = sparse.random(T, T, density=density, random_state=rng, format="csr",
                      data_rvs=lambda n: np.where(rng.uniform(size=n) < 0.1, 0.0, rng.uniform(0, 1, n)))
    if symmetric: W = (W + W.T).tocsr()
    exact = dijkstra(W, directed=True)
    together = shortest_paths(W, n_jobs=n_jobs, dtype=np.float64)
    assert np.array_equal(np.isinf(together), np.isinf(exact))
    finite = np.isfinite(exact)
    np.testing.assert_allclose(together[finite], exact[finite], rtol=4e-15)
    np.testing.assert_array_equal(shortest_paths(W, n_jobs=n_jobs), exact.astype(np.float32))
    np.testing.assert_array_equal(shortest_paths(W, n_jobs=n_jobs, dtype=np.float64, sources=np.arange(T)), exact)
    order = rng.permutation(T)
    np.testing.assert_array_equal(shortest_paths(W[order][:, order]), exact.astype(np.float32)[order][:, order])
