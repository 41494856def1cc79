"""The tables that the experiment pages show are their full runs: each table rendered in a page's saved outputs is
compared, row by row and number by number, with the results file the page reads (after the page's own aggregation,
rebuilt here from the file), so that a quick-mode execution saved over a full one fails here.

Rows are matched without regard to their order or labels: a shown row matches an expected one when it has the same
numbers, each equal to the expected value rounded to the decimals the page shows; a missing value is shown as a dash.
"""
import html
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ikd.style import label

NBS = Path(__file__).resolve().parent.parent / "nbs"
ROOT = NBS.parent
RESULTS = NBS / "results"
NUMBER = re.compile(r"[-−]?\d+(?:\.\d+)?")
MISSING = "—"


def rendered_tables(notebook):
    "{caption: [row, ...]} of the HTML tables in a notebook's saved outputs, each body row a list of cell texts."
    tables = {}
    for cell in json.loads((NBS / notebook).read_text())["cells"]:
        for output in cell.get("outputs", []):
            page = "".join(output.get("data", {}).get("text/html", ""))
            for table in re.findall(r"<table.*?</table>", page, re.S):
                caption = re.search(r"<caption>(.*?)</caption>", table, re.S)
                body = re.search(r"<tbody>(.*?)</tbody>", table, re.S)
                rows = [[html.unescape(re.sub(r"<[^>]+>", "", text)).strip()
                         for text in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
                        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body[1] if body else "", re.S)]
                tables[html.unescape(caption[1]).strip() if caption else ""] = rows
    return tables


def table_starting(tables, start):
    "The rows of the one table whose caption starts with `start`."
    found = [rows for caption, rows in tables.items() if caption.startswith(start)]
    assert len(found) == 1, f"{len(found)} tables captioned {start!r}; captions: {list(tables)}"
    return found[0]


def shown_numbers(row):
    "The numbers of a shown row, each as (value, decimals shown), None for a missing value; text cells are left out."
    numbers = []
    for text in row:
        if text == MISSING: numbers.append(None)
        elif NUMBER.fullmatch(text):
            numbers.append((float(text.replace("−", "-")), len(text.partition(".")[2])))
    return numbers


def agrees(shown, expected):
    "True when a shown row's numbers are the expected ones rounded to the shown decimals."
    if len(shown) != len(expected): return False
    for cell, value in zip(shown, expected):
        if cell is None or value is None or np.isnan(value):
            if not (cell is None and (value is None or np.isnan(value))): return False
        elif abs(cell[0] - value) > 0.5 * 10.0 ** -cell[1] + 1e-9: return False
    return True


def assert_same_rows(shown_rows, expected_rows, what):
    "Each expected row is shown once, and nothing else is shown."
    unmatched = [shown_numbers(row) for row in shown_rows]
    assert len(unmatched) == len(expected_rows), f"{what}: {len(unmatched)} rows shown, {len(expected_rows)} in the results"
    for expected in expected_rows:
        match = next((i for i, shown in enumerate(unmatched) if agrees(shown, expected)), None)
        assert match is not None, f"{what}: no shown row has the numbers {expected}"
        unmatched.pop(match)


def rows_of(frame):
    "The rows of a frame as lists of floats (NaN where missing)."
    return frame.astype(float).to_numpy().tolist()


def test_published_page_shows_the_full_run():
    results = pd.read_csv(RESULTS / "published.csv")
    tables = rendered_tables("exp_published.ipynb")
    five = results[results.k == 5]
    columns = ["n_components", "published", "ours (paper folds)", "ours - published (paper folds)", "ours (shuffled folds)"]
    per_dataset = [caption for caption in tables if ": 5-NN accuracy, stratified 5-fold: published and ours" in caption]
    assert len(per_dataset) == five.dataset.nunique(), f"one table per data set of the results: {per_dataset}"
    for dataset, rows in five.groupby("dataset"):
        assert_same_rows(table_starting(tables, f"{label(dataset)}: 5-NN accuracy"), rows_of(rows[columns]),
                         f"exp_published, {dataset}")
    like_for_like = five[five.dataset != "fmnist"].dropna(subset=["published"])
    gaps = like_for_like.reindex(like_for_like["ours - published (paper folds)"].abs().sort_values(ascending=False).index)
    assert_same_rows(table_starting(tables, "The largest differences between ours and published"),
                     rows_of(gaps[["n_components", "published", "ours (paper folds)", "ours - published (paper folds)"]].head(8)),
                     "exp_published, largest differences")
    why = pd.read_csv(RESULTS / "published_why.csv").set_index("dataset")
    assert_same_rows(table_starting(tables, "Where IKD loses on COIL-20 and qPCR"), rows_of(why.T), "exp_published, why")


def test_real_data_page_shows_the_full_run():
    results = pd.read_csv(RESULTS / "real.csv")
    tables = rendered_tables("exp_real.ipynb")
    for dataset, rows in results.groupby("dataset"):
        expected = [rows_of(rows.pivot_table(index="method", columns="n_components", values=score, dropna=False))
                    for score in ("knn_5", "knn_5_shuffled")]
        assert_same_rows(table_starting(tables, f"{label(dataset)}: 5-NN accuracy"), expected[0] + expected[1],
                         f"exp_real, {dataset}")


def test_kernel_table_page_shows_the_full_run():
    results = pd.read_csv(RESULTS / "table2.csv")
    rows = table_starting(rendered_tables("exp_table2.ipynb"), "IKD on digits: k-NN accuracy")
    ours = [row for row in rows if any(text.startswith("ours") for text in row)]  # the published rows are the paper's
    assert_same_rows(ours, rows_of(results[["k", "M=2", "M=3", "M=5", "M=10"]]), "exp_table2")


def test_row_order_page_shows_the_full_run():
    results = pd.read_csv(RESULTS / "roworder.csv")
    columns = ["M", "published IKD", "authors, stored order", "authors, permuted (mean)", "authors, permuted (min)",
               "IKD defaults, stored order", "IKD defaults, permuted (mean)"]
    rows = table_starting(rendered_tables("exp_roworder.ipynb"), "5-NN accuracy, paper folds: the published IKD figure")
    assert_same_rows(rows, rows_of(results[columns]), "exp_roworder")


def test_claims_page_shows_every_checked_claim():
    results = pd.read_csv(RESULTS / "claims.csv")
    rows = table_starting(rendered_tables("exp_claims.ipynb"), "Each claim's verdict")
    assert len(rows) == len(results), f"{len(rows)} claims shown, {len(results)} in the results"
    for claim in results.itertuples():
        verdict = claim.verdict + (f" ({claim._4} of {claim.cells})" if claim.cells else "")
        text = claim.claim.replace("R^2", "R²").replace(">=", "≥")  # as the page writes them
        assert any(text in row and verdict in row for row in rows), f"not shown: {text!r}, {verdict!r}"


def test_structure_page_shows_the_full_run():
    results = pd.read_csv(RESULTS / "structure.csv")
    scores = ["r2", "knn_5", "trustworthiness", "steadiness", "cohesiveness", "spearman_rho", "triplet_accuracy",
              "centroid_rank_correlation", "seconds"]
    tables = rendered_tables("exp_structure.ipynb")
    names = {"gp": "GP benchmark", "fashion_mnist_full": "Fashion-MNIST (70 000)", "mnist_full": "MNIST (70 000)"}
    own_start = results[~results.variant.str.endswith("_start")]
    assert own_start.dataset.nunique() == 6
    for dataset, rows in own_start.groupby("dataset"):
        shown = rows[scores].dropna(axis=1, how="all")
        assert_same_rows(table_starting(tables, f"{names.get(dataset, label(dataset))} (columns by kind"), rows_of(shown),
                         f"exp_structure, {dataset}")


def test_fig4_page_lists_every_cell_where_ikd_is_behind():
    results = pd.read_csv(RESULTS / "fig4.csv")
    cell = ["latent", "kernel", "n_features"]
    ikd = results[results.method == "ikd"].set_index(cell).r2
    others = results[results.method != "ikd"].groupby(cell).r2.max()
    behind = pd.DataFrame({"ikd": ikd, "best": others.reindex(ikd.index)}).query("best > ikd").reset_index()
    rows = table_starting(rendered_tables("exp_fig4.ipynb"), "The cells where another method's mean affine R")
    assert_same_rows(rows, rows_of(behind[["n_features", "ikd", "best"]]), "exp_fig4")
    notebook = (NBS / "exp_fig4.ipynb").read_text()
    assert f"IKD has the highest mean $R^2$ in {len(ikd) - len(behind)} of the {len(ikd)} cells" in notebook


def test_singlecell_page_shows_the_full_run():
    from ikd.comparison import load_comparison
    tables = rendered_tables("exp_singlecell.ipynb")
    split = pd.read_csv(RESULTS / "singlecell_guo_split.csv", index_col="map")
    assert_same_rows(table_starting(tables, "How well each 2-D map keeps the two lineage splits apart"), rows_of(split),
                     "exp_singlecell, lineage splits")
    ordering = pd.read_csv(RESULTS / "singlecell_guo_ordering.csv", index_col="method")
    assert_same_rows(table_starting(tables, "1-D maps of the qPCR cells against developmental time"), rows_of(ordering),
                     "exp_singlecell, ordering")
    why = pd.read_csv(RESULTS / "singlecell_guo_why.csv", index_col="measure")
    assert_same_rows(table_starting(tables, "What IKD's and PCA's coordinates follow"), rows_of(why), "exp_singlecell, why")
    local = ["knn_accuracy", "trustworthiness", "continuity", "steadiness", "cohesiveness"]
    layout = ["spearman_rho", "triplet_accuracy", "centroid_rank_correlation", "seconds"]
    pbmc = pd.concat([pd.DataFrame(load_comparison(RESULTS / f"singlecell_pbmc_{key}")) for key in ("x", "raw", "pca")])
    krumsiek = pd.DataFrame(load_comparison(RESULTS / "singlecell_krumsiek"))
    for frame, start, what in ((pbmc, "pbmc68k_reduced", "pbmc68k_reduced"), (krumsiek, "krumsiek11", "krumsiek11")):
        assert_same_rows(table_starting(tables, f"{start}, neighbourhoods"), rows_of(frame[local]), f"exp_singlecell, {what} local")
        assert_same_rows(table_starting(tables, f"{start}, global layout and cost"), rows_of(frame[layout]),
                         f"exp_singlecell, {what} global")


def test_fig13_page_shows_the_scale_run_beyond_4000_images():
    "Fig. 13 beyond T = 4000: IKD, PCA and UMAP on Fashion-MNIST subsets and all 70 000 images, from landmark_scale.csv."
    runs = pd.read_csv(ROOT / "benchmarks" / "results" / "landmark_scale.csv")
    beyond = pd.concat([runs.query("experiment == 'growing' and T < 70000"), runs.query("experiment == 'images' and data == 'fashion'")])
    expected = beyond.pivot_table(index="T", columns="method", values="score_paper_folds")
    rows = table_starting(rendered_tables("exp_fig13.ipynb"), "5-NN accuracy under the paper's folds beyond T = 4000")
    assert_same_rows(rows, [[T, *expected.loc[T, ["ikd", "pca", "umap"]]] for T in expected.index], "exp_fig13")


@pytest.mark.parametrize("notebook", sorted(NBS.glob("exp_*.ipynb")), ids=lambda path: path.stem)
def test_every_experiment_page_with_tables_is_compared(notebook):
    "A new experiment page that shows tables from a results file gets its own comparison above."
    compared = {"exp_published", "exp_real", "exp_table2", "exp_roworder", "exp_claims", "exp_structure", "exp_fig4",
                "exp_singlecell", "exp_fig13"}
    reads_results = re.search(r"results/[\w-]+\.csv", notebook.read_text())
    if reads_results and rendered_tables(notebook.name):
        assert notebook.stem in compared, f"{notebook.stem} shows tables from {reads_results[0]} that no test compares"
