"""ikd.style.table on known inputs: the cells a reader sees for decimals, counts and ranks, row numbers, names, maths
and missing values."""
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ikd.style import table

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "nbs").glob("*.ipynb"))


def cells(styler):
    "The header and body cells of the rendered table, as the text between the tags."
    page = styler.to_html()
    return (re.findall(r"<th [^>]*>([^<]*)</th>", page), re.findall(r"<td [^>]*>([^<]*)</td>", page))


def test_fixed_decimals_per_column():
    frame = pd.DataFrame({"knn_5": [0.9, 0.88149], "seconds": [12.34567, 0.5]})
    assert cells(table(frame, decimals={"seconds": 1}))[1] == ["0.900", "12.3", "0.881", "0.5"]
    assert cells(table(frame, decimals=2))[1] == ["0.90", "12.35", "0.88", "0.50"]


def test_counts_and_ranks_print_as_integers():
    frame = pd.DataFrame({"rank": [1.0, 2.0, np.nan], "n_points": [70000, 1797, 1440]})  # NaN makes `rank` float
    assert cells(table(frame))[1] == ["1", "70000", "2", "1797", "—", "1440"]


def test_row_numbers_hidden_row_names_kept():
    frame = pd.DataFrame({"knn_5": [0.9, 0.8]}, index=[3, 7])
    page = table(frame).to_html()
    assert "row_heading" not in page and ">3<" not in page and ">7<" not in page
    named = pd.DataFrame({"knn_5": [0.9, 0.8]}, index=pd.Index(["ikd", "pca"], name="method"))
    assert cells(table(named)) == (["method", "5-NN accuracy"], ["IKD", "0.900", "PCA", "0.800"])
    unnamed = pd.DataFrame({"knn_5": [0.9]}, index=["digits"])
    assert cells(table(unnamed)) == (["", "5-NN accuracy"], ["digits", "0.900"])


def test_keys_become_readable_names_with_maths_for_katex():
    frame = pd.DataFrame({"kernel": ["gamma_exponential", "matern"], "dataset": ["coil20", "fmnist"],
                          "method": ["tsne", "not a key"], "r2": [0.5, 0.25]})
    header, body = cells(table(frame))
    assert header == ["kernel", "dataset", "method", r"\(R^2\) (affine fit to the true latent)"]
    assert body == [r"\(\gamma\)-exponential", "COIL-20", "t-SNE", "0.500", "Matérn", "Fashion-MNIST", "not a key", "0.250"]
    assert "$" not in table(frame).to_html()


def test_missing_values_are_dashes_explained_in_the_caption():
    frame = pd.DataFrame({"method": ["gplvm"], "knn_5": [np.nan]})
    page = table(frame, caption="Digits.", missing="a fit that did not finish").to_html()
    assert "NaN" not in page and "nan" not in page
    assert "<caption>Digits. — marks a fit that did not finish.</caption>" in page
    assert "<caption>" not in table(frame.fillna(0.5)).to_html()


def test_alignment_and_class():
    page = table(pd.DataFrame({"method": ["ikd"], "knn_5": [0.9]})).to_html()
    assert 'class="ikd-table"' in page
    assert re.search(r"\.col0 \{\s*text-align: left", page) and re.search(r"\.col1 \{\s*text-align: right", page)


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_every_saved_table_comes_from_style_table(notebook):
    "A table a page shows is the `ikd-table` Styler of `ikd.style.table`, never a raw pandas frame or another Styler."
    for number, cell in enumerate(json.loads(notebook.read_text())["cells"]):
        for output in cell.get("outputs", []):
            page = "".join(output.get("data", {}).get("text/html", ""))
            for tag in re.findall(r"<table\b[^>]*>", page):
                assert 'class="ikd-table"' in tag, f"cell {number} shows a table not made by ikd.style.table: {tag}"
