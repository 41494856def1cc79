"""IKD.transform on Dask arrays (issue 20, part 4): lazy, block by block on a distributed cluster, equal to in-process."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
from dask import delayed

from ikd import IKD
from ikd.datasets import gp_observations, ou_latent


def noisy_block(base, block, size):
    "Rows of `base` with noise seeded by the block's number: generated on the worker that places them."
    rows = base[np.arange(block * size, (block + 1) * size) % len(base)]
    return rows + np.random.default_rng(block).normal(0.0, 0.01, rows.shape)


@pytest.fixture(scope="module")
def fitted():
    Z = ou_latent(400, 2, random_state=5)
    X = gp_observations(Z, 50, lengthscale=3.0, noise=0.05, random_state=5)
    return X, IKD(2, n_landmarks=100, random_state=0).fit(X)


def test_transform_on_a_local_cluster_equals_in_process(fitted):
    X, model = fitted
    size, n_blocks = 150, 6
    base = delayed(X, pure=True)
    blocks = [da.from_delayed(delayed(noisy_block)(base, b, size), shape=(size, X.shape[1]), dtype=float)
              for b in range(n_blocks)]
    new = da.concatenate(blocks)
    lazy = model.transform(new)
    assert isinstance(lazy, da.Array) and lazy.shape == (size * n_blocks, 2) and lazy.numblocks == (n_blocks, 1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        placed = client.compute(lazy).result()
    expected = np.vstack([model.transform(noisy_block(X, b, size)) for b in range(n_blocks)])
    np.testing.assert_allclose(placed, expected, rtol=0, atol=1e-10)


def test_model_is_one_node_of_the_graph(fitted):
    X, model = fitted
    lazy = model.transform(da.from_array(X, chunks=(50, 20)))
    graph = dict(lazy.__dask_graph__())
    shipped = [key for key, task in graph.items() if "IKD" in repr(task)[:2000] and "for_transform" not in repr(key)]
    assert len(shipped) == 1, shipped
    # blocks of 50 rows go through BLAS products of another shape than all 400 at once: equal up to rounding (with one
    # BLAS thread they differ by 5e-17 in one entry)
    np.testing.assert_allclose(lazy.compute(scheduler="synchronous"), model.transform(X), rtol=0,
                               atol=1e-12 * np.abs(model.embedding_).max())


def test_dask_input_with_wrong_features_is_refused_before_computing(fitted):
    X, model = fitted
    with pytest.raises(ValueError, match="fitted with 50 features"):
        model.transform(da.from_array(X[:, :10], chunks=(50, 10)))
