"""AnnData and scanpy in and out (issue 45): ikd.anndata.embed and ikd.compare on data shipped with scanpy."""
import logging
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import anndata  # the scanpy extra, pip install 'ikd[scanpy]', which the dev requirements include
import scanpy as sc

import ikd
from ikd.anndata import data_matrix, embed, fit_map
from ikd.baselines import embed as embed_array
from ikd.comparison import compare


@pytest.fixture()
def pbmc():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sc.datasets.pbmc68k_reduced()


@pytest.fixture()
def krumsiek():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its cell names repeat
        return sc.datasets.krumsiek11()


def test_embed_writes_the_map_and_the_settings_in_place(krumsiek):
    assert embed(krumsiek) is None
    expected = embed_array("ikd", np.asarray(krumsiek.X), 2, random_state=0)
    np.testing.assert_array_equal(krumsiek.obsm["X_ikd"], expected)
    record = krumsiek.uns["ikd"]
    assert record["params"]["n_components"] == 2 and record["params"]["method"] == "ikd"
    assert "intrinsic dimension" in record["settings"]["description"] and len(record["eigenvalues"]) == 2


def test_copy_key_added_layer_and_use_rep(pbmc):
    copied = embed(pbmc, "pca", use_rep="X_pca", key_added="pca_of_pca", copy=True)
    assert "pca_of_pca" in copied.obsm and "pca_of_pca" in copied.uns and "pca_of_pca" not in pbmc.obsm
    # PCA of the (centred) principal components is their first two, up to sign and float32 storage
    np.testing.assert_allclose(np.abs(copied.obsm["pca_of_pca"]), np.abs(pbmc.obsm["X_pca"][:, :2]), atol=1e-4)
    pbmc.layers["clipped"] = np.clip(pbmc.X, 0, None)
    embed(pbmc, layer="clipped", key_added="ikd_clipped")
    np.testing.assert_array_equal(pbmc.obsm["ikd_clipped"], embed_array("ikd", pbmc.layers["clipped"], 2, random_state=0))
    assert pbmc.uns["ikd_clipped"]["params"]["layer"] == "clipped"


def test_sparse_counts_give_the_dense_map(pbmc):
    dense = pbmc.copy()
    dense.X = np.clip(dense.X, 0, None)
    stored_sparse = dense.copy()
    stored_sparse.X = sp.csr_matrix(dense.X)
    for method in ("ikd", "pca"):
        embed(dense, method)
        embed(stored_sparse, method)
        key = {"ikd": "X_ikd", "pca": "X_ikd_pca"}[method]
        np.testing.assert_allclose(stored_sparse.obsm[key], dense.obsm[key], rtol=0, atol=1e-10)


def test_scanpy_draws_the_map_and_h5ad_keeps_it(krumsiek, tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    embed(krumsiek, n_neighbors=12)
    ax = sc.pl.embedding(krumsiek, basis="ikd", color="cell_type", show=False)
    offsets = ax.collections[0].get_offsets()
    assert sorted(map(tuple, np.asarray(offsets))) == sorted(map(tuple, krumsiek.obsm["X_ikd"]))
    del krumsiek.uns["highlights"]  # scanpy's own annotation of this set is keyed by integers, which .h5ad cannot store
    krumsiek.write_h5ad(tmp_path / "k.h5ad")
    read = anndata.read_h5ad(tmp_path / "k.h5ad")
    np.testing.assert_array_equal(read.obsm["X_ikd"], krumsiek.obsm["X_ikd"])
    assert read.uns["ikd"]["params"]["n_neighbors"] == 12


@pytest.mark.parametrize("call, message", [
    (lambda a: embed(np.ones((5, 3))), "adata must be an AnnData object, got ndarray"),
    (lambda a: embed(a, "ikdd"), "unknown method 'ikdd'"),
    (lambda a: embed(a, layer="counts"), "layer 'counts' is not in adata.layers"),
    (lambda a: embed(a, use_rep="X_tsne"), "use_rep 'X_tsne' is not in adata.obsm"),
    (lambda a: data_matrix(a, layer="x", use_rep="X_pca"), "give at most one of layer, use_rep and use_raw"),
    (lambda a: embed(a, key_added=""), "key_added must be a non-empty string"),
    (lambda a: embed(a, use_raw=True, use_rep="X_pca"), "give at most one of layer, use_rep and use_raw"),
    (lambda a: compare(a, "no_such_column"), "labels 'no_such_column' is not a column of adata.obs"),
])
def test_bad_input_is_refused_by_name(pbmc, call, message):
    with pytest.raises((ValueError, TypeError)) as error:
        call(pbmc)
    assert message in str(error.value)


def test_compare_takes_an_anndata_and_an_obs_column(krumsiek, tmp_path, monkeypatch):
    from ikd import comparison
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_adata = compare(krumsiek, "cell_type", methods=["ikd", "pca"], cache=tmp_path)
        # the arrays' comparison must find every fit and score the AnnData's made: the same data and labels, one key
        def refuse(*args, **kwargs): raise RuntimeError("refit")
        monkeypatch.setattr(comparison, "fit_map", refuse)
        monkeypatch.setattr(comparison, "structure_scores", refuse)
        from_arrays = compare(np.asarray(krumsiek.X), krumsiek.obs["cell_type"].to_numpy(), methods=["ikd", "pca"], cache=tmp_path)
    assert (from_arrays["skipped"] == "").all(), from_arrays["skipped"]
    scores = [c for c in from_arrays.columns if c not in ("name", "skipped", "seconds", "peak_memory_mib")]
    assert "knn_accuracy" in scores and from_adata["knn_accuracy"].notna().all()
    np.testing.assert_array_equal(from_adata[scores].to_numpy(float), from_arrays[scores].to_numpy(float))
    np.testing.assert_array_equal(from_adata.maps["ikd"], embed_array("ikd", np.asarray(krumsiek.X), 2, random_state=0))
    assert ikd.anndata.embed is embed


def test_pacmap_seed_note_is_dropped_and_its_warnings_kept(caplog):
    X = np.random.default_rng(0).normal(size=(30, 4))  # too few points for PaCMAP's pairs: a real warning
    quick = {"num_iters": (5, 5, 5)}
    with caplog.at_level(logging.WARNING, logger="pacmap"):
        embed_array("pacmap", X, 2, random_state=0, **quick)
        unfiltered = [record.getMessage() for record in caplog.records]
        caplog.clear()
        fit_map("pacmap", X, 2, random_state=0, **quick)
        filtered = [record.getMessage() for record in caplog.records]
    assert "Warning: random state is set to 0." in unfiltered  # PaCMAP logs it at every seeded fit
    assert not any("random state" in message for message in filtered)
    real = [message for message in unfiltered if "random state" not in message]
    assert real and filtered == real


@pytest.mark.parametrize("method", ["pca", "umap", "tsne"])
def test_a_method_keeps_clear_of_scanpys_own_keys(pbmc, method):
    "embed(adata, 'pca') wrote .obsm['X_pca'] and .uns['pca'], silently replacing scanpy's PCA (and so for umap, tsne)."
    pbmc.obsm[f"X_{method}"] = scanpy_map = np.arange(2 * pbmc.n_obs, dtype=float).reshape(-1, 2)
    pbmc.uns[method] = {"params": {"scanpy": True}}
    quick = {"umap": {"n_epochs": 20}, "tsne": {"max_iter": 250}}.get(method, {})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        embed(pbmc, method, use_rep="X_pca", **quick)
    assert not [w for w in caught if "embed replaces" in str(w.message)]  # nothing another tool wrote is replaced
    np.testing.assert_array_equal(pbmc.obsm[f"X_{method}"], scanpy_map)
    assert pbmc.uns[method] == {"params": {"scanpy": True}}
    assert pbmc.obsm[f"X_ikd_{method}"].shape == (pbmc.n_obs, 2) and pbmc.uns[f"ikd_{method}"]["params"]["method"] == method


def test_a_key_another_tool_wrote_is_replaced_with_a_warning(pbmc):
    with pytest.warns(UserWarning, match=r"embed replaces adata.obsm\['X_pca'\], which another tool wrote"):
        embed(pbmc, "pca", use_rep="X_pca", key_added="X_pca")
    assert pbmc.obsm["X_pca"].shape == (pbmc.n_obs, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        embed(pbmc, "pca", use_rep="X_pca", key_added="X_pca")
        embed(pbmc, "pca")
        embed(pbmc, "pca")
    assert not [w for w in caught if "embed replaces" in str(w.message)]  # embed's own records, replaced by a rerun


def test_use_raw_embeds_the_raw_matrix(pbmc):
    "embed(adata, use_raw=True) reached IKD as an unknown keyword."
    embed(pbmc, use_raw=True, n_neighbors=15)
    raw = pbmc.raw.X.toarray() if sp.issparse(pbmc.raw.X) else np.asarray(pbmc.raw.X)
    np.testing.assert_array_equal(pbmc.obsm["X_ikd"], embed_array("ikd", raw, 2, random_state=0, n_neighbors=15))
    assert pbmc.uns["ikd"]["params"]["use_raw"] is True
