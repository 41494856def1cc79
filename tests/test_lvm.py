"""Saul's tractable LVM (issues 22, 33, 35): scikit-learn's estimator checks, bad input, repeated rows, scale, determinism,
row order, monotone EM with momentum, leaving the start, the stopping rule, approximate neighbours."""
import warnings

import numpy as np
import pytest
from scipy.spatial import procrustes
from sklearn.datasets import load_digits, make_swiss_roll
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import check_estimator

from ikd.baselines import embed
from ikd.lvm import TractableLVM, nearest_neighbours, neighbour_graph


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
    ({"momentum": 1.0}, ValueError, "momentum"),
    ({"tol": -1.0}, ValueError, "tol"),
    ({"neighbors": "ball_tree"}, ValueError, "neighbors"),
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
@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_every_linear_solver_gives_the_direct_solvers_map(roll, levels, momentum):
    "CG (either preconditioner) against sparse LU, a second solution of the same systems; 'auto' is Jacobi CG."
    fit = lambda solver: TractableLVM(coarse_levels=levels, max_iter=60, tol=0, momentum=momentum, linear_solver=solver,
                                      random_state=0).fit(roll[0])
    direct = fit("direct")
    for solver in ("cg", "cg_jacobi"):
        other = fit(solver)
        assert procrustes(direct.embedding_, other.embedding_)[2] < 1e-6
        # CG stops at a relative residual of 1e-7: over 60 steps, momentum carries the difference to about 1e-6 of zeta
        np.testing.assert_allclose(other.objective_history_, direct.objective_history_, rtol=1e-5)
    np.testing.assert_array_equal(fit("auto").embedding_, other.embedding_)


def test_conjugate_gradients_converge_inside_a_far_cluster():
    "CG's tolerance is relative to the step: relative to the right-hand side, a cluster 50 sd away was left unconverged."
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (200, 3)), rng.normal(50, 1, (200, 3))])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's spectral embedding warns that the kNN graph has two parts
        direct, jacobi = (TractableLVM(linear_solver=solver, random_state=0).fit(X) for solver in ("direct", "cg_jacobi"))
    assert jacobi.n_iter_ == direct.n_iter_
    for cluster in (slice(0, 200), slice(200, 400)):  # 0.63 inside the first before
        assert procrustes(direct.embedding_[cluster], jacobi.embedding_[cluster])[2] < 1e-6


def test_unreachable_cg_tolerance_is_named(roll):
    with pytest.raises(ValueError, match="cg_tol=1e-300"):
        TractableLVM(cg_tol=1e-300, max_iter=3, random_state=0).fit(roll[0])


@pytest.mark.parametrize("levels", [0, 1, 2])
@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_no_half_step_lowers_the_objective(roll, levels, momentum):
    model = TractableLVM(coarse_levels=levels, max_iter=40, tol=0, momentum=momentum, random_state=0).fit(roll[0])
    history = model.objective_history_
    assert model.n_iter_ == 40 and len(history) == 81 and history[-1] > history[0]
    assert np.diff(history).min() >= -1e-12 * np.abs(history).max()


def test_repeated_rows_are_merged(roll):
    """k + 1 copies of one row once made the near length scales 0 ("Factor is exactly singular"): each row is embedded
    once, every copy gets its mean, and the fit is the fit of the distinct rows."""
    X = roll[0]
    repeated = np.vstack([X, np.repeat(X[:1], 10, axis=0), X[5:8]])  # 10 = k + 1 copies of row 0, and three more
    model = TractableLVM(max_iter=30, random_state=0).fit(repeated)
    distinct = TractableLVM(max_iter=30, random_state=0).fit(X)
    np.testing.assert_array_equal(model.embedding_[:600], distinct.embedding_)
    np.testing.assert_array_equal(model.embedding_[600:610], np.repeat(distinct.embedding_[:1], 10, axis=0))
    np.testing.assert_array_equal(model.variances_[610:], distinct.variances_[5:8])
    assert model.edges_.shape == (613, 613) and model.edges_[600].nnz == distinct.edges_[0].nnz
    with pytest.raises(ValueError, match="n_neighbors must be below the number of distinct"):
        TractableLVM(n_neighbors=9).fit(np.repeat(X[:9], 3, axis=0))


@pytest.mark.parametrize("factor", [2.0 ** 300, 1e100, 1e-100, 3.7])
def test_scale_of_X_scales_the_map(roll, factor):
    """X * 1e100 once crashed ("Factor is exactly singular"); X * c must give c times the means, c^2 times the
    variances (bit for bit when c is a power of two) and the same zeta."""
    X = roll[0]
    base = TractableLVM(max_iter=60, tol=0, random_state=0).fit(X)
    scaled = TractableLVM(max_iter=60, tol=0, random_state=0).fit(X * factor)
    np.testing.assert_allclose(scaled.embedding_ / factor, base.embedding_, rtol=0, atol=1e-10 * np.abs(base.embedding_).max())
    np.testing.assert_allclose(scaled.variances_ / factor ** 2, base.variances_, rtol=1e-10)
    np.testing.assert_allclose(scaled.objective_history_, base.objective_history_, rtol=1e-10)
    if factor == 2.0 ** 300: np.testing.assert_array_equal(scaled.embedding_, base.embedding_ * factor)


def test_scale_beyond_float64_is_refused(roll):
    with pytest.raises(ValueError, match="variances .* outside float64"):
        TractableLVM(max_iter=2).fit(roll[0] * 1e200)


@pytest.fixture(scope="module")
def digits_fit():
    X, y = load_digits(return_X_y=True)
    return TractableLVM(n_components=2, random_state=0).fit(X), y


def test_map_leaves_its_start_on_digits(digits_fit):
    """The issue-35 failure: the map stayed at its Laplacian-eigenmap start (disparity 0.011 after 400 iterations)."""
    model, _ = digits_fit
    assert procrustes(model.initial_embedding_, model.embedding_)[2] >= 0.05


def test_stopping_rule_and_n_iter(digits_fit, roll):
    model, _ = digits_fit
    assert 10 <= model.n_iter_ < 400 and len(model.objective_history_) == 2 * model.n_iter_ + 1
    history = model.objective_history_
    # it stopped at the first iteration whose zeta rose by at most tol |zeta| over the last 10
    rises = (history[20::2] - history[:-20:2]) / np.abs(history[20::2])
    assert rises[-1] <= 1e-3 and np.all(rises[:-1] > 1e-3)
    capped = TractableLVM(max_iter=7, random_state=0).fit(roll[0])
    assert capped.n_iter_ == 7 and len(capped.objective_history_) == 15


def test_approximate_neighbours_recall_and_determinism():
    X, _ = load_digits(return_X_y=True)
    X = np.unique(X, axis=0)
    _, exact = nearest_neighbours(X, 9, "exact")
    _, approximate = nearest_neighbours(X, 9, "approximate", random_state=0)
    recall = np.mean([len(set(a) & set(b)) for a, b in zip(exact, approximate)]) / 9
    assert recall >= 0.95, recall
    assert not np.any(approximate == np.arange(len(X))[:, None])  # no input is its own neighbour
    np.testing.assert_array_equal(nearest_neighbours(X, 9, "approximate", random_state=0)[1], approximate)


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


def _fit_quietly(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X)


@pytest.mark.parametrize("rounding", ["1e-15", "float32"])
def test_copies_up_to_rounding_are_one_point(roll, rounding):
    """Issue 44 item 2: only bit-for-bit copies were merged, so rows equal up to rounding took each other's places in
    the kNN graph (digits: 5-NN of the originals 0.94 -> 0.80 with X * (1 + 1e-15) added, 0.62 with float32 copies).
    They are one point, as for IKD: each copy gets its original's coordinates, and the fit is the fit of the rows that
    stand for the pairs, fitted alone: of each row and its copy, the one first in lexicographic order."""
    X = roll[0]
    copies = X * (1 + 1e-15) if rounding == "1e-15" else X.astype(np.float32).astype(np.float64)
    differs = copies != X
    assert np.all(differs.any(axis=1))  # no bit-for-bit copies
    column = differs.argmax(axis=1)  # the first column where a row and its copy differ decides which comes first
    rows = np.arange(len(X))
    standing = np.where((copies[rows, column] < X[rows, column])[:, None], copies, X)
    model = _fit_quietly(TractableLVM(max_iter=30, random_state=0), np.r_[X, copies])
    np.testing.assert_array_equal(model.embedding_[600:], model.embedding_[:600])
    np.testing.assert_array_equal(model.variances_[600:], model.variances_[:600])
    alone = _fit_quietly(TractableLVM(max_iter=30, random_state=0), standing)
    np.testing.assert_array_equal(model.embedding_[:600], alone.embedding_)
    np.testing.assert_array_equal(model.variances_[:600], alone.variances_)


def test_copies_up_to_rounding_merge_whatever_the_row_order(roll):
    "The row standing for a pair is chosen by content: any order of the rows gives the same map, bit for bit."
    X = roll[0][:300]
    both = np.r_[X, X * (1 + 1e-15 * np.random.default_rng(2).standard_normal(X.shape))]
    first = _fit_quietly(TractableLVM(max_iter=20, random_state=0), both).embedding_
    order = np.random.default_rng(3).permutation(len(both))
    np.testing.assert_array_equal(_fit_quietly(TractableLVM(max_iter=20, random_state=0), both[order]).embedding_,
                                  first[order])


def test_near_copies_do_not_chain(roll):
    """Rows 1e-6 (relative to the RMS radius) apart in a chain are merged around representatives within the radius of
    each, not all into one point."""
    X = roll[0][:200]
    direction = np.random.default_rng(0).standard_normal(X.shape[1])
    spread = np.sqrt(np.mean(np.sum((X - X.mean(axis=0)) ** 2, axis=1)))
    chain = X[0] + 1e-6 * spread * np.arange(1, 13)[:, None] * direction / np.linalg.norm(direction)
    model = _fit_quietly(TractableLVM(max_iter=5, random_state=0), np.r_[X, chain])
    points = len(np.unique(model.embedding_[200:], axis=0))
    assert 4 <= points <= 7, points  # the 12 rows and X[0]: each representative covers itself and a neighbour each side


def test_stopping_at_max_iter_warns_with_the_last_rise(roll):
    "Issue 44 item 9: EM stopped at max_iter without a word while zeta was still rising fast."
    with pytest.warns(ConvergenceWarning, match=r"max_iter=7\b") as caught:
        model = TractableLVM(max_iter=7, random_state=0).fit(roll[0])
    history = model.objective_history_
    rise = (history[-1] - history[0]) / abs(history[-1])  # over all 7 iterations, fewer than the window of 10
    assert rise > 1e-3 and f"{rise:.3g}" in str(caught[0].message) and "tol=0.001" in str(caught[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        TractableLVM(max_iter=7, tol=0, random_state=0).fit(roll[0])  # tol=0 asks for max_iter iterations
        converged = TractableLVM(random_state=0).fit(roll[0])
    assert converged.n_iter_ < 400
