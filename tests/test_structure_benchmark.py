"""The structure benchmark's choice of variants and its merge of new rows into the results file (`benchmarks/structure.py`):
a rerun of some (data set, variant) pairs replaces exactly those rows and keeps the others with the run that made them."""
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import structure  # noqa: E402
from ikd.comparison import skip_reason  # noqa: E402


def row(dataset, variant, run="compare", **scores):
    return {"dataset": dataset, "variant": variant, "run": run, **scores}


def test_ikd_runs_its_defaults_on_the_small_sets_and_the_measured_landmarks_at_70000():
    "IKD's rows are `IKD(2)` as a user gets it, with the landmark count the 70 000-image rows were measured with; the IKD starts start from it."
    assert structure.options_of("ikd", 1797) == {}
    assert structure.options_of("ikd", 70_000) == {"n_landmarks": structure.SCALE_LANDMARKS}
    assert skip_reason("ikd", 70_000, 784, structure.options_of("ikd", 70_000)) == ""
    assert structure.VARIANTS["ikd"].scales and not structure.VARIANTS["ikd_landmarks"].scales
    assert structure.options_of("ikd_landmarks", 1797) == {"n_landmarks": 449}  # T / 4 on the small sets
    assert [structure.start_source(name) for name in ("umap_ikd_start", "opentsne_pca_start")] == ["ikd", "pca"]


def test_merge_replaces_the_rerun_rows_and_keeps_the_others():
    earlier = "own loop before compare"
    kept = [row("mnist_full", "umap", earlier, knn_5=0.97), row("digits", "pca", knn_5=0.49),
            row("mnist_full", "ikd_landmarks", earlier, knn_5=0.36),  # the old landmark fit: no longer run at 70 000
            row("digits", "retired_variant", knn_5=0.1)]
    new = [row("mnist_full", "ikd", knn_5=0.6, peak_memory_mib=2000.0)]
    merged = structure.merged(kept, new)
    assert [(r["dataset"], r["variant"]) for r in merged] == [("digits", "pca"), ("mnist_full", "ikd"), ("mnist_full", "umap")]
    umap = merged[2]
    assert umap["run"] == earlier and umap["knn_5"] == 0.97 and np.isnan(umap["peak_memory_mib"])
    assert merged[1]["run"] == "compare" and merged[1]["knn_5"] == 0.6
    assert structure.merged(list(reversed(kept)), new) == merged  # the order of the kept rows does not matter
