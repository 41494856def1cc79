"""The exact geodesic fit without T x T copies (issue 47, items 7 and 8).

g(D) is applied as an operator (never formed), the distances may be stored in float32, the intrinsic dimension reads
S once and keeps each point's strongest correlations. Each shortcut is checked against the computation it replaces:
`gram.gram` for the operator, float64 distances for float32 ones, full rows for the strongest correlations, and
tracemalloc for the memory the fit holds.
"""
import pickle
import tracemalloc
import warnings

import numpy as np
import pytest
from scipy.spatial import procrustes

from ikd import IKD
from ikd import dimension, estimator
from ikd.covariance import ROW_BLOCK
from ikd.datasets import gp_observations, ou_latent
from ikd.decompose import LAPACK_MAX_POINTS, decompose_distances, gram_operator
from ikd.geodesic import GeodesicSolver
from ikd.gram import gram
from ikd.kernels import get_kernel

SE = get_kernel("squared_exponential")


def noisy_distances(T, seed=0):
    "Squared distances of a 3-D cloud with symmetric noise: g(D) has 3 large eigenvalues and a noisy rest."
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((T, 3)) * [3.0, 2.0, 1.0]
    D = ((Z[:, None] - Z[None]) ** 2).sum(-1) + 0.05 * np.abs(rng.standard_normal((T, T)))
    D = (D + D.T) / 2
    np.fill_diagonal(D, 0.0)
    return D


@pytest.mark.parametrize("reference", ["centroid", "min_max", 7])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_gram_operator_applies_g_of_d(reference, dtype):
    "The operator times the identity is `gram.gram` of the same (float64-converted) matrix, to rounding."
    D = noisy_distances(300).astype(dtype)
    r = reference if reference != "min_max" else int(np.argmin(D.max(axis=1)))
    dense = gram(D.astype(np.float64), r)
    applied = gram_operator(D, r) @ np.eye(len(D))
    assert np.abs(applied - dense).max() <= 1e-12 * np.abs(dense).max()


@pytest.mark.parametrize("reference", ["centroid", "min_max"])
def test_lanczos_on_the_operator_matches_lapack_on_the_matrix(reference):
    """Above `LAPACK_MAX_POINTS` the decomposition runs Lanczos on the operator: its eigenpairs and explained variance
    are LAPACK's on the formed g(D), to rounding (the top three eigenvalues are well separated)."""
    D = noisy_distances(LAPACK_MAX_POINTS + 250)
    found = decompose_distances(D, 3, reference=reference, random_state=0)
    G = gram(D, found.reference_index)
    values, vectors = np.linalg.eigh(G)
    np.testing.assert_allclose(found.eigenvalues, values[::-1][:3], rtol=1e-10)
    np.testing.assert_allclose(found.explained_variance_ratio, values[::-1][:3] ** 2 / np.sum(G * G), rtol=1e-10)
    assert procrustes(found.embedding, vectors[:, ::-1][:, :3] * np.sqrt(values[::-1][:3]))[2] < 1e-20


def test_float32_distances_give_the_float64_embedding_within_their_rounding():
    """float32 storage rounds each distance by at most 2^-24 relative (6e-8); the products are summed in float64, so
    the embedding moves by that rounding over the relative eigengap (Davis-Kahan), here about 0.3: allowed 1e-6."""
    D = noisy_distances(700)
    wide = decompose_distances(D, 2, reference="centroid", random_state=0)
    narrow32 = D.astype(np.float32)
    kept = narrow32.copy()
    narrow = decompose_distances(narrow32, 2, reference="centroid", random_state=0)
    np.testing.assert_array_equal(narrow32, kept)  # read, not overwritten: no centred copy is made in its memory
    assert np.sqrt(procrustes(wide.embedding, narrow.embedding)[2]) < 1e-6
    np.testing.assert_allclose(narrow.explained_variance_ratio, wide.explained_variance_ratio, rtol=1e-6)


def clustered(n_clusters=30, size=40, spread=0.01, seed=0):
    "Tight clusters: every point's strongest correlations are its cluster's, all within the noise radius."
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((n_clusters, 50))
    return np.repeat(centres, size, axis=0) + spread * rng.standard_normal((n_clusters * size, 50))


@pytest.mark.parametrize("data", ["gp", "clustered"])
@pytest.mark.parametrize("n_features", [None, "N"])
def test_dimension_from_the_strongest_correlations_equals_the_full_rows(data, n_features, monkeypatch):
    """The reading from each point's `STRONGEST_KEPT` correlations, with the rows that need more read again in full,
    equals the reading from every full row (a width of T), and from the narrowest width (2k), which reads many rows
    again on clustered data."""
    X = gp_observations(ou_latent(600, 2, random_state=0), 60, noise=0.05, random_state=0) if data == "gp" else clustered()
    S = np.corrcoef(X)
    N = None if n_features is None else X.shape[1]
    readings = {}
    for width in (dimension.STRONGEST_KEPT, len(S), 1):
        monkeypatch.setattr(dimension, "STRONGEST_KEPT", width)
        readings[width] = dimension.dimension_reading(S, SE, 7, N)
    full = readings[len(S)]
    for width, reading in readings.items():
        assert reading.estimate == pytest.approx(full.estimate, rel=1e-12), width
        assert reading.noise_ranked_share == full.noise_ranked_share, width


def traced_peak(function):
    "Peak bytes traced while `function` runs, above what was held when it started."
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        function()
        return tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()


T_MEMORY = 3000


@pytest.fixture(scope="module")
def gp_covariance():
    X = gp_observations(ou_latent(T_MEMORY, 2, random_state=0), 50, lengthscale=3.0, noise=0.05, random_state=0)
    return X, np.corrcoef(X)


def test_dimension_reading_holds_bands_not_a_matrix(gp_covariance, monkeypatch):
    """Reading m-hat holds a few row bands at a time (it once kept a view of every band's partition: a T x T matrix,
    which is 47 of these 64-row bands)."""
    _, S = gp_covariance
    monkeypatch.setattr(dimension, "ROW_BLOCK", 64)
    band = 8 * 64 * T_MEMORY
    peak = traced_peak(lambda: dimension.dimension_reading(S, SE, 7, 50))
    assert peak <= 8 * band, f"{peak / band:.1f} bands"


def test_geodesic_solve_writes_its_distances_over_the_covariance(gp_covariance):
    """With overwrite the distances take S's memory: the solve holds the float32 path lengths and a few bands beyond S.
    Without it they are a new float64 matrix holding the same numbers, so that the fit does not depend on overwrite."""
    _, S = gp_covariance
    T = len(S)
    solver = lambda: GeodesicSolver(n_neighbors=7, path="distance")
    kept = solver().solve(S.copy(), SE).distances
    assert kept.dtype == np.float64
    S_overwritten = S.copy()
    peak = traced_peak(lambda: setattr(test_geodesic_solve_writes_its_distances_over_the_covariance, "solution",
                                       solver().solve(S_overwritten, SE, overwrite=True)))
    D = test_geodesic_solve_writes_its_distances_over_the_covariance.solution.distances
    assert np.shares_memory(D, S_overwritten)
    np.testing.assert_array_equal(kept, D)
    assert peak <= 4 * T * T + 4 * 8 * ROW_BLOCK * T, f"{peak / (8 * T * T):.2f} x 8 T^2 bytes"


def test_exact_fit_holds_the_covariance_and_the_path_lengths_only(gp_covariance):
    """A whole exact geodesic fit peaks at S (8 T^2 bytes) and the float32 path lengths (4 T^2), plus bands: no
    float64 T x T copy (a formed g(D), a float64 conversion of the distances) fits under this bound."""
    X, _ = gp_covariance
    T = len(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peak = traced_peak(lambda: IKD(2, n_landmarks=None).fit(X))
    assert peak <= 12 * T * T + 4 * 8 * ROW_BLOCK * T, f"{peak / (8 * T * T):.2f} x 8 T^2 bytes"


def test_exact_fit_from_the_rows_holds_the_path_lengths_only(gp_covariance, monkeypatch):
    """Past `estimator.EXACT_FROM_ROWS_POINTS` rows the exact geodesic fit never forms S: its graph comes from the rows in
    bands and its distances overwrite the float32 path lengths, so it peaks at 4 T^2 bytes plus bands (the fit with S
    needs 12 T^2), and it fits the same map."""
    X, _ = gp_covariance
    T = len(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with_covariance = IKD(2, n_landmarks=None).fit(X)
        monkeypatch.setattr(estimator, "EXACT_FROM_ROWS_POINTS", T - 1)
        peak = traced_peak(lambda: setattr(test_exact_fit_from_the_rows_holds_the_path_lengths_only, "model",
                                           IKD(2, n_landmarks=None).fit(X)))
    from_rows = test_exact_fit_from_the_rows_holds_the_path_lengths_only.model
    assert "without the T x T covariance" in from_rows.settings_.describe()
    assert peak <= 4 * T * T + 2 ** 22 * 8 + 4 * 8 * ROW_BLOCK * T, f"{peak / (4 * T * T):.2f} x 4 T^2 bytes"
    assert procrustes(with_covariance.embedding_, from_rows.embedding_)[2] < 1e-10


def ring_clusters(seed=0):
    "Three rings far apart in 40 squared-exponential features: a trusted graph of three components."
    rng = np.random.default_rng(seed)
    angle = rng.uniform(0, 2 * np.pi, 300)
    Z = np.c_[np.cos(angle), np.sin(angle)] + np.repeat([[0, 0], [10, 0], [0, 10]], 100, axis=0)
    centres = rng.normal(size=(40, 2)) * 6
    return np.exp(-((Z[:, None] - centres) ** 2).sum(-1) / 4) + 0.01 * rng.normal(size=(300, 40))


def sparse_counts(seed=1):
    from scipy import sparse
    X = sparse.random(500, 200, density=0.05, random_state=seed, format="csr")
    X.data = np.abs(X.data)
    return X


GP_SMALL = gp_observations(ou_latent(600, 3, random_state=1), 60, lengthscale=3.0, noise=0.05, random_state=1)


@pytest.mark.parametrize("options, X", [
    (dict(n_components=3), GP_SMALL),
    (dict(n_components=3, path="product"), GP_SMALL),
    (dict(n_components=3, covariance="covariance"), GP_SMALL * np.linspace(0.5, 2.0, 600)[:, None]),
    (dict(n_components=3, threshold=0.5), GP_SMALL),
    (dict(n_components=3, refine=True, reference="min_max"), GP_SMALL),
    (dict(n_components=2, refine=False), np.r_[GP_SMALL, GP_SMALL[:40]]),  # copies merged over every row
    (dict(n_components=2), ring_clusters()),  # components joined
    (dict(n_components=2), sparse_counts()),  # sparse rows, never densified
], ids=["distance", "product", "covariance", "threshold", "refined-min-max", "copies", "components", "sparse"])
def test_exact_fit_from_the_rows_is_the_exact_fit(options, X, monkeypatch):
    """Every option of the geodesic solver gives the same map, settings, new points and pickle by either route: the
    float32 distances differ from the float64 ones by their rounding only."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with_covariance = IKD(**options, n_landmarks=None, random_state=0).fit(X)
        monkeypatch.setattr(estimator, "EXACT_FROM_ROWS_POINTS", 10)
        from_rows = IKD(**options, n_landmarks=None, random_state=0).fit(X)
        for model in (with_covariance, from_rows): model.new_points_ = model.transform(X[:30])
        unpickled = pickle.loads(pickle.dumps(from_rows))
        again = unpickled.transform(X[:30])
    assert "without the T x T covariance" in from_rows.settings_.describe()
    assert "without the T x T covariance" not in with_covariance.settings_.describe()
    assert not hasattr(from_rows, "landmark_indices_")
    assert from_rows.settings_.intrinsic_dimension == pytest.approx(with_covariance.settings_.intrinsic_dimension, rel=1e-9)
    assert (from_rows.settings_.refine, from_rows.settings_.reference) == (with_covariance.settings_.refine,
                                                                           with_covariance.settings_.reference)
    assert from_rows.variance_ == pytest.approx(with_covariance.variance_, rel=1e-12)
    scale = np.abs(with_covariance.embedding_).max()
    assert procrustes(with_covariance.embedding_, from_rows.embedding_)[2] < 1e-10
    np.testing.assert_allclose(np.abs(from_rows.embedding_), np.abs(with_covariance.embedding_), atol=1e-5 * scale)
    np.testing.assert_allclose(np.abs(from_rows.new_points_), np.abs(with_covariance.new_points_), atol=1e-5 * scale)
    np.testing.assert_array_equal(again, from_rows.new_points_)  # the paths recomputed after unpickling


def test_exact_fit_from_the_rows_refuses_data_without_a_positive_pair(monkeypatch):
    monkeypatch.setattr(estimator, "EXACT_FROM_ROWS_POINTS", 10)
    with pytest.raises(ValueError, match="no two points have a positive covariance"):
        IKD(2, n_landmarks=None).fit(np.eye(40))


def disjoint_rings(T_each=200, seed=0):
    "Three noisy rings on disjoint blocks of 20 features: components that share no positive covariance."
    rng = np.random.default_rng(seed)
    X = np.zeros((3 * T_each, 60))
    for part in range(3):
        angle = rng.uniform(0, 2 * np.pi, T_each)
        centres = rng.normal(size=(20, 2)) * 2
        ring = np.c_[np.cos(angle), np.sin(angle)]
        X[part * T_each:(part + 1) * T_each, 20 * part:20 * (part + 1)] = (
            np.exp(-((ring[:, None] - centres) ** 2).sum(-1)) + 0.05 * rng.normal(size=(T_each, 20)))
    return X


def test_exact_fit_from_the_rows_links_components_as_the_exact_fit(monkeypatch):
    """Components with no positive covariance between them are linked at the floor s0, an order statistic of every
    pair's correlation: read from every row (not from a sample, which moved it with random_state)."""
    from ikd import landmarks
    X = disjoint_rings()
    monkeypatch.setattr(landmarks, "DIMENSION_POINTS", 100)  # a sample, if anything read one, would be a sixth of the rows
    with pytest.warns(RuntimeWarning, match="share no positive covariance"):  # so the floor links them
        with_covariance = IKD(2, n_landmarks=None, refine=False).fit(X).embedding_
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        monkeypatch.setattr(estimator, "EXACT_FROM_ROWS_POINTS", 10)
        maps = [IKD(2, n_landmarks=None, refine=False, random_state=seed).fit(X).embedding_ for seed in (0, 1)]
    for from_rows in maps:
        assert procrustes(with_covariance, from_rows)[2] < 1e-10


def test_an_empty_threshold_graph_is_joined_not_refused():
    "A threshold above every correlation leaves no trusted pair: its components are joined (with a warning), as before."
    X = gp_observations(ou_latent(300, 2, random_state=0), 40, lengthscale=3.0, noise=0.05, random_state=0)
    with pytest.warns(RuntimeWarning, match="connected components"):
        embedding = IKD(2, threshold=0.99999, n_landmarks=50).fit_transform(X)
    assert np.isfinite(embedding).all() and embedding.std(axis=0).min() > 0


def test_single_precision_overflow_is_named(monkeypatch):
    "Max-product paths so long that f^-1 passes float32's range: refused by cause, not as a matrix 'not finite'."
    X = gp_observations(np.linspace(0, 300, 1500)[:, None], 60, lengthscale=1.0, noise=0.5, random_state=0)
    monkeypatch.setattr(estimator, "EXACT_FROM_ROWS_POINTS", 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="single precision"):
            IKD(2, n_landmarks=None, kernel="rational_quadratic", kernel_params={"alpha": 0.4}, path="product").fit(X)


def test_paths_are_recomputed_once_for_threads_transforming_together(monkeypatch):
    "Four threads transforming a fresh fit from the rows (as Dask's threaded scheduler does) compute the T x T paths once."
    from concurrent.futures import ThreadPoolExecutor
    from ikd import landmarks
    X = GP_SMALL
    monkeypatch.setattr(estimator, "EXACT_FROM_ROWS_POINTS", 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = IKD(3, n_landmarks=None).fit(X)
    calls = []
    computed = landmarks.shortest_paths
    monkeypatch.setattr(landmarks, "shortest_paths", lambda *args, **kwargs: calls.append(1) or computed(*args, **kwargs))
    with ThreadPoolExecutor(4) as pool: placed = list(pool.map(model.transform, [X[:20]] * 4))
    assert len(calls) == 1
    for each in placed: np.testing.assert_array_equal(each, placed[0])


def test_an_unfitted_landmark_solver_pickles():
    "A solver given as a parameter is pickled with the unfitted model: it has no landmarks yet to ask about."
    from ikd.landmarks import LandmarkGeodesicSolver
    model = pickle.loads(pickle.dumps(IKD(2, solver=LandmarkGeodesicSolver(n_neighbors=7))))
    assert model.solver.get_params()["n_neighbors"] == 7
