"""Landmark IKD: r-nets and farthest-point sampling against the plain algorithm, landmark fits against transform, bad
parameters, independence of row order."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings, strategies as st
from sklearn.datasets import load_digits
from sklearn.utils.estimator_checks import check_estimator

from ikd import IKD
from ikd.datasets import gp_observations, ou_latent
from ikd.covariance import SparseRows, covariance_rows
from ikd.landmarks import (COINCIDENT_RADIUS, choose_landmarks, farthest_point_landmarks, gonzalez, random_landmarks, rnet,
                           row_distances)
from ikd.metrics import affine_r2


def pairwise(points):
    "All distances, in the construction's own arithmetic (so that a radius taken from them is compared exactly)."
    return np.stack([row_distances(points, slice(None), p) for p in range(len(points))])


# points on a grid of a few values have many exactly tied distances; the friend lists must not let rounding decide
point_sets = st.tuples(st.integers(0, 10_000), st.integers(2, 250), st.integers(1, 6), st.sampled_from(["normal", "grid"]))


def make_points(seed, T, N, kind):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(T, N)) if kind == "normal" else rng.integers(0, 4, size=(T, N)).astype(float)


def examples(ci_count):
    "A test's number of examples: `ci_count` under the default (CI) profile, ten times as many under `explore` (conftest.py)."
    return ci_count * settings.default.max_examples // settings.get_profile("ci").max_examples


def coincident_radius(rows):
    "A covering radius at or below this is 0 for the nets: rows closer than it to a centre coincide with it."
    return COINCIDENT_RADIUS * np.sqrt((rows ** 2).sum(axis=1).max())


@settings(max_examples=examples(60))
@given(points=point_sets, fraction=st.floats(0.0, 1.0))
def test_rnet_with_n_centres_covers_packs_and_follows_gonzalez(points, fraction):
    rows = make_points(*points)
    asked = max(1, int(fraction * len(rows)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        net = rnet(rows, n_centres=asked)
        plain = gonzalez(rows, n_centres=asked)
    for part in ("centres", "owner", "distance", "insertion_radii"):
        np.testing.assert_array_equal(getattr(net, part), getattr(plain, part))
    # grid rows repeat: the net stops at the distinct rows, each once, and says so (and only then); normal rows can come
    # within the coincident radius of each other too (two of 114 in one dimension were 2.6e-6 apart)
    L = len(net.centres)
    assert L == asked or net.radius <= coincident_radius(rows)
    assert L <= len(np.unique(rows, axis=0)) and len(np.unique(rows[net.centres], axis=0)) == L  # no repeated centres
    said = [w for w in caught if "fewer distinct rows than centres asked for" in str(w.message)]
    assert len(said) == (2 if L < asked else 0), [str(w.message) for w in caught]
    assert net.radius == plain.radius and plain.distance_evaluations == len(rows) * L
    distances = pairwise(rows)
    to_centres = distances[:, net.centres]
    np.testing.assert_allclose(net.distance, to_centres.min(axis=1), atol=1e-9)
    assert to_centres.min(axis=1).max() <= net.radius + 1e-9  # covering
    between = distances[np.ix_(net.centres, net.centres)][np.triu_indices(L, 1)]
    assert L == 1 or between.min() >= net.radius - 1e-9  # packing at the radius reached
    np.testing.assert_allclose(to_centres[np.arange(len(rows)), net.owner], net.distance, atol=1e-9)
    assert np.all(np.diff(net.insertion_radii) <= 1e-12)
    assert net.distance_evaluations <= len(rows) * L + L * (L - 1) // 2


@settings(max_examples=examples(60))
@given(points=point_sets, radius_quantile=st.floats(0.0, 1.0))
@example(points=(164, 160, 1, "normal"), radius_quantile=0.0)  # issue 44: two rows 9.2e-7 apart, a net of radius 0
def test_rnet_with_a_radius_is_an_r_net(points, radius_quantile):
    """Covering, packing and the radius reported. A radius at or below the coincident radius is 0 for the net: it stops
    there, every row left within rounding of a centre, so the radius it reports may exceed the one asked for (radius 0
    with two rows 9.2e-7 apart gave 9.2e-7), but never the coincident radius."""
    rows = make_points(*points)
    distances = pairwise(rows)
    radius = float(np.quantile(distances, radius_quantile))
    net = rnet(rows, radius=radius)
    np.testing.assert_array_equal(net.centres, gonzalez(rows, radius=radius).centres)
    covering = distances[:, net.centres].min(axis=1).max()
    assert covering <= net.radius + 1e-9  # every row lies within the radius the net reports ...
    assert net.radius <= max(radius, coincident_radius(rows))  # ... the radius asked for, or the coincident one it stops at
    between = distances[np.ix_(net.centres, net.centres)][np.triu_indices(len(net.centres), 1)]
    assert len(net.centres) == 1 or between.min() > radius  # packing, strictly


def test_rnet_friend_lists_save_distances_on_a_manifold():
    """A noisy circle in 10 dimensions, T = 5000, 500 centres: the friend lists measure a fraction of plain Gonzalez's
    T L distances (0.10 measured); on isotropic 10-D noise (high doubling dimension) they save little (0.81)."""
    rng = np.random.default_rng(0)
    angle = rng.uniform(0, 2 * np.pi, 5000)
    circle = np.c_[np.cos(angle), np.sin(angle), np.zeros((5000, 8))] + 0.01 * rng.normal(size=(5000, 10))
    assert rnet(circle, n_centres=500).distance_evaluations < 0.2 * 5000 * 500
    assert rnet(rng.normal(size=(5000, 10)), n_centres=500).distance_evaluations > 0.5 * 5000 * 500


def test_rnet_refuses_bad_input():
    rows = np.random.default_rng(0).normal(size=(50, 3))
    for kwargs, message in (({}, "radius, n_centres"), ({"n_centres": 51}, "n_centres must be"),
                            ({"radius": np.nan}, "radius must be"), ({"radius": -0.5}, "radius must be")):
        for construction in (rnet, gonzalez):
            with pytest.raises(ValueError, match=message):
                construction(rows, **kwargs)
    for construction in (rnet, gonzalez):
        with pytest.raises(ValueError, match="NaN"):
            construction(np.full((5, 2), np.nan), n_centres=2)
        with pytest.raises(ValueError, match="2-D"):
            construction(np.ones(5), n_centres=2)


@settings(max_examples=examples(30))
@given(seed=st.integers(0, 10_000), T=st.integers(20, 300), N=st.integers(3, 12), fraction=st.floats(0.05, 1.0),
       spread=st.sampled_from([0.05, 1.0, 20.0]))
def test_pruned_farthest_point_equals_plain_gonzalez(seed, T, N, fraction, spread):
    rng = np.random.default_rng(seed)
    # clustered points, where the pruning skips most updates, and diffuse ones, where it skips few
    centres = rng.normal(size=(5, N)) * spread
    rows = covariance_rows(centres[rng.integers(5, size=T)] + rng.normal(size=(T, N)))
    L = max(1, int(fraction * T))
    # n_directions=None measures in all N features, so the plain and pruned constructions can be compared with
    # the plain algorithm on the rows themselves
    plain = farthest_point_landmarks(rows, L, random_state=seed, n_directions=None)
    np.testing.assert_array_equal(farthest_point_landmarks(rows, L, random_state=seed, n_directions=None, friend_lists=True),
                                  plain)
    np.testing.assert_array_equal(plain, gonzalez(rows, n_centres=L).centres)
    assert len(np.unique(rows[plain], axis=0)) == len(plain)  # no repeated centres


def same_rows(rows, first, second):
    "Whether two lists of row indices name the same rows in the same order (copies of a row count as that row)."
    return np.array_equal(rows[first], rows[second])


@settings(max_examples=examples(40))
@given(points=point_sets, fraction=st.floats(0.0, 1.0), order_seed=st.integers(0, 2**32 - 1))
def test_nets_do_not_depend_on_row_order(points, fraction, order_seed):
    """Permuting the rows permutes the centres (issue 33): the first centre is the row farthest from the centroid, and
    every tie (grid points are full of them) goes to the row whose coordinates come first, not to the lowest index."""
    rows = make_points(*points)
    order = np.random.default_rng(order_seed).permutation(len(rows))
    L = max(1, int(fraction * len(rows)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fewer distinct grid rows than centres: tested above
        for construction in (gonzalez, rnet):
            net, permuted = construction(rows, n_centres=L), construction(rows[order], n_centres=L)
            assert same_rows(rows, net.centres, order[permuted.centres]), construction.__name__
            np.testing.assert_array_equal(permuted.insertion_radii, net.insertion_radii)
            radius = float(np.median(net.distance))
            assert same_rows(rows, construction(rows, radius=radius).centres,
                             order[construction(rows[order], radius=radius).centres])


@pytest.mark.parametrize("rule", ["farthest", "rnet"])
@pytest.mark.parametrize("data", ["binary digits", "wide GP"])
def test_landmark_rules_do_not_depend_on_row_order_or_sparsity(rule, data):
    """Binary digits (ties everywhere, and repeated rows) and GP data with more features than points (the projection's
    random test matrix then multiplies from the side of the features, never of the rows): permuting the rows permutes
    the landmarks, and sparse rows give the dense landmarks."""
    if data == "binary digits": X = (load_digits().data[:600] > 8).astype(float)
    else: X = gp_observations(ou_latent(200, 2, random_state=1), 300, random_state=1)
    order = np.random.default_rng(0).permutation(len(X))
    rows = covariance_rows(X)
    landmarks = choose_landmarks(rows, 150, rule, random_state=0)
    assert same_rows(X, landmarks, order[choose_landmarks(covariance_rows(X[order]), 150, rule, random_state=0)])
    sparse_rows = SparseRows.from_sparse(sp.csr_array(X))
    assert same_rows(X, landmarks, choose_landmarks(sparse_rows, 150, rule, random_state=0))


def test_landmark_fit_places_the_others_by_transform():
    X, _ = load_digits(return_X_y=True)
    model = IKD(2, n_landmarks=150, random_state=3).fit(X)
    others = np.setdiff1d(np.arange(len(X)), model.landmark_indices_)
    np.testing.assert_allclose(model.transform(X[others]), model.embedding_[others], atol=1e-10)
    assert model.embedding_.shape == (len(X), 2) and len(np.unique(model.landmark_indices_)) == 150
    np.testing.assert_array_equal(IKD(2, n_landmarks=150, random_state=3).fit_transform(X), model.embedding_)


def test_landmarks_recover_the_gp_benchmark_latent():
    """GP benchmark, T = 1000, N = 100: with 300 landmarks, farthest-point sampling matches fitting all points (0.994
    measured for both); random landmarks lose a little (0.988)."""
    Z = ou_latent(1000, 3, random_state=0)
    X = gp_observations(Z, 100, lengthscale=3.0, noise=0.05, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for rule, target in (("farthest", 0.99), ("rnet", 0.99), ("random", 0.97)):
            assert affine_r2(IKD(3, n_landmarks=300, landmarks=rule).fit_transform(X), Z) > target


def test_rnet_rule_and_given_indices_fit_the_farthest_point_landmarks():
    "`rnet` builds the same landmarks as `farthest`; the same indices given by hand give the same embedding."
    X, _ = load_digits(return_X_y=True)
    farthest = IKD(2, n_landmarks=120, random_state=1).fit(X)
    for model in (IKD(2, n_landmarks=120, landmarks="rnet", random_state=1),
                  IKD(2, landmarks=farthest.landmark_indices_.tolist(), random_state=1),
                  IKD(2, n_landmarks=120, landmarks=farthest.landmark_indices_, random_state=1)):
        model.fit(X)
        np.testing.assert_array_equal(model.landmark_indices_, farthest.landmark_indices_)
        np.testing.assert_array_equal(model.embedding_, farthest.embedding_)


@pytest.mark.parametrize("indices, error, message", [
    ([0.5, 1.5, 2.5, 3.5], TypeError, "must be integers"), ([0, 0, 1, 2, 3], ValueError, "distinct"),
    ([-1, 2, 3, 4], ValueError, "must lie in 0..1796"), ([0, 1, 2], ValueError, "at least n_components \\+ 2"),
    ([[0, 1], [2, 3]], ValueError, "1-D"), ([5000, 1, 2, 3], ValueError, "must lie in"),
])
def test_given_landmark_indices_are_checked(indices, error, message):
    X, _ = load_digits(return_X_y=True)
    with pytest.raises(error, match=message):
        IKD(2, landmarks=np.array(indices)).fit(X)
    with pytest.raises(ValueError, match="n_landmarks=10 but 20"):
        IKD(2, n_landmarks=10, landmarks=np.arange(20)).fit(X)


def test_landmarks_at_least_t_fit_everything():
    X, _ = load_digits(return_X_y=True)
    X = X[:200]
    np.testing.assert_array_equal(IKD(2, n_landmarks=500).fit_transform(X), IKD(2).fit_transform(X))


@pytest.mark.parametrize("params, message", [
    ({"n_landmarks": 3}, "n_landmarks must be"), ({"n_landmarks": 2.5}, "'n_landmarks' parameter of IKD must be"),
    ({"landmarks": "kmeans"}, "'landmarks' parameter of IKD must be"),
    ({"n_landmarks": 50, "covariance": "precomputed"}, "precomputed"),
    ({"landmarks": np.arange(10), "covariance": "precomputed"}, "precomputed"),
])
def test_bad_landmark_parameters(params, message):
    X, _ = load_digits(return_X_y=True)
    with pytest.raises(ValueError, match=message):
        IKD(**params).fit(X[:100])


def test_random_landmarks_are_distinct_seeded_and_order_free():
    rows = covariance_rows(np.random.default_rng(0).normal(size=(1000, 30)))
    np.testing.assert_array_equal(random_landmarks(rows, 50, 7), random_landmarks(rows, 50, 7))
    assert len(np.unique(random_landmarks(rows, 50, 7))) == 50
    order = np.random.default_rng(1).permutation(1000)
    np.testing.assert_array_equal(np.sort(order[random_landmarks(rows[order], 50, 7)]), random_landmarks(rows, 50, 7))
    with pytest.raises(ValueError, match="n_landmarks"):
        random_landmarks(rows[:10], 11)


def test_landmark_estimator_passes_sklearn_checks():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(IKD(n_landmarks=12), on_fail=None)
    failed = {r["check_name"] for r in results if r["status"] == "failed"}
    # the constant rows of the checks' integer and sparse data, refused by design (DTYPES in tests/test_estimator.py)
    dtypes = {"check_estimators_dtypes", "check_estimator_sparse_tag", "check_estimator_sparse_array",
              "check_estimator_sparse_matrix"}
    # Six checks fit rows of 2 features: every standardised row is +-(1, -1)/sqrt(2) up to rounding, so the data are at
    # most 2 distinct points; IKD refuses 2 features by name before any landmark is chosen.
    two_points = {"check_fit_idempotent", "check_fit_check_is_fitted", "check_n_features_in",
                  "check_estimators_fit_returns_self", "check_estimators_overwrite_params", "check_readonly_memmap_input"}
    assert failed == dtypes | two_points, failed
    assert all("distinct" in str(r["exception"]) for r in results if r["check_name"] in two_points)
