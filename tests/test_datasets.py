"""Real-data loaders: shapes and class counts on the data folder (IKD_DATA), and the error when a file is missing."""
import os
from pathlib import Path

import numpy as np
import pytest

from ikd import datasets

DATA = Path(os.environ.get("IKD_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


@pytest.fixture(scope="module")
def data_dir():
    assert (DATA / "guo_qpcr.csv").exists(), f"set IKD_DATA to the data folder (looked in {DATA})"
    return DATA


def test_guo_qpcr(data_dir):
    X, y = datasets.load_guo_qpcr(data_dir)
    assert X.shape == (437, 48)
    stages, counts = np.unique(y, return_counts=True)
    assert dict(zip(stages, counts)) == {"1": 9, "2": 19, "4": 23, "8": 43, "16": 75, "32 TE": 60, "32 ICM": 49,
                                         "64 TE": 96, "64 PE": 44, "64 EPI": 19}
    np.testing.assert_allclose(X.std(axis=0), 1.0, atol=1e-6)  # standardised gene by gene at the source


def test_coil20(data_dir):
    X, y = datasets.load_coil20(data_dir)
    assert X.shape == (1440, 128 * 128) and X.min() >= 0 and X.max() <= 255
    assert np.all(np.bincount(y)[1:] == 72)


def test_fashion_mnist(data_dir):
    X, y = datasets.load_fashion_mnist(n_samples=None, data_dir=data_dir)
    assert X.shape == (70000, 784) and np.all(np.bincount(y) == 7000)
    X_sub, y_sub = datasets.load_fashion_mnist(3000, random_state=0, data_dir=data_dir)
    assert X_sub.shape == (3000, 784) and np.all(np.bincount(y_sub) == 300)
    np.testing.assert_array_equal(X_sub, datasets.load_fashion_mnist(3000, random_state=0, data_dir=data_dir)[0])


def test_digits():
    X, y = datasets.load_digits()
    assert X.shape == (1797, 64) and len(np.unique(y)) == 10


@pytest.mark.parametrize("loader", [datasets.load_guo_qpcr, datasets.load_coil20, datasets.load_fashion_mnist])
def test_missing_data_says_where_it_looked(loader, tmp_path):
    with pytest.raises(FileNotFoundError, match=str(tmp_path)):
        loader(data_dir=tmp_path)


def test_no_data_directory_at_all(monkeypatch):
    monkeypatch.delenv("IKD_DATA", raising=False)
    with pytest.raises(FileNotFoundError, match="IKD_DATA"):
        datasets.load_guo_qpcr()


def test_random_feature_noise_does_not_depend_on_the_block_size():
    "The docs say the rows do not depend on `block`; with noise > 0 each block drew its own noise stream."
    Z = np.random.default_rng(1).uniform(0, 4, (300, 2))
    noisy = [datasets.random_feature_observations(Z, 6, noise=0.1, random_state=0, block=block) for block in (7, 64, 65536)]
    for X in noisy[1:]: np.testing.assert_allclose(X, noisy[0], rtol=0, atol=1e-12)
    clean = datasets.random_feature_observations(Z, 6, random_state=0)
    assert 0.08 < np.std(noisy[0] - clean) < 0.12  # the noise is there


@pytest.mark.parametrize("Z, options, message", [
    (np.r_[np.zeros((9, 2)), [[np.nan, 0]]], {}, "Z contains NaN or infinite values"),
    (np.r_[np.zeros((9, 2)), [[np.inf, 0]]], {}, "Z contains NaN or infinite values"),
    (np.zeros((10, 2, 2)), {}, "Z must be a non-empty (T, M) array"),
    (np.zeros((0, 2)), {}, "Z must be a non-empty (T, M) array"),
    (np.zeros((10, 2)), {"lengthscale": "3"}, "lengthscale must be a number"),
    (np.zeros((10, 2)), {"noise": "0.1"}, "noise must be a number"),
    ([["a", "b"]], {}, "Z must be a numeric (T, M) array"),
])
def test_random_feature_observations_refuse_bad_input_by_name(Z, options, message):
    with pytest.raises((ValueError, TypeError)) as error:
        datasets.random_feature_observations(Z, 5, **options)
    assert message in str(error.value)
