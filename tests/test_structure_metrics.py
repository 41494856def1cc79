"""Known answers of `metrics.structure_scores`: perfect for an isometry, chance for a random map, local but not global for
classes kept intact and moved, invariant to row order and to rescaling the map, and equal to independent implementations."""
import csv
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.distance import pdist
from scipy.stats import spearmanr
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA
from sklearn.manifold import trustworthiness

from ikd.metrics import STRUCTURE_SCORES, centroid_rank_correlation, structure_scores, triplet_accuracy

ROOT = Path(__file__).resolve().parents[1]
LOCAL = ("trustworthiness", "continuity", "mrre_false", "mrre_missing")


@pytest.fixture(scope="module")
def line_of_classes():
    "Six classes of 50 points along a line in R^10, their labels and the class centres."
    rng = np.random.default_rng(3)
    classes = np.repeat(np.arange(6), 50)
    centres = np.c_[10.0 * np.arange(6), np.zeros((6, 9))]
    return centres[classes] + rng.normal(size=(300, 10)), classes, centres


@pytest.fixture(scope="module")
def digits_pca():
    "400 digits and their 2-D PCA map."
    X, y = load_digits(return_X_y=True)
    X, y = X[:400], y[:400]
    return X, PCA(2).fit_transform(X), y


def test_an_isometry_scores_perfect_on_every_score(line_of_classes):
    X, classes, _ = line_of_classes
    Q, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(10, 10)))
    scores = structure_scores(X, X @ Q - 2.0, classes)
    assert set(scores) == set(STRUCTURE_SCORES)
    for name, (_, _, higher_is_better) in STRUCTURE_SCORES.items():
        assert scores[name] == pytest.approx(1.0 if higher_is_better else 0.0, abs=1e-9), name


def test_a_random_map_scores_near_chance(line_of_classes):
    X, classes, _ = line_of_classes
    scores = structure_scores(X, np.random.default_rng(1).normal(size=(300, 2)), classes)
    for name in ("trustworthiness", "continuity", "triplet_accuracy"):
        assert scores[name] == pytest.approx(0.5, abs=0.05), name
    for name in ("spearman_rho", "pearson_r"):
        assert abs(scores[name]) < 0.05, name
    assert scores["steadiness"] < 0.5 and scores["cohesiveness"] < 0.5


def test_classes_kept_but_moved_score_high_locally_and_low_on_centroids(line_of_classes):
    X, classes, centres = line_of_classes
    moved = X - centres[classes] + centres[[2, 4, 0, 5, 1, 3]][classes]
    scores = structure_scores(X, moved, classes)
    assert min(scores[name] for name in LOCAL) > 0.99
    assert scores["cohesiveness"] > 0.95 and scores["steadiness"] > 0.9
    assert scores["centroid_rank_correlation"] < 0
    assert scores["spearman_rho"] < 0.5 and scores["triplet_accuracy"] < 0.7


@pytest.mark.parametrize("max_points", [3000, 150])
def test_row_order_and_scale_of_the_map_change_no_score(digits_pca, max_points):
    "Exactly the same scores after permuting the rows, subset included (it is chosen by content); the same up to rounding for a rescaled map."
    X, Z, y = digits_pca
    given = structure_scores(X, Z, y, max_points=max_points)
    order = np.random.default_rng(2).permutation(len(X))
    assert structure_scores(X[order], Z[order], y[order], max_points=max_points) == given
    rescaled = structure_scores(X, 0.01 * Z, y, max_points=max_points)
    for name in STRUCTURE_SCORES: assert rescaled[name] == pytest.approx(given[name], rel=1e-9, abs=1e-12), name


def test_a_subset_and_another_seed_change_the_scores_by_sampling_noise_only(digits_pca):
    X, Z, y = digits_pca
    everything = structure_scores(X, Z, y)
    other_seed = structure_scores(X, Z, y, random_state=1)
    assert other_seed != everything
    for name in ("spearman_rho", "pearson_r", "distance_to_measure"):
        assert other_seed[name] == pytest.approx(everything[name], abs=1e-12), name  # no randomness without a subset
    # digits have integer pixels, so many distances tie: the neighbour ranks break ties by position, which the seed moves
    assert other_seed["trustworthiness"] != everything["trustworthiness"]
    assert other_seed["trustworthiness"] == pytest.approx(everything["trustworthiness"], abs=1e-4)
    assert other_seed["triplet_accuracy"] == pytest.approx(everything["triplet_accuracy"], abs=0.03)
    subset = structure_scores(X, Z, y, max_points=300)
    for name in ("spearman_rho", "pearson_r", "triplet_accuracy"):
        assert subset[name] == pytest.approx(everything[name], abs=0.05), name


def test_zadu_scores_agree_with_independent_implementations(line_of_classes):
    "On data without tied distances (ties are broken differently by different implementations)."
    X, classes, _ = line_of_classes
    Z = PCA(2).fit_transform(X)
    scores = structure_scores(X, Z, classes, n_neighbors=7)
    assert scores["trustworthiness"] == pytest.approx(trustworthiness(X, Z, n_neighbors=7), abs=1e-9)
    assert scores["spearman_rho"] == pytest.approx(spearmanr(pdist(X), pdist(Z)).statistic, abs=1e-9)
    assert scores["pearson_r"] == pytest.approx(np.corrcoef(pdist(X), pdist(Z))[0, 1], abs=1e-9)


def test_triplets_and_centroids_by_hand():
    "Four points on a line, the second moved past the third: from anchors 0, 1 and 3 one of three pairs flips, from 2 none."
    X = np.array([[0.0], [1.0], [3.0], [10.0]])
    Z = np.array([[0.0], [4.0], [3.0], [10.0]])
    assert triplet_accuracy(X, Z, n_triplets_per_point=20_000) == pytest.approx(1 - 3 / 12, abs=0.01)
    assert triplet_accuracy(X, 5 * X + 1) == 1.0
    # one point per class: the centroids are the points; the distance ranks (1,3,6,2,5,4) and (3,2,6,1,4,5) give 1 - 6*8/210
    assert centroid_rank_correlation(X, Z, np.arange(4)) == pytest.approx(27 / 35)
    assert centroid_rank_correlation(np.repeat(X, 2, axis=0), np.repeat(Z, 2, axis=0), np.repeat(np.arange(4), 2)) == pytest.approx(27 / 35)


def test_bad_input_is_refused(line_of_classes):
    X, classes, _ = line_of_classes
    with pytest.raises(ValueError, match="300 points but Z has 299"): structure_scores(X, X[:-1])
    with pytest.raises(ValueError, match="needs 3 classes"): structure_scores(X, X, classes % 2)
    with pytest.raises(ValueError, match="299 labels for 300 points"): structure_scores(X, X, classes[:-1])
    with pytest.raises(ValueError, match="NaN"): structure_scores(X, np.full_like(X, np.nan))
    with pytest.raises(ValueError, match="3 distinct points"): triplet_accuracy(X[:2], X[:2])


def test_the_structure_benchmark_runs_in_quick_mode(tmp_path):
    "benchmarks/structure.py --quick: 300 digits, four methods (one of them started from IKD's map), scored and written."
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "structure.py"), "--quick", "--results-dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    rows = list(csv.DictReader(open(tmp_path / "structure.csv")))
    assert [r["variant"] for r in rows] == ["ikd", "pca", "umap", "umap_ikd_start"]  # the order of the benchmark's variants
    assert all(r["error"] == "" and 0.5 < float(r["trustworthiness"]) <= 1 and float(r["knn_5"]) > 0.4 for r in rows)
    assert len(list((tmp_path / "structure" / "cache" / "fit").glob("*.joblib"))) == 4


# issue 44: the scores depend on the geometry of the data, not on its bytes; ties are ties in both spaces; sizes checked first
DATA_TRANSFORMS = {
    "doubled": lambda X, Z, y, rng: (2.0 * X, Z, y),
    "tripled": lambda X, Z, y, rng: (3.0 * X, Z, y),
    "columns permuted": lambda X, Z, y, rng: (X[:, rng.permutation(X.shape[1])], Z, y),
    "rotated and shifted": lambda X, Z, y, rng: (X @ np.linalg.qr(rng.normal(size=(X.shape[1],) * 2))[0] + 5.0, Z, y),
    "rows permuted": lambda X, Z, y, rng: tuple(A[order] for A, order in zip((X, Z, y), [rng.permutation(len(X))] * 3)),
}


@pytest.fixture(scope="module")
def digits_scores(digits_pca):
    X, Z, y = digits_pca
    return {max_points: structure_scores(X, Z, y, max_points=max_points) for max_points in (150, None)}


@pytest.mark.parametrize("max_points", [150, None])
@pytest.mark.parametrize("transform", list(DATA_TRANSFORMS))
def test_rescaled_rotated_or_reordered_data_give_the_same_scores(digits_pca, digits_scores, transform, max_points):
    "The subset, the walks and the triplets were keyed by X's bytes: X * 2 moved a KL divergence by 0.076 (150 points)."
    moved = structure_scores(*DATA_TRANSFORMS[transform](*digits_pca, np.random.default_rng(4)), max_points=max_points)
    for name, value in digits_scores[max_points].items():
        assert moved[name] == pytest.approx(value, abs=1e-12), name


def test_an_exact_rotation_of_integer_data_scores_perfect(digits_pca):
    "The digits' many tied distances come out a few units in the last place apart once rotated: steadiness read 0.991."
    X, _, y = digits_pca
    Q, _ = np.linalg.qr(np.random.default_rng(5).normal(size=(64, 64)))
    scores = structure_scores(X, X @ Q, y)
    for name, (_, _, higher_is_better) in STRUCTURE_SCORES.items():
        assert scores[name] == pytest.approx(1.0 if higher_is_better else 0.0, abs=1e-12), name


def test_tied_triplets_agree_only_with_tied_triplets():
    "A unit square stretched along one side: of each anchor's three pairs, the tied one is untied in the map (2/3 agree)."
    square = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    turn = np.array([[np.cos(0.5), np.sin(0.5)], [-np.sin(0.5), np.cos(0.5)]])
    assert triplet_accuracy(square, square @ turn, n_triplets_per_point=5000) == 1.0
    assert triplet_accuracy(square, square * [1.0, 2.0], n_triplets_per_point=20_000) == pytest.approx(2 / 3, abs=0.01)


def test_on_data_without_ties_the_scores_are_zadus_own(line_of_classes):
    "The neighbour rankings handed to ZADU equal ZADU's own where no two distances tie: the same rows give the same scores."
    from zadu import ZADU, ExecutionConfig
    from ikd.metrics import _content_order
    from ikd.validation import unit_scaled
    X, classes, _ = line_of_classes
    Z = PCA(2).fit_transform(X)
    ours = structure_scores(X, Z, classes, n_neighbors=7, random_state=3)
    order = _content_order(X, Z, 3)
    specs = [{"id": "tnc", "params": {"k": 7}}, {"id": "mrre", "params": {"k": 7}}, {"id": "snc", "params": {"random_state": 3}},
             {"id": "srho"}]
    theirs = {}
    for result in ZADU(specs, unit_scaled(X[order]), execution=ExecutionConfig(backend="numpy")).measure(unit_scaled(Z[order])):
        theirs.update(result)
    for name, value in theirs.items(): assert ours[name] == pytest.approx(value, abs=1e-9), name


@pytest.mark.parametrize("n_points, params, message", [
    (3, {}, "more than 2 \\* n_neighbors = 20 points, got 3"),
    (12, {}, "more than 2 \\* n_neighbors = 20 points, got 12 points with n_neighbors=10: give n_neighbors <= 5"),
    (20, {}, "more than 2 \\* n_neighbors = 20 points, got 20"),
    (100, {"max_points": 12}, "max_points must be at least 2 \\* n_neighbors \\+ 1 = 21"),
    (100, {"max_points": 20}, "max_points must be at least 2 \\* n_neighbors \\+ 1 = 21"),
    (100, {"max_points": 20, "n_neighbors": 12}, "max_points must be at least 2 \\* n_neighbors \\+ 1 = 25"),
    (100, {"n_neighbors": 0}, "n_neighbors must be a positive integer"),
    (100, {"n_neighbors": True}, "n_neighbors must be a positive integer"),
    (100, {"n_neighbors": 2.5}, "n_neighbors must be a positive integer"),
    (3, {"n_neighbors": 1}, "steadiness and cohesiveness found no group"),
])
def test_what_zadu_needs_is_checked_first_in_our_words(n_points, params, message):
    "k < n/2 failed inside ZADU, and 3 points named walk_num_ratio, which structure_scores does not take."
    X = np.random.default_rng(6).normal(size=(n_points, 5))
    with pytest.raises(ValueError, match=message): structure_scores(X, X[:, :2], **params)


@pytest.mark.parametrize("spoil, name", [(lambda X: (np.ones_like(X), X[:, :2]), "X"), (lambda X: (X, np.zeros((len(X), 2))), "Z")])
def test_points_all_at_one_place_are_refused_by_name(spoil, name):
    X = np.random.default_rng(7).normal(size=(50, 5))
    with pytest.raises(ValueError, match=f"{name} puts all its points at one place"): structure_scores(*spoil(X))
