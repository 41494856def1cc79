"""The doubling dimension (`dimension.doubling_dimension`, `dimension.ball_growth`) on sets of known dimension."""
import numpy as np
import pytest
from sklearn.datasets import make_swiss_roll
from sklearn.metrics import euclidean_distances

from ikd.dimension import ball_growth, doubling_dimension, intrinsic_dimension
from ikd.kernels import get_kernel

SE = get_kernel("squared_exponential")


def shape(name, n_points=2000, seed=0):
    rng = np.random.default_rng(seed)
    if name == "segment": return np.c_[rng.uniform(0, 10, n_points), np.zeros((n_points, 2))]
    if name == "square": return np.c_[rng.uniform(0, 10, (n_points, 2)), np.zeros(n_points)]
    if name == "3-ball":
        directions = rng.normal(size=(n_points, 3))
        return 10 * directions / np.linalg.norm(directions, axis=1, keepdims=True) * rng.uniform(0, 1, (n_points, 1)) ** (1 / 3)
    return make_swiss_roll(n_points, random_state=seed)[0] / 2


@pytest.mark.parametrize("name, low, high", [("segment", 0.85, 1.2), ("square", 1.8, 2.2), ("3-ball", 2.5, 3.2),
                                             ("Swiss roll", 1.8, 2.7)])
def test_doubling_dimension_of_known_shapes(name, low, high):
    points = shape(name)
    euclidean = np.quantile(ball_growth(euclidean_distances(points[:800], points)), 0.75)
    through_covariances = doubling_dimension(SE.covariance(points / 2), SE)
    assert low < euclidean < high and low < through_covariances < high, (euclidean, through_covariances)


def test_noise_floor_is_taken_off():
    "Correlations shrunk uniformly (observation noise) leave the estimate where it was; without the floor it would rise."
    points = shape("square")
    K = SE.covariance(points / 2)
    noisy = K * (2 / 3) + np.eye(len(K)) / 3
    assert abs(doubling_dimension(noisy, SE) - doubling_dimension(K, SE)) < 0.15
    assert abs(doubling_dimension(noisy, SE) - intrinsic_dimension(noisy, SE, n_neighbors=10)) < 0.4


def test_row_order_invariant_and_deterministic():
    points = shape("square", n_points=600)
    K = SE.covariance(points / 2)
    order = np.random.default_rng(1).permutation(600)
    assert doubling_dimension(K, SE) == doubling_dimension(K, SE)
    assert doubling_dimension(K[np.ix_(order, order)], SE) == pytest.approx(doubling_dimension(K, SE), abs=1e-12)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="too few"):
        ball_growth(np.zeros((3, 20)))
    with pytest.raises(ValueError, match="2-D"):
        ball_growth(np.zeros(20))
    with pytest.raises(ValueError, match="quantile"):
        doubling_dimension(np.eye(200), SE, quantile=1.5)
