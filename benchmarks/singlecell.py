"""The measurements of the single-cell page (nbs/exp_singlecell.ipynb), written to nbs/results/ for the page to read.

Run: python benchmarks/singlecell.py [--results-dir nbs/results]
Data: Guo et al.'s qPCR of the early mouse embryo (437 cells, 48 genes; read from the folder that IKD_DATA names), and
scanpy's pbmc68k_reduced (700 blood cells) and krumsiek11 (640 simulated myeloid cells), which ship with scanpy.
Writes, under --results-dir:
- singlecell_guo_split.csv: the 5-NN accuracy of the two lineage splits (TE vs ICM among the 32- and 64-cell cells,
  PE vs EPI among the 64-cell ICM) in IKD's and PCA's 2-D maps;
- singlecell_guo_ordering.csv: |Spearman| of each 1-D map (IKD, PCA, scanpy's diffusion pseudotime, GPy's GPLVM
  started from IKD, Saul's LVM) with log2(stage), and its fit time;
- singlecell_guo_why.csv: what IKD's and PCA's coordinates follow (the TE vs ICM AUC of the 1-D map, its |Spearman|
  before the split, and the |Spearman| of each coordinate of the 2-D map);
- singlecell_pbmc_x, singlecell_pbmc_raw, singlecell_pbmc_pca and singlecell_krumsiek (.csv and .npz): `ikd.compare`
  tables (with their maps) of pbmc68k_reduced from .X, .raw and .obsm["X_pca"], and of krumsiek11, against the cell
  types, written by `comparison.save_comparison`.
The fits and scores of `compare` are cached (`comparison.default_cache_dir()`), so a rerun only re-times the Guo maps.
Every library runs single-threaded unless OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, MKL_NUM_THREADS or NUMBA_NUM_THREADS
say otherwise.
"""
import os

# one thread per library unless the environment says otherwise: comparable fit times, and a shared machine left alone
# only when run as a script: a notebook or test importing these helpers shares its process with others, and
# numba refuses a thread count that changes after its threads have started
if __name__ == "__main__":
    for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ.setdefault(_variable, "1")

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
METHODS = ["ikd", "pca", "isomap", "le", "tsne", "umap", "pacmap"]
PBMC_INPUTS = {"x": {}, "raw": {"use_raw": True}, "pca": {"use_rep": "X_pca"}}
GPLVM_ITERATIONS = 300


def guo_anndata():
    "Guo et al.'s qPCR as an AnnData, with the stage, the number of cells at that stage and the lineage in .obs."
    import anndata as ad
    from ikd.datasets import load_guo_qpcr
    X, stage = load_guo_qpcr()
    cells = np.array([int(s.split()[0]) for s in stage])
    lineage = np.array(["TE" if s.endswith("TE") else "ICM" if s.split()[-1] in ("ICM", "PE", "EPI") else "before the split"
                        for s in stage])
    stages = sorted(set(stage), key=lambda s: (int(s.split()[0]), s))
    obs = pd.DataFrame({"stage": pd.Categorical(stage, categories=stages), "cells": cells, "lineage": lineage},
                       index=[f"cell {i}" for i in range(len(X))])
    return ad.AnnData(X, obs=obs)


def spearman_with_stage(z, cells):
    "|Spearman| of a 1-D coordinate with log2 of the number of cells at the stage."
    from scipy.stats import spearmanr
    return abs(spearmanr(np.ravel(z), np.log2(cells)).statistic)


def lineage_auc(z, lineage):
    "How cleanly a 1-D coordinate separates TE from ICM among the 32- and 64-cell cells (0.5 chance, 1 a clean cut)."
    from sklearn.metrics import roc_auc_score
    late = lineage != "before the split"
    auc = roc_auc_score(lineage[late] == "TE", np.ravel(z)[late])
    return max(auc, 1 - auc)


def guo_split(guo):
    "The 5-NN accuracy of the two lineage splits in the 2-D maps `X_ikd` and `X_pca` of `guo`."
    from ikd.metrics import knn_accuracy
    stage, lineage = guo.obs["stage"].to_numpy().astype(str), guo.obs["lineage"].to_numpy()
    late, icm_64 = lineage != "before the split", np.isin(stage, ["64 PE", "64 EPI"])
    return pd.DataFrame({
        "TE vs ICM, 5-NN (32-64 cells)": {m: knn_accuracy(guo.obsm[f"X_{m}"][late], lineage[late]) for m in ("ikd", "pca")},
        "PE vs EPI, 5-NN (64-cell ICM)": {m: knn_accuracy(guo.obsm[f"X_{m}"][icm_64], stage[icm_64]) for m in ("ikd", "pca")},
    }).rename(index={"ikd": "IKD", "pca": "PCA"}).rename_axis("map")


def guo_why(guo, one_d):
    "What IKD's and PCA's coordinates follow: the lineage split or developmental time."
    cells, lineage = guo.obs["cells"].to_numpy(), guo.obs["lineage"].to_numpy()
    early = lineage == "before the split"
    return pd.DataFrame({name: {
        "TE vs ICM AUC of the 1-D map (32-64 cells)": lineage_auc(one_d[name], lineage),
        "|Spearman| of the 1-D map before the split (1-16 cells)": spearman_with_stage(one_d[name][early], cells[early]),
        "|Spearman| of the 2-D map's first coordinate": spearman_with_stage(guo.obsm[f"X_{key}"][:, 0], cells),
        "|Spearman| of the 2-D map's second coordinate": spearman_with_stage(guo.obsm[f"X_{key}"][:, 1], cells)}
        for name, key in (("IKD", "ikd"), ("PCA", "pca"))}).rename_axis("measure")


def guo_ordering(guo):
    "({method: 1-D map}, table of |Spearman| with log2(stage) and fit time) for IKD, PCA, dpt, GPLVM from IKD and Saul's LVM."
    import scanpy as sc
    from ikd.anndata import embed
    from ikd.gpy_warm_start import gplvm_from_ikd
    from ikd.lvm import TractableLVM
    cells, X = guo.obs["cells"].to_numpy(), np.asarray(guo.X)
    one_d, seconds = {}, {}
    for method, name in (("ikd", "IKD"), ("pca", "PCA")):
        start = time.perf_counter()
        embed(guo, method, 1, key_added=f"{method}_1d")
        seconds[name], one_d[name] = time.perf_counter() - start, guo.obsm[f"{method}_1d"][:, 0]
    start = time.perf_counter()
    sc.pp.neighbors(guo, n_neighbors=15, use_rep="X", random_state=0)
    sc.tl.diffmap(guo)
    guo.uns["iroot"] = int(np.flatnonzero(cells == 1)[0])  # rooted at a 1-cell-stage cell
    sc.tl.dpt(guo)
    seconds["diffusion pseudotime"] = time.perf_counter() - start
    one_d["diffusion pseudotime"] = guo.obs["dpt_pseudotime"].to_numpy()
    start = time.perf_counter()
    gplvm = gplvm_from_ikd(X, 1, random_state=0)
    gplvm.optimize(max_iters=GPLVM_ITERATIONS)
    seconds["GPLVM from IKD"], one_d["GPLVM from IKD"] = time.perf_counter() - start, np.asarray(gplvm.X)[:, 0]
    start = time.perf_counter()
    one_d["Saul's LVM"] = TractableLVM(1, random_state=0).fit_transform(X)[:, 0]
    seconds["Saul's LVM"] = time.perf_counter() - start
    ordering = pd.DataFrame({"|Spearman| with log2(stage)": {k: spearman_with_stage(z, cells) for k, z in one_d.items()},
                             "fit time (s)": seconds}).rename_axis("method")
    return one_d, ordering.sort_values("|Spearman| with log2(stage)", ascending=False)


def scanpy_sets():
    "scanpy's pbmc68k_reduced and krumsiek11, their own warnings (repeated cell names) kept quiet."
    import scanpy as sc
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sc.datasets.pbmc68k_reduced(), sc.datasets.krumsiek11()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results-dir", type=Path, default=ROOT / "nbs" / "results")
    args = parser.parse_args()
    from ikd.anndata import embed
    from ikd.comparison import compare, save_comparison
    out = args.results_dir
    warnings.simplefilter("ignore")  # the baselines' convergence and deprecation notes; the tables carry the results
    guo = guo_anndata()
    for method in ("ikd", "pca"): embed(guo, method, 2, key_added=f"X_{method}")  # the keys guo_split reads
    one_d, ordering = guo_ordering(guo)
    guo_split(guo).to_csv(out / "singlecell_guo_split.csv")
    ordering.to_csv(out / "singlecell_guo_ordering.csv")
    guo_why(guo, one_d).to_csv(out / "singlecell_guo_why.csv")
    print(ordering.round(3).to_string(), flush=True)
    pbmc, krumsiek = scanpy_sets()
    for name, choice in PBMC_INPUTS.items():
        table = compare(pbmc, "bulk_labels", methods=METHODS, **choice)
        save_comparison(table, out / f"singlecell_pbmc_{name}")
        print(f"pbmc68k_reduced, {name}: {(table['skipped'] == '').sum()} of {len(table)} methods ran", flush=True)
    table = compare(krumsiek, "cell_type", methods=METHODS)
    save_comparison(table, out / "singlecell_krumsiek")
    print(f"krumsiek11: {(table['skipped'] == '').sum()} of {len(table)} methods ran", flush=True)


if __name__ == "__main__":
    main()
