"""ikd.compare (issue 45): known answers, row-order invariance, sparse = dense, bad input by name, skips with reasons, the cache
and its code fingerprint, a saved comparison read back."""
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import ikd
from ikd import comparison
from ikd.baselines import embed
from ikd.comparison import compare, plot_comparison, ranks
from ikd.datasets import gp_observations, ou_latent
from ikd.metrics import affine_r2

FAST = ["ikd", "pca", "isomap", "le"]
COSTS = ["seconds", "peak_memory_mib"]


@pytest.fixture(scope="module")
def gp():
    "GP observations of a smooth 3-D latent (the GPLVM's own model), with classes from the latent's quadrants."
    latent = ou_latent(200, 3, random_state=0)
    X = gp_observations(latent, 60, lengthscale=3.0, noise=0.05, random_state=0)
    labels = (latent[:, 0] > 0).astype(int) + 2 * (latent[:, 1] > 0)
    return X, labels, latent


@pytest.fixture(scope="module")
def table(gp):
    X, labels, latent = gp
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare(X, labels, methods=FAST, n_components=3, latent=latent, cache=False)


def test_ikd_is_first_on_r2_where_the_data_follow_the_gplvm(gp, table):
    X, _, latent = gp
    assert table["r2"].idxmax() == "ikd" and table["r2"]["ikd"] > table["r2"].drop("ikd").max() + 0.03
    # each R^2 is the one metrics.affine_r2 gives the registry's map
    for method in ("ikd", "pca"):
        assert table.loc[method, "r2"] == pytest.approx(affine_r2(embed(method, X, 3, random_state=0), latent), abs=1e-12)
    assert ikd.compare is compare  # the package exposes it


def test_table_layout_and_directions(table):
    assert list(table.index) == FAST and (table["skipped"] == "").all()
    assert list(table.columns[:5]) == ["name", "seconds", "peak_memory_mib", "r2", "knn_accuracy"]
    higher = table.attrs["higher_is_better"]
    assert higher["trustworthiness"] and not higher["kl_divergence_0.1"] and not higher["seconds"]
    assert set(higher) == set(table.columns) - {"name", "skipped"}
    rank = ranks(table)
    assert rank.loc[table["kl_divergence_0.1"].astype(float).round(3).idxmin(), "kl_divergence_0.1"] == 1
    assert rank.loc[table["trustworthiness"].astype(float).round(3).idxmax(), "trustworthiness"] == 1
    # the peak resident memory above the process's level at the start of a fit: 0 where a small fit reuses memory the
    # process already holds (as it does late in a long test session)
    assert (table["peak_memory_mib"] >= 0).all() and np.isfinite(table["peak_memory_mib"]).all()
    assert (table["seconds"] > 0).all()


def test_scores_do_not_depend_on_row_order(gp, table):
    X, labels, latent = gp
    order = np.random.default_rng(3).permutation(len(X))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        permuted = compare(X[order], labels[order], methods=["ikd", "pca"], n_components=3, latent=latent[order], cache=False)
    scores = [c for c in permuted.columns if c not in COSTS + ["name", "skipped"]]
    np.testing.assert_allclose(permuted[scores].to_numpy(float), table.loc[["ikd", "pca"], scores].to_numpy(float),
                               rtol=0, atol=1e-9)


def test_sparse_input_equals_dense(gp):
    X, labels, _ = gp
    X = np.clip(X, 0, None)  # sparse, as counts are
    # IKD, the one method that takes a sparse X as it is; the dense copy the others get is tested with embed in test_anndata
    dense = compare(X, labels, methods=["ikd"], cache=False)
    from_sparse = compare(sp.csr_matrix(X), labels, methods=["ikd"], cache=False)
    np.testing.assert_allclose(from_sparse.maps["ikd"], dense.maps["ikd"], rtol=0, atol=1e-10)
    scores = [c for c in dense.columns if c not in COSTS + ["name", "skipped"]]
    np.testing.assert_allclose(from_sparse[scores].to_numpy(float), dense[scores].to_numpy(float), rtol=0, atol=1e-9)


@pytest.mark.parametrize("call, message", [
    (lambda X, y, Z: compare(X[:, :, None]), "X must be a 2-D array"),
    (lambda X, y, Z: compare(np.where(np.eye(len(X), X.shape[1]) > 0, np.nan, X)), "X contains NaN"),
    (lambda X, y, Z: compare(X[:5]), "X has 5 points"),
    (lambda X, y, Z: compare(X, y[:-1]), "labels must hold one class per point"),
    (lambda X, y, Z: compare(X, np.where(y == 0, np.nan, y)), "labels contain NaN"),
    (lambda X, y, Z: compare(X, "cell_type"), "labels names an .obs column only when X is an AnnData"),
    (lambda X, y, Z: compare(X, methods=["pca", "tsnee"]), "unknown methods ['tsnee']"),
    (lambda X, y, Z: compare(X, methods=[]), "methods is empty"),
    (lambda X, y, Z: compare(X, latent=Z[:-1]), "latent must be a (T, M) array"),
    (lambda X, y, Z: compare(X, n_components=0), "n_components must be a positive integer"),
    (lambda X, y, Z: compare(X, max_seconds=-1), "max_seconds must be a positive number"),
    (lambda X, y, Z: compare(X, random_state=None), "random_state must be an integer seed"),
    (lambda X, y, Z: compare(X, use_rep="X_pca"), "layer, use_rep and use_raw choose a matrix of an AnnData"),
    (lambda X, y, Z: compare(X, methods=["pca"], options={"umap": {}}), "options names methods that are not compared"),
    # compare's own arguments inside options made every fit fail with "got multiple values for argument 'random_state'"
    (lambda X, y, Z: compare(X, methods=["ikd"], options={"ikd": {"random_state": 3}}), "pass compare(..., random_state=...)"),
    (lambda X, y, Z: compare(X, methods={"ikd 3": ("ikd", {"n_components": 3})}), "set n_components"),
    (lambda X, y, Z: compare(X, methods=None), "methods must be 'default', 'all'"),
    (lambda X, y, Z: compare(X, methods=5), "methods must be 'default', 'all'"),
    (lambda X, y, Z: compare(X, methods={"a": ("pca",)}), "methods['a'] must be a method key or a tuple"),
    (lambda X, y, Z: compare(X, methods={"a": ["pca", {}]}), "methods['a'] must be a method key or a tuple"),
    (lambda X, y, Z: compare(X, methods={"a": ("pca", "x")}), "methods['a'] must be a method key or a tuple"),
    (lambda X, y, Z: compare(X, methods=["pca", "pca"]), "methods names ['pca'] more than once"),
    (lambda X, y, Z: compare(X, methods=["pca"], options=[1]), "options must be a dict"),
    (lambda X, y, Z: compare(X, methods=["pca"], options={"pca": 1}), "options must be a dict"),
    (lambda X, y, Z: compare(X, methods=["pca"], cache=True), "cache must be a folder"),
    (lambda X, y, Z: compare(X + 1j, methods=["pca"]), "X is complex"),
    (lambda X, y, Z: compare(sp.csr_matrix(X + 1j), methods=["pca"]), "X is complex"),
    (lambda X, y, Z: compare(X, np.array([None, *y[1:]], dtype=object), methods=["pca"]), "labels contain None"),
    (lambda X, y, Z: compare(X, np.array(["a", *y[1:]], dtype=object), methods=["pca"]), "labels mix kinds"),
])
def test_bad_input_is_refused_by_name(gp, call, message):
    with pytest.raises((ValueError, TypeError)) as error:
        call(*gp)
    assert message in str(error.value)


def test_methods_that_cannot_run_are_skipped_with_the_reason(gp, monkeypatch):
    X, labels, _ = gp
    monkeypatch.setitem(comparison.PACKAGES, "le", "ikd_no_such_package")
    monkeypatch.setitem(comparison.MAX_POINTS, "isomap", 50)
    table = compare(X, labels, methods={"pca": ("pca", {}), "isomap": ("isomap", {}), "le": ("le", {}),
                                        "broken pca": ("pca", {"no_such_option": 1})}, cache=False)
    assert table.loc["pca", "skipped"] == ""
    assert table.loc["le", "skipped"] == "needs the optional package 'ikd_no_such_package', which is not installed"
    assert table.loc["isomap", "skipped"] == "200 points, more than the 50 it runs on here"
    assert table.loc["broken pca", "skipped"].startswith("failed: TypeError")
    assert table.drop("pca")[["trustworthiness", "seconds"]].isna().all().all()
    assert set(table.maps) == {"pca"}
    spent = compare(X, methods=["pca", "mds"], max_seconds=1e-9, cache=False)
    assert spent["skipped"].str.startswith("time budget of 1e-09 s spent").all()


def test_a_rerun_reads_the_cache_and_other_row_orders_or_code_miss_it(gp, tmp_path, monkeypatch):
    X, labels, _ = gp
    first = compare(X, labels, methods=["pca"], cache=tmp_path)
    def refuse(*args, **kwargs): raise RuntimeError("refit")
    monkeypatch.setattr(comparison, "fit_map", refuse)
    again = compare(X, labels, methods=["pca"], cache=tmp_path)
    assert again.drop(columns="name").equals(first.drop(columns="name"))  # the cached fit's time too
    permuted = compare(X[::-1], labels[::-1], methods=["pca"], cache=tmp_path)  # other data to a cache of maps
    assert permuted.loc["pca", "skipped"] == "failed: RuntimeError: refit"
    monkeypatch.setattr(comparison, "code_fingerprint", lambda: "0.1.0+other sources")  # the same data, changed code
    changed = compare(X, labels, methods=["pca"], cache=tmp_path)
    assert changed.loc["pca", "skipped"] == "failed: RuntimeError: refit"


def test_the_code_fingerprint_follows_every_source_file(tmp_path):
    import importlib.util
    from pathlib import Path
    package = Path(importlib.util.find_spec("ikd").origin).parent
    for source in package.glob("*.py"): (tmp_path / source.name).write_bytes(source.read_bytes())
    # computed afresh (the cached value is the sources' when the process first asked)
    assert comparison.code_fingerprint.__wrapped__() == f"{ikd.__version__}+{comparison.source_hash(tmp_path)}"
    before = comparison.source_hash(tmp_path)
    with open(tmp_path / "metrics.py", "a") as source: source.write("\n# one more line\n")
    edited = comparison.source_hash(tmp_path)
    assert edited != before
    (tmp_path / "metrics.py").rename(tmp_path / "metric.py")  # a renamed module is other code too
    assert comparison.source_hash(tmp_path) not in (before, edited)


def test_a_saved_comparison_reads_back_whole(table, tmp_path):
    comparison.save_comparison(table, tmp_path / "kept" / "gp")
    read = comparison.load_comparison(tmp_path / "kept" / "gp")
    pd.testing.assert_frame_equal(pd.DataFrame(read), pd.DataFrame(table), check_exact=True)
    assert read.attrs == table.attrs and list(read.maps) == list(table.maps)
    for name, Z in table.maps.items(): np.testing.assert_array_equal(read.maps[name], Z)
    np.testing.assert_array_equal(read.labels, table.labels)


def test_the_figure_draws_every_map_and_the_rank_heat_map(table):
    import matplotlib
    matplotlib.use("Agg")
    fig = plot_comparison(table)
    visible = [ax for ax in fig.get_axes() if ax.get_visible()]
    assert len(visible) == len(table) + 1
    heat = visible[-1]
    assert [t.get_text() for t in heat.get_yticklabels()] == list(table["name"])
    assert len(heat.texts) == ranks(table).size
    with pytest.raises(ValueError, match="carries no maps"):
        plot_comparison(pd.DataFrame(table))  # a plain copy of the table keeps no maps


def test_the_folds_do_not_depend_on_the_scale_dtype_or_order_of_x(gp):
    "The folds were drawn in an order hashed from X's bytes: 7 X gave another 5-NN accuracy than X (0.900 against 0.910)."
    X, labels, _ = gp
    pca = embed("pca", X, 2, random_state=0)
    orders = [comparison._content_order(data, pca, labels) for data in
              (X, 7 * X, X.astype(np.float32).astype(np.float64), sp.csr_matrix(X), X + 1e3)]
    for order in orders[1:]: np.testing.assert_array_equal(order, orders[0])
    shuffled = np.random.default_rng(5).permutation(len(X))
    np.testing.assert_array_equal(shuffled[comparison._content_order(X[shuffled], pca[shuffled], labels[shuffled])], orders[0])
    accuracies = {tuple(compare(data, labels, methods=["ikd", "pca"], cache=False)["knn_accuracy"].round(12).to_numpy())
                  for data in (X, 7 * X, X.astype(np.float32))}  # the same folds for every method too
    assert len(accuracies) == 1, accuracies


def test_continuous_labels_colour_the_maps_and_skip_the_class_scores(gp):
    X, _, latent = gp
    for labels in (latent[:, 0], np.arange(len(X))):  # continuous values; one class per point
        with pytest.warns(UserWarning, match="the 5-NN accuracy and the centroid rank correlation are skipped"):
            table = compare(X, labels, methods=["pca"], cache=False)
        assert "knn_accuracy" not in table and table["centroid_rank_correlation"].isna().all()
        assert table.loc["pca", "skipped"] == "" and table.labels is not None


def test_the_figure_of_a_slice_draws_its_rows(table):
    import matplotlib
    matplotlib.use("Agg")
    for part in (table.loc[["ikd", "pca"]], table.loc[["ikd", "pca"]].reset_index()):  # raised KeyError 'le'
        titles = {ax.get_title() for ax in plot_comparison(part).get_axes() if ax.get_visible()}
        assert {"IKD", "PCA"} <= titles and not titles & {"Isomap", "Laplacian eigenmaps"}, titles


def test_a_cache_that_cannot_be_written_keeps_the_results_and_warns_once(gp, tmp_path):
    X, labels, _ = gp
    (tmp_path / "a file").write_text("")  # no folder can be made inside a file
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = compare(X, labels, methods=["pca", "le"], cache=tmp_path / "a file")
    assert (table["skipped"] == "").all() and set(table.maps) == {"pca", "le"}
    assert sum("could not write its cache" in str(w.message) for w in caught) == 1


def test_ikd_past_the_exact_fit_size_is_skipped_unless_it_fits_landmarks():
    "n_landmarks='auto' is the exact fit up to AUTO_EXACT_POINTS rows: between MAX_POINTS['ikd'] and that, a T x T fit."
    from ikd.landmarks import AUTO_EXACT_POINTS
    assert comparison.MAX_POINTS["ikd"] < 15_000 <= AUTO_EXACT_POINTS
    assert "more than the 10000" in comparison.skip_reason("ikd", 15_000, 50, {})
    assert comparison.skip_reason("ikd", 15_000, 50, {"n_landmarks": 500}) == ""
    assert comparison.skip_reason("ikd", AUTO_EXACT_POINTS + 1, 50, {}) == ""


def test_a_sparse_x_too_large_to_densify_is_scored_on_a_sample(gp, monkeypatch):
    X, labels, _ = gp
    X = sp.csr_matrix(np.clip(X, 0, None))
    monkeypatch.setattr(comparison, "DENSE_LIMIT", 120 * X.shape[1])  # room for 120 of the 200 rows
    densified = []
    monkeypatch.setattr(comparison, "structure_scores", lambda dense, *args, **kwargs: densified.append(dense.shape) or
                        dict.fromkeys(ikd.metrics.STRUCTURE_SCORES, 0.0))
    table = compare(X, labels, methods=["ikd"], cache=False)
    assert densified == [(120, X.shape[1])] and table.loc["ikd", "skipped"] == ""
    rows = comparison._scored_rows(X, 0)
    shuffled = np.random.default_rng(2).permutation(X.shape[0])
    np.testing.assert_array_equal(np.sort(shuffled[comparison._scored_rows(X[shuffled], 0)]), rows)  # not by position
