"""Issue 33's causes in the estimator's core, one test per cause; each failed before its fix (checked against a
`git worktree` of the commit before, on PYTHONPATH). `scripts/reliability_probes.py` counts the same probes."""
import tracemalloc
import warnings

import numpy as np
import pytest
from scipy import sparse
from scipy.spatial import procrustes
from sklearn.datasets import load_digits

from ikd import IKD
from ikd.blockwise import BlockwiseSolver
from ikd.covariance import sample_covariance
from ikd.datasets import gp_observations, ou_latent
from ikd.dimension import doubling_dimension, intrinsic_dimension
from ikd.kernels import get_kernel
from ikd.metrics import affine_r2


def quietly(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


@pytest.fixture(scope="module")
def gp():
    "The issue's GP data: a 2-D latent, 400 fitted and 200 held-out points, 300 features."
    Z = ou_latent(600, 2, random_state=7)
    return Z, gp_observations(Z, 300, random_state=7)


@pytest.mark.parametrize("order", ["reversed", "shuffled"])
def test_landmark_list_covering_every_row_keeps_row_order(gp, order):
    Z, X = gp[0][:400], gp[1][:400]
    indices = np.arange(400)[::-1] if order == "reversed" else np.random.default_rng(0).permutation(400)
    model = quietly(lambda: IKD(landmarks=indices).fit(X))
    assert affine_r2(model.embedding_, Z) > 0.99
    assert np.abs(model.transform(X) - model.embedding_).max() < 1e-4 * np.abs(model.embedding_).max()


@pytest.mark.parametrize("params", [{}, {"threshold": 0.5}, {"n_landmarks": 150}, {"path": "product"},
                                    {"solver": "full", "refine": True}])
def test_covariance_option_reads_pairs_as_correlations(gp, params):
    "Rows of different variances: each pair is judged by s_ij / sqrt(s_ii s_jj), in fit and in transform."
    Z, X = gp
    as_correlation = quietly(lambda: IKD(**params).fit(X[:400]))
    model = quietly(lambda: IKD(covariance="covariance", **params).fit(X[:400]))
    assert affine_r2(model.embedding_, Z[:400]) > affine_r2(as_correlation.embedding_, Z[:400]) - 0.01
    assert affine_r2(model.transform(X[400:]), Z[400:]) > affine_r2(as_correlation.transform(X[400:]), Z[400:]) - 0.01


def test_covariance_option_decoder_round_trip(gp):
    X = gp[1][:400]
    errors = {}
    for kind in ("correlation", "covariance"):
        model = quietly(lambda: IKD(covariance=kind).fit(X))
        errors[kind] = np.linalg.norm(model.inverse_transform(model.embedding_) - X) / np.linalg.norm(X)
    assert errors["covariance"] < 1.2 * errors["correlation"] < 0.2


@pytest.mark.parametrize("refine", [False, True])
def test_tied_correlations_do_not_depend_on_row_order_or_sparsity(refine):
    "Binary digits tie often: the k-NN graph takes every point tied with the k-th, so the order of rows cannot matter."
    X = (load_digits().data[:600] > 8).astype(float)
    order = np.random.default_rng(1).permutation(len(X))
    U = quietly(lambda: IKD(refine=refine).fit_transform(X))
    permuted = np.empty_like(U)
    permuted[order] = quietly(lambda: IKD(refine=refine).fit_transform(X[order]))
    from_sparse = quietly(lambda: IKD(refine=refine).fit_transform(sparse.csr_matrix(X)))
    assert procrustes(U, permuted)[2] < 1e-10
    assert procrustes(U, from_sparse)[2] < 1e-10


@pytest.mark.parametrize("refine", [False, True])
def test_full_solver_is_stable_under_tiny_changes_of_the_data(refine):
    "The GP generator's output differs by ~2e-6 between BLAS thread counts; the full solver must not amplify that."
    Z = ou_latent(1000, 3, random_state=0)
    X = gp_observations(Z, 50, lengthscale=3.0, noise=0.05, random_state=0)
    nudged = X + 2e-6 * np.random.default_rng(5).standard_normal(X.shape)
    scores = [affine_r2(quietly(lambda: IKD(3, solver="full", refine=refine).fit_transform(data)), Z) for data in (X, nudged)]
    assert abs(scores[0] - scores[1]) < 1e-5


def test_sparse_score_and_decoder_never_build_dense_rows():
    "300 points, 300 000 sparse features: a dense 300 x 300 000 array would be 720 MB."
    rng = np.random.default_rng(0)
    X = sparse.random(300, 300_000, density=60_000 / (300 * 300_000), random_state=0, format="csr")
    X.data = rng.normal(size=X.nnz) ** 2 + 0.1
    model = quietly(lambda: IKD(2).fit(X))  # so few shared features leave the trusted graph in pieces
    tracemalloc.start()
    score = model.score(X)
    decoded = model.inverse_transform(model.embedding_[:5])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 150e6, f"peak {peak / 1e6:.0f} MB"
    dense = quietly(lambda: IKD(2).fit(X[:, :20_000].toarray()))  # a dense slice agrees with its sparse twin
    twin = quietly(lambda: IKD(2).fit(X[:, :20_000]))
    assert np.isfinite(score) and decoded.shape == (5, 300_000)
    assert twin.score(X[:, :20_000]) == pytest.approx(dense.score(X[:, :20_000].toarray()), rel=1e-9)
    assert np.allclose(twin.inverse_transform(twin.embedding_[:5]), dense.inverse_transform(dense.embedding_[:5]),
                       atol=1e-9 * np.abs(X.data).max())


@pytest.mark.parametrize("factor", [1e-300, 1e306])
def test_decoder_does_not_overflow_at_extreme_scales(gp, factor):
    X = gp[1][:200]
    plain, scaled = IKD().fit(X), IKD().fit(X * factor)
    decoded = scaled.inverse_transform(scaled.embedding_[:10])
    assert np.all(np.isfinite(decoded))
    assert np.allclose(decoded / factor, plain.inverse_transform(plain.embedding_[:10]), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("S, words", [(np.eye(200), "covaries positively"), (np.ones((200, 100)), "square"),
                                      (np.full((50, 50), np.nan), "NaN"), (-np.eye(50), "positive diagonal")])
def test_doubling_dimension_refuses_what_it_cannot_measure(S, words):
    with pytest.raises(ValueError, match=words):
        doubling_dimension(S, get_kernel("squared_exponential"))


def test_decomposing_all_zero_distances_is_refused():
    "What a solver would give for points that are all one point: no embedding but a single point, refused by name."
    from ikd.decompose import decompose_distances
    with pytest.raises(ValueError, match="every estimated distance is 0"):
        decompose_distances(np.zeros((6, 6)), 2)


@pytest.mark.parametrize("solver", ["full", "blockwise"])
def test_all_zero_distances_are_refused(solver):
    """Two groups of identical rows, anti-correlated: every usable distance was 0, and the fit an all-zero embedding.
    Positive multiples of a row standardise to rows equal up to rounding, which are one point since copies up to
    rounding are merged: both forms are two distinct points, refused by name."""
    row = np.random.default_rng(0).normal(size=20)
    multiples = np.linspace(1.0, 7.0, 30)[:, None]  # positive multiples: each pair correlated 1 (or -1) up to rounding
    for X in (np.r_[multiples * row, -multiples * row], np.r_[np.tile(row, (30, 1)), np.tile(-row, (30, 1))]):
        with pytest.raises(ValueError, match="only 2 distinct rows"):
            quietly(lambda: IKD(solver=solver).fit(X))


@pytest.mark.parametrize("refine", [False, True])
def test_duplicated_rows_are_the_points_they_copy(gp, refine):
    "Every row twice: copies are not neighbours for the dimension estimate, and the refinement keeps them together."
    Z, X = gp[0][:300], gp[1][:300]
    once = quietly(lambda: IKD(refine=refine).fit(X))
    twice = quietly(lambda: IKD(refine=refine).fit(np.r_[X, X]))
    assert np.abs(twice.embedding_[:300] - twice.embedding_[300:]).max() < 1e-9 * np.abs(twice.embedding_).max()
    assert twice.settings_.describe().split(", intrinsic")[0] == once.settings_.describe().split(", intrinsic")[0]
    assert affine_r2(twice.embedding_[:300], Z) > affine_r2(once.embedding_, Z) - 0.01


def test_landmarks_from_too_few_distinct_rows_are_refused():
    rows = np.random.default_rng(0).normal(size=(3, 10))
    with pytest.raises(ValueError, match="only 3 distinct rows"):
        quietly(lambda: IKD(n_landmarks=10).fit(np.repeat(rows, 20, axis=0)))


def test_covariance_option_at_extreme_scale(gp):
    "Variances near 1e200 (X * 1e100): correlations from sqrt(s_ii) sqrt(s_jj), never the overflowing s_ii s_jj."
    X = gp[1][:300]
    plain = quietly(lambda: IKD(covariance="covariance").fit_transform(X))
    scaled = quietly(lambda: IKD(covariance="covariance").fit_transform(X * 1e100))
    assert procrustes(plain, scaled)[2] < 1e-12


@pytest.mark.parametrize("refine", [False, True])
def test_full_solver_on_binary_data_is_order_and_sparsity_free(gp, refine):
    "Binary rows have exact zero correlations that products round to +-1e-17: they must all read as unknown."
    X = (gp[1][:200] > 0).astype(float)
    order = np.random.default_rng(2).permutation(len(X))
    U = quietly(lambda: IKD(solver="full", refine=refine).fit_transform(X))
    permuted = np.empty_like(U)
    permuted[order] = quietly(lambda: IKD(solver="full", refine=refine).fit_transform(X[order]))
    from_sparse = quietly(lambda: IKD(solver="full", refine=refine).fit_transform(sparse.csr_matrix(X)))
    assert procrustes(U, permuted)[2] < 1e-10
    assert procrustes(U, from_sparse)[2] < 1e-10


def test_full_solver_reads_pairs_as_correlations(gp):
    "Per-row scales from 1e-150 to 1e150 in covariance mode: the full solver judges pairs as the others do."
    Z, X = gp[0][:200], gp[1][:200]
    scales = 10 ** np.random.default_rng(0).uniform(-150, 150, 200)
    plain = quietly(lambda: IKD(solver="full").fit_transform(X))
    scaled = quietly(lambda: IKD(covariance="covariance", solver="full").fit_transform(X * scales[:, None]))
    assert affine_r2(scaled, Z) == pytest.approx(affine_r2(plain, Z), abs=1e-6)


@pytest.mark.parametrize("factor", [1e-161, 1e154])
def test_covariances_at_the_edge_of_float64_are_refused(gp, factor):
    X = gp[1][:100]
    unit = (X - X.mean(axis=1, keepdims=True)) / X.std(axis=1, keepdims=True)
    with pytest.raises(ValueError, match="over- or underflows"):
        IKD(covariance="covariance").fit(unit * factor)


def test_stored_zeros_do_not_split_copies(gp):
    X = sparse.csr_array(gp[1][:100])
    X.data[np.abs(X.data) < 0.3] = 0.0  # stored, not removed
    copies = X[:30].copy()
    copies.eliminate_zeros()
    both = sparse.vstack([X, copies]).tocsr()
    assert procrustes(quietly(lambda: IKD().fit_transform(both)), quietly(lambda: IKD().fit_transform(both.toarray())))[2] < 1e-12


@pytest.mark.parametrize("noise", [0.05, 0.1])
def test_noisy_one_dimensional_latent_gets_distance_paths(noise):
    """Item 13: on a densely sampled 1-D latent the 7 nearest correlations are ordered by noise, and read there m-hat was
    4.4 / 6.3, so `auto` chose max-product paths (affine R^2 0.915 / 0.921). Read beyond the noise radius it is below 2,
    and the defaults take distance paths; since issue 44 (item 4) unrefined, because most of the graph's edges lie inside
    the noise radius, where refinement fits noise."""
    Z = ou_latent(500, 1, random_state=3)
    X = gp_observations(Z, 200, lengthscale=3.0, noise=noise, random_state=3)
    model = quietly(lambda: IKD(1).fit(X))
    assert model.settings_.intrinsic_dimension < 2
    assert model.solver_.path == "distance" and not model.settings_.refine
    assert affine_r2(model.embedding_, Z) > 0.97


@pytest.mark.parametrize("m, noise", [(2, 0.1), (2, 0.2), (4, 0.1)])
def test_noise_radius_keeps_surfaces_and_higher_dimensions(m, noise):
    """The noise radius lowers what noise inflated and leaves what it did not: noisy 2-D latents read at most M + 1 = 3
    (3.4 and 5.7 without it), a 4-D latent, whose neighbours lie beyond the noise, within 0.3 of its reading without it."""
    X = gp_observations(ou_latent(1000, m, random_state=3), 200, lengthscale=3.0, noise=noise, random_state=3)
    model = quietly(lambda: IKD(m).fit(X))
    without = intrinsic_dimension(sample_covariance(X), model.kernel_)
    if m == 2: assert model.settings_.intrinsic_dimension <= 3 < without
    else: assert abs(model.settings_.intrinsic_dimension - without) < 0.3 and model.settings_.intrinsic_dimension > 3.5


def test_noise_radius_changes_nothing_without_noise():
    """Exact SE covariances of points in a box: the floor is the closest pair's distance, not noise, so the radius is
    tiny and the estimate stays Levina–Bickel's (2.79 against 2.81 with N = 50)."""
    se = get_kernel("squared_exponential")
    K = se.covariance(np.random.default_rng(0).uniform(0, 4, size=(800, 3)))
    assert abs(intrinsic_dimension(K, se, n_features=50) - intrinsic_dimension(K, se)) < 0.05


def test_noise_radius_estimate_is_row_order_invariant():
    X = gp_observations(ou_latent(500, 1, random_state=3), 200, lengthscale=3.0, noise=0.05, random_state=3)
    se, perm = get_kernel("squared_exponential"), np.random.default_rng(1).permutation(500)
    S = sample_covariance(X)
    assert intrinsic_dimension(S[np.ix_(perm, perm)], se, n_features=200) == pytest.approx(
        intrinsic_dimension(S, se, n_features=200), rel=1e-9)


@pytest.mark.parametrize("option, value, message", [("n_features", 0, "n_features"), ("n_features", 2.5, "n_features"),
                                                    ("n_features", True, "n_features"), ("tolerance", 0.0, "tolerance"),
                                                    ("reach", 1.0, "reach"), ("floor_shift", -1.0, "floor_shift"),
                                                    ("floor_shift", np.nan, "floor_shift"),
                                                    ("floor_shift", 1e6, "floor_shift"), ("reach", 1e300, "reach"),
                                                    ("n_neighbors", 7.0, "n_neighbors"), ("tolerance", np.nan, "tolerance")])
def test_noise_radius_options_are_checked(option, value, message):
    S = sample_covariance(gp_observations(ou_latent(100, 1, random_state=0), 50, random_state=0))
    options = {"n_features": 50, option: value}
    with pytest.raises(ValueError, match=message):
        intrinsic_dimension(S, get_kernel("squared_exponential"), **options)


def test_noise_radius_refuses_nan_and_reads_numpy_integers_as_integers():
    """A NaN in S is refused by name (it gave inf, which sends `path="auto"` to max-product paths); N as a small NumPy
    integer type gives the estimate of the same Python int (N ** 2 overflowed in np.uint8)."""
    se = get_kernel("squared_exponential")
    S = sample_covariance(gp_observations(ou_latent(300, 2, random_state=0), 100, noise=0.1, random_state=0))
    assert intrinsic_dimension(S, se, n_features=np.uint8(100)) == intrinsic_dimension(S, se, n_features=100)
    S[3, 5] = S[5, 3] = np.nan
    for n_features in (None, 100):
        with pytest.raises(ValueError, match="NaN"):
            intrinsic_dimension(S, se, n_features=n_features)


def test_noise_radius_never_reads_above_the_plain_estimate():
    """Fig. 4's easy latent drawn with the gamma-exponential kernel and fitted with the SE kernel: the annulus read 4.2
    there (the plain estimate 2.5), which sent 98 of the 140 full-run trials to max-product paths (R^2 0.81 against
    0.92 at N = 1000). Noise only inflates the plain estimate, so the estimate is the lower of the two."""
    from ikd.experiments import latent_data
    X, Z = latent_data("easy", "gamma_exponential", 1000, 0)
    model = quietly(lambda: IKD(3).fit(X))
    plain = intrinsic_dimension(sample_covariance(X), model.kernel_)
    assert model.settings_.intrinsic_dimension <= plain
    assert model.solver_.path == "distance" and model.settings_.refine and affine_r2(model.embedding_, Z) > 0.9


# --- found after the list: copies up to rounding, the landmark fit's dimension sample, rounding in m-hat ------

def test_copies_up_to_rounding_do_not_take_the_places_of_neighbours(gp):
    """Every row given twice, once with its last digits changed: the 7-NN graph gave each point its twin and three
    neighbours with theirs, R^2 0.995 -> 0.832. Now each pair is fitted once."""
    Z, X = gp[0][:300], gp[1][:300]
    twins = X * (1 + 1e-15 * np.random.default_rng(0).standard_normal(X.shape))
    plain = quietly(lambda: IKD(refine=True).fit_transform(X))
    doubled = quietly(lambda: IKD(refine=True).fit_transform(np.r_[X, twins]))
    assert affine_r2(doubled[:300], Z) > 0.99
    assert procrustes(plain, doubled[:300])[2] < 1e-12 and np.abs(doubled[:300] - doubled[300:]).max() == 0


def test_precomputed_covariance_with_repeated_points_is_the_fit_of_its_rows(gp):
    """A precomputed covariance whose points repeat (rows and columns) was fitted with every copy taking a neighbour's
    place, 4e-4 from the fit of the rows (which merges copies). Now its copies are merged too, and `transform` reads
    only the fitted points' columns."""
    X = np.r_[gp[1][:300], gp[1][:50]]
    S = sample_covariance(X)
    precomputed, rows = IKD(covariance="precomputed"), IKD()
    quietly(lambda: (precomputed.fit(S), rows.fit(X)))
    assert procrustes(precomputed.embedding_, rows.embedding_)[2] < 1e-12
    assert np.abs(precomputed.embedding_[300:] - precomputed.embedding_[:50]).max() == 0
    assert np.abs(precomputed.transform(S[:20]) - precomputed.embedding_[:20]).max() < 1e-8 * np.abs(precomputed.embedding_).max()
    with pytest.raises(ValueError, match="350"):
        precomputed.transform(S[:20, :300])


def test_a_landmark_fit_chooses_its_settings_whatever_the_row_order():
    """The dimension sample of a landmark fit was drawn by position: on Poisson counts the path and refinement changed
    with the row order in 3 of 8 data sets. It is now drawn by the rows' content, and so are random landmarks."""
    for seed in range(8):
        X = np.random.default_rng(seed).poisson(1.0, size=(600, 40)).astype(float)
        order = np.random.default_rng(100 + seed).permutation(len(X))
        for rule in ("farthest", "random"):
            first = quietly(lambda: IKD(n_landmarks=150, landmarks=rule).fit(X))
            second = quietly(lambda: IKD(n_landmarks=150, landmarks=rule).fit(X[order]))
            assert second.settings_.describe() == first.settings_.describe()
            assert procrustes(first.embedding_, second.embedding_[np.argsort(order)])[2] < 1e-12


def test_intrinsic_dimension_does_not_move_with_the_rounding_of_near_zero_correlations():
    """On Poisson counts the noise radius trusted correlations near 0, where f^-1 of the last digit swings a squared
    distance from 78 to 1416: the same covariance computed in another row order read 3.97 instead of 3.89."""
    from ikd.covariance import covariance_from_rows, covariance_rows
    rows = covariance_rows(np.random.default_rng(5).poisson(1.0, size=(150, 40)).astype(float))
    order = np.random.default_rng(0).permutation(150)
    se = get_kernel("squared_exponential")
    first = intrinsic_dimension(covariance_from_rows(rows, "correlation"), se, n_features=40)
    second = intrinsic_dimension(covariance_from_rows(rows[order], "correlation"), se, n_features=40)
    assert first == pytest.approx(second, rel=1e-9, abs=1e-12)


def test_dimension_estimators_refuse_an_asymmetric_matrix(gp):
    S = sample_covariance(gp[1][:200])
    S[0, 1] += 0.3
    se = get_kernel("squared_exponential")
    for estimate in (lambda: intrinsic_dimension(S, se), lambda: doubling_dimension(S, se)):
        with pytest.raises(ValueError, match="symmetric"):
            estimate()


def test_landmarks_given_with_copies_keep_the_order_given(gp):
    X = np.r_[gp[1][:100], gp[1][:100]]
    given = [150, 3, 120, 40, 7, 60, 80, 99, 10, 20, 30]  # 150 and 120 are copies of rows 50 and 20
    model = quietly(lambda: IKD(landmarks=given).fit(X))
    assert model.landmark_indices_.tolist() == [50, 3, 20, 40, 7, 60, 80, 99, 10, 30]


@pytest.mark.parametrize("path", ["distance", "product"])
@pytest.mark.parametrize("refine", [False, True])
def test_held_out_points_are_placed_as_well_as_the_fitted_ones(gp, path, refine):
    """New points were triangulated into the refined embedding with distances measured against the unrefined one: with
    max-product paths, which the refinement moves far, held-out R^2 0.907 against 0.997 for the fit. Now they are
    triangulated where their distances were measured and moved with their neighbours."""
    Z, X = gp
    model = quietly(lambda: IKD(path=path, refine=refine).fit(X[:400]))
    fitted, held_out = affine_r2(model.embedding_, Z[:400]), affine_r2(model.transform(X[400:]), Z[400:])
    assert held_out > fitted - 0.04, (fitted, held_out)


def test_random_landmarks_draw_rows_equal_up_to_rounding_once(gp):
    """Rows equal up to rounding share a content key: drawn together, 40 random landmarks of rows given twice were 20
    distinct points, and 6 were 3 ("X has only 3 distinct rows"). Each such row is now drawn once."""
    X = gp[1][:100]
    both = np.r_[X, X * (1 + 1e-15 * np.random.default_rng(0).standard_normal(X.shape))]
    model = quietly(lambda: IKD(landmarks="random", n_landmarks=40).fit(both))
    assert len(np.unique(model.landmark_indices_ % 100)) == 40
    quietly(lambda: IKD(landmarks="random", n_landmarks=6).fit(both))


def test_landmarks_that_are_one_point_are_refused_as_landmarks(gp):
    X = gp[1][:100]
    both = np.r_[X, X * (1 + 1e-15 * np.random.default_rng(0).standard_normal(X.shape))]
    with pytest.raises(ValueError, match="the 4 landmarks are only 3 distinct points"):
        quietly(lambda: IKD(landmarks=[0, 100, 1, 2]).fit(both))


def test_intrinsic_dimension_of_tied_count_data_does_not_move_with_row_order():
    """Counts whose strongest correlation is shared by several pairs: the points tied with it were excluded or not as
    rounding fell (1.53 against 1.83 on the same matrix in another row order, and a precomputed fit changed its path)."""
    rng = np.random.default_rng(609)
    latent = ou_latent(200, 1, random_state=9)
    counts = rng.poisson(0.3 * np.exp(np.sin(latent @ rng.standard_normal((1, 6)))))
    counts = counts[np.ptp(counts, axis=1) > 0].astype(float)
    order = np.random.default_rng(1).permutation(len(counts))
    se = get_kernel("squared_exponential")
    first, second = intrinsic_dimension(sample_covariance(counts), se), intrinsic_dimension(sample_covariance(counts[order]), se)
    assert first == pytest.approx(second, rel=1e-9)
    settings = [quietly(lambda S=S: IKD(1, covariance="precomputed").fit(S)).settings_.describe()
                for S in (sample_covariance(counts), sample_covariance(counts[order]))]
    assert settings[0] == settings[1]


def test_a_lattice_is_read_without_a_noise_floor():
    "An exact kernel matrix on a 2-D grid: every nearest neighbour at the one strongest correlation read 0.08."
    se = get_kernel("squared_exponential")
    grid = np.stack(np.meshgrid(np.arange(20.0), np.arange(20.0)), -1).reshape(-1, 2) / 3
    assert 1.5 < intrinsic_dimension(se.covariance(grid), se) < 3


def test_symmetry_is_judged_pair_by_pair_and_infinity_named(gp):
    "One large variance made the tolerance 1e-8 of it; an unmirrored inf was called asymmetry."
    se = get_kernel("squared_exponential")
    S = sample_covariance(gp[1][:200])
    lopsided = np.triu(S) + np.tril(sample_covariance(gp[1][200:400]), -1)
    lopsided[0, 0] = 1e9
    with pytest.raises(ValueError, match="symmetric"):
        intrinsic_dimension(lopsided, se)
    S[3, 7] = np.inf
    with pytest.raises(ValueError, match="NaN or infinite"):
        intrinsic_dimension(S, se)


def test_near_copies_beyond_rounding_are_warned_about(gp):
    "Rows given again with six significant digits: not one point, but each takes its twin's place in the k-NN graph."
    X = gp[1][:300]
    again = np.vectorize(lambda value: float(f"{value:.6g}"))(X)
    with pytest.warns(RuntimeWarning, match="near copy"):
        IKD().fit(np.r_[X, again])


def test_components_with_no_positive_covariance_between_them_are_linked_at_a_named_floor():
    """Two groups whose every cross correlation is negative: the link between them had length f^-1(0+), an accident of
    the kernel (about 38 for the squared exponential) or infinite (the rational quadratic, then a deep NumPy error).
    Now it is read as the weakest positive correlation, with a warning that the gap is arbitrary."""
    rng = np.random.default_rng(0)
    pattern = np.r_[np.ones(20), -np.ones(20)]
    X = np.r_[rng.normal(size=(50, 40)) + 3 * pattern, rng.normal(size=(50, 40)) - 3 * pattern]
    for kernel in ("squared_exponential", "rational_quadratic"):
        with pytest.warns(RuntimeWarning, match="arbitrary"):
            U = IKD(kernel=kernel).fit_transform(X)
        radius = np.linalg.norm(U - U.mean(axis=0), axis=1)
        assert np.isfinite(U).all() and radius.max() < 10 * np.median(radius)


def test_a_new_point_with_no_positive_covariance_is_warned_about(gp):
    "Placed 11 spans away without a word; its position is arbitrary, and transform says so."
    X = gp[1][:200]
    model = quietly(lambda: IKD().fit(X))
    opposite = -X.mean(axis=0, keepdims=True) + 0.01 * np.random.default_rng(0).standard_normal((1, X.shape[1]))
    with pytest.warns(RuntimeWarning, match="no fitted point"):
        model.transform(opposite)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.transform(X[:20])  # fitted rows covary with themselves: no warning


def test_an_exact_lattice_reads_the_same_whatever_its_rounding():
    "Shifting a grid changes only the rounding of its kernel matrix: the nearest pairs at the top were kept or dropped."
    import itertools
    se = get_kernel("squared_exponential")
    grid = np.array(list(itertools.product(np.arange(15.0), np.arange(15.0)))) * 0.5
    readings = [intrinsic_dimension(se.covariance(grid + shift), se) for shift in (0.0, 0.1, 1 / 3)]
    assert max(readings) - min(readings) < 1e-6, readings


def test_a_precomputed_covariance_at_extreme_scales_is_accepted_and_asymmetry_refused(gp):
    S = sample_covariance(gp[1][:200])
    for factor in (1e-200, 1e200):
        quietly(lambda: IKD(covariance="precomputed").fit(S * factor))
    lopsided = np.triu(S) + np.tril(sample_covariance(gp[1][200:400]), -1)
    lopsided[0, 0] = 1e9
    with pytest.raises(ValueError, match="symmetric"):
        IKD(covariance="precomputed").fit(lopsided)
    opposite = S.copy()
    opposite[0, 1], opposite[1, 0] = 1e308, -1e308
    with pytest.raises(ValueError, match="symmetric"):
        intrinsic_dimension(opposite, get_kernel("squared_exponential"))


def test_random_landmarks_that_merge_are_warned_about(gp):
    "Rows within the merge radius but apart at the keys' resolution can be drawn twice; the fit says how many points it fits."
    rows = np.repeat(gp[1][:100], 4, axis=0) * (1 + 1e-8 * np.random.default_rng(0).standard_normal((400, 300)))
    with pytest.warns(RuntimeWarning, match="landmarks are copies of others"):
        IKD(landmarks="random", n_landmarks=40).fit(rows)


# --- issue 44: the full solver's floor, near copies without chains ---------------------------------------------------

def test_full_solver_floors_the_fit_and_its_new_points_alike():
    """Item 1: the fit floored weak covariances only when some was <= 0, `transform` always. On rational-quadratic GP
    data every correlation is positive, and `transform` placed 28 of 300 training points up to 13% of the map away."""
    X = gp_observations(ou_latent(300, 2, random_state=7), 100, kernel="rational_quadratic", random_state=7)
    assert sample_covariance(X).min() > 0
    model = quietly(lambda: IKD(solver="full", kernel="rational_quadratic").fit(X))
    assert np.abs(model.transform(X) - model.embedding_).max() < 1e-9 * np.abs(model.embedding_).max()


def arc(step, n_points=200, n_features=50):
    "Rows on a great circle of the standardised rows, `step` radians apart: correlated at cos(step) with the next."
    directions = np.c_[np.ones(n_features), np.random.default_rng(1).normal(size=(n_features, 2))]
    u, v = np.linalg.qr(directions)[0][:, 1:].T  # orthonormal and centred: standardising keeps the arc
    angles = step * np.arange(n_points)
    return np.cos(angles)[:, None] * u + np.sin(angles)[:, None] * v, angles


@pytest.mark.parametrize("step", [1e-6, 2e-6])
def test_near_copies_merge_around_a_representative_not_along_chains(step):
    """Item 3: pairs at correlation 1 - 5e-13 (step 1e-6) were merged transitively, all 200 rows into one, and the fit
    refused with "X has only 1 distinct rows". Each representative now takes its neighbours at most: the arc is
    fitted (its angle recovered), in any row order."""
    X, angles = arc(step)
    embedding = quietly(lambda: IKD(1).fit_transform(X))
    assert affine_r2(embedding, angles[:, None]) > 0.95
    points = len(np.unique(embedding))
    assert (200 // 3 <= points <= 100) if step == 1e-6 else points == 200
    order = np.random.default_rng(0).permutation(200)
    permuted = np.empty_like(embedding)
    permuted[order] = quietly(lambda: IKD(1).fit_transform(X[order]))
    assert procrustes(embedding, permuted)[2] < 1e-9


def test_a_common_pattern_plus_a_small_signal_is_not_one_point():
    """Item 3: rows that are a common pattern plus a signal of 1e-6 of its size chained into one point and were refused.
    Here the signal moves along a line, 3e-5 of the pattern's size end to end: about 20 merging radii."""
    rng = np.random.default_rng(2)
    pattern, direction = rng.normal(size=(2, 60))
    direction *= 1e-6 * np.linalg.norm(pattern) / np.linalg.norm(direction)
    position = np.linspace(0, 30, 200)
    embedding = quietly(lambda: IKD(1).fit_transform(pattern + position[:, None] * direction))
    assert len(np.unique(embedding)) >= 10 and affine_r2(embedding, position[:, None]) > 0.95


@pytest.mark.parametrize("rounding", ["1e-15", "float32"])
def test_copies_up_to_rounding_still_merge(gp, rounding):
    """Copies up to float64's rounding and up to float32's (a relative 6e-8 per entry, a correlation of 1 - 1e-15 with
    the original) are one point for IKD: the fit with them added is the fit without them, every copy on its original."""
    X = gp[1][:300]
    copies = X * (1 + 1e-15) if rounding == "1e-15" else X.astype(np.float32).astype(np.float64)
    assert np.all(np.any(copies != X, axis=1))
    plain = quietly(lambda: IKD().fit_transform(X))
    both = quietly(lambda: IKD().fit_transform(np.r_[X, copies]))
    assert np.abs(both[300:] - both[:300]).max() == 0
    assert procrustes(plain, both[:300])[2] < 1e-12


# Review findings in the core: a landmark fit's refinement from few landmarks, and integer references as rows of X

def two_dimensional_gp(seed):
    "The review's data: a 2-D latent, 600 points, 40 features."
    Z = ou_latent(600, 2, random_state=seed)
    return Z, gp_observations(Z, 40, random_state=seed + 10)


@pytest.mark.parametrize("seed, n_components, n_landmarks", [(1, 5, 9), (0, 8, 12), (1, 8, 14), (3, 5, 9)])
def test_few_landmarks_refine_no_worse_than_unrefined(seed, n_components, n_landmarks):
    "Triangulation amplifies noise on axes of small eigenvalue; the refinement started there crumpled the fit (R^2 0.40)."
    Z, X = two_dimensional_gp(seed)
    default = quietly(lambda: IKD(n_components, n_landmarks=n_landmarks, random_state=0).fit(X))
    unrefined = quietly(lambda: IKD(n_components, n_landmarks=n_landmarks, refine=False, random_state=0).fit(X))
    assert default.settings_.refine  # still refined: the start is fixed, the refinement is not switched off
    assert affine_r2(default.embedding_, Z) > affine_r2(unrefined.embedding_, Z) - 0.01


def test_few_landmarks_place_new_points_no_worse_than_unrefined():
    Z, X = two_dimensional_gp(0)
    fitted, held_out = np.arange(0, 600, 2), np.arange(1, 600, 2)
    r2 = {refine: affine_r2(quietly(lambda: IKD(8, n_landmarks=12, refine=refine, random_state=0).fit(X[fitted])
                                    .transform(X[held_out])), Z[held_out]) for refine in ("auto", False)}
    assert r2["auto"] > r2[False] - 0.01


@pytest.mark.parametrize("n_landmarks", [50, None])
def test_refinement_still_helps_with_many_landmarks_and_in_the_exact_fit(n_landmarks):
    "The refined fit beats the unrefined one by 0.017 and 0.019 here: the fix for few landmarks keeps that."
    Z = ou_latent(600, 3, random_state=0)
    X = gp_observations(Z, 40, random_state=10)
    default = quietly(lambda: IKD(3, n_landmarks=n_landmarks, random_state=0).fit(X))
    unrefined = quietly(lambda: IKD(3, n_landmarks=n_landmarks, refine=False, random_state=0).fit(X))
    assert default.settings_.refine
    assert affine_r2(default.embedding_, Z) > affine_r2(unrefined.embedding_, Z) + 0.01


@pytest.fixture(scope="module")
def with_copies():
    "200 GP rows, rows 0..4 given twice at the start: X's rows 0..4 and 5..9 are copies, row 10 on are X[5:]."
    Z = ou_latent(195, 2, random_state=0)
    X = gp_observations(Z, 30, random_state=1)
    return np.vstack([X[:5], X]), Z


def at_origin(model):
    "The rows an unrefined fit about an index reference puts at the origin (the reference and its copies)."
    return np.flatnonzero(np.linalg.norm(model.embedding_, axis=1) < 1e-8 * np.abs(model.embedding_).max())


def test_an_integer_reference_is_a_row_of_X_after_copies_are_merged(with_copies):
    X, _ = with_copies
    model = quietly(lambda: IKD(reference=40, refine=False).fit(X))
    assert model.reference_index_ == 40 and list(at_origin(model)) == [40]
    copy = quietly(lambda: IKD(reference=7, refine=False).fit(X))  # row 7 copies row 2: the point's first row is reported
    assert copy.reference_index_ == 2 and list(at_origin(copy)) == [2, 7]
    last = quietly(lambda: IKD(reference=-1, refine=False).fit(X))  # T - 1 is a row of X, though X has 195 distinct rows
    assert last.reference_index_ == 199 and list(at_origin(last)) == [199]


def test_copies_inserted_before_the_reference_row_do_not_change_the_embedding(with_copies):
    X, _ = with_copies
    distinct = quietly(lambda: IKD(reference=35, refine=False).fit(X[5:]))
    inserted = quietly(lambda: IKD(reference=40, refine=False).fit(X))
    same = inserted.embedding_[5:] * np.sign(np.sum(inserted.embedding_[5:] * distinct.embedding_, axis=0))
    np.testing.assert_allclose(same, distinct.embedding_, atol=1e-8 * np.abs(distinct.embedding_).max())


@pytest.mark.parametrize("reference", [0, 23, -1])
def test_permuting_X_with_the_reference_moves_the_embedding_with_the_rows(with_copies, reference):
    X, _ = with_copies
    order = np.random.default_rng(3).permutation(len(X))
    moved_to = np.argsort(order)  # row i of X is row moved_to[i] of X[order]
    original = quietly(lambda: IKD(reference=reference, refine=False).fit(X))
    permuted = quietly(lambda: IKD(reference=int(moved_to[reference]), refine=False).fit(X[order]))
    expected = original.embedding_[order]
    same = permuted.embedding_ * np.sign(np.sum(permuted.embedding_ * expected, axis=0))
    np.testing.assert_allclose(same, expected, atol=1e-8 * np.abs(expected).max())
    # the reported row is the first row of X[order] holding the reference's point
    copies = np.flatnonzero((X[order] == X[reference]).all(axis=1))
    assert permuted.reference_index_ == copies[0]


@pytest.mark.parametrize("params", [{}, {"solver": "full"}])
def test_a_landmark_fit_takes_its_integer_reference_as_a_row_of_X(gp, params):
    X = gp[1][:400]
    fit = lambda reference: quietly(lambda: IKD(n_landmarks=40, reference=reference, refine=False, **params).fit(X))
    landmarks = fit("min_max").landmark_indices_
    chosen = fit("min_max")  # a rule's choice is reported as a row of X too
    assert chosen.reference_index_ in landmarks and at_origin(chosen).tolist() == [chosen.reference_index_]
    row = int(np.sort(landmarks)[len(landmarks) // 2])
    model = fit(row)
    assert model.reference_index_ == row and at_origin(model).tolist() == [row]
    outside = int(np.setdiff1d(np.arange(400), landmarks)[0])
    with pytest.raises(ValueError, match=rf"reference={outside} is row {outside} of X, which is not a landmark"):
        fit(outside)


@pytest.mark.parametrize("reference", [200, -201])
def test_an_integer_reference_outside_X_is_refused_naming_T(with_copies, reference):
    with pytest.raises(ValueError, match=rf"reference={reference} is not a row of X.*T = 200"):
        IKD(reference=reference).fit(with_copies[0])
