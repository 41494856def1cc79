"""Local and global structure of every method's map, on the GP benchmark and the real data sets, with fit times.

Run: python benchmarks/structure.py [--datasets gp digits coil20 qpcr] [--methods ...] [--max-rows N] [--max-points 3000]
                                    [--results-dir nbs/results] [--quick]
Data sets: gp (the GP benchmark of Sec. 3.1: the Eq. 12 latent, T = 1000, M = 3, N = 100 squared-exponential GP draws
with l = 3 and noise sd 0.05, seed 0), digits, coil20, qpcr, and fashion_mnist_full and mnist_full (all 70 000 images,
where only the methods that scale run; give --datasets fashion_mnist_full mnist_full to run them). The maps have
M = 3 on the GP benchmark (its latent dimension) and M = 2 on the real data. The data are read from the folder that
IKD_DATA names.
Each map is scored by `metrics.structure_scores` (pairwise scores on a seeded subset of --max-points points), 5-NN
accuracy under the paper's unshuffled folds and under shuffled ones (real data), and the affine R^2 against the true
latent (GP benchmark). The starting-map variants run t-SNE (openTSNE), UMAP, PaCMAP and Saul's LVM from PCA's map and
from IKD's (IKD's defaults; its landmark fit on the 70 000-image sets) besides their own default start; on the
70 000-image sets the structure page runs them for all but Saul's LVM (give --methods to choose).
Each (data set, method) is one trial cached in <results-dir>/structure/cache/<data set>-<method>.jsonl, so a rerun
resumes; its map is kept in <results-dir>/structure/embeddings/. The scores go to <results-dir>/structure.csv: the
rows of the (data set, method) pairs run are replaced, the others kept. --max-rows N runs on a seeded subset of N rows
(a check of the large sets at small size; give another --results-dir for it). --quick: 300 digits, four methods, in a
temporary folder unless --results-dir names one.
Every library runs single-threaded unless OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, MKL_NUM_THREADS or NUMBA_NUM_THREADS
say otherwise. The fit times are wall times of one fit; a method with numba code is first fitted on 200 and on 5000
random points, so that its compilation (once per process) is not in the time.
"""
import os

# one thread per library unless the environment says otherwise: comparable fit times, and a shared machine left alone
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse
import functools
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ikd.baselines import timed_embed
from ikd.datasets import gp_observations, load_coil20, load_digits, load_fashion_mnist, load_guo_qpcr, load_mnist, ou_latent
from ikd.experiments import GPLVM_MAX_POINTS, read_csv, run_trials, write_csv
from ikd.metrics import STRUCTURE_SCORES, affine_r2, knn_accuracy, structure_scores

ROOT = Path(__file__).resolve().parent.parent
LARGE_DATASETS = ("fashion_mnist_full", "mnist_full")  # 70 000 points: only the methods that scale (no T x T matrix)
MAX_LANDMARKS = 2000  # IKD's landmark fit: min(2000, T / 4) landmarks (2000 on 70 000 images, as fashion_mnist_full.py)
GPLVM_MAX_FEATURES = 1000  # GPy's exact GPLVM costs O(T^2 N) a step: on COIL-20 (N = 16 384) one fit ran past 19 min


@dataclass(frozen=True)
class Variant:
    "A method of `baselines.METHODS` with the settings one row of the tables names."
    method: str  # the registry key
    setting: str = ""  # what differs from the method's defaults, as the tables say it ("" for the defaults)
    options: dict = field(default_factory=dict)  # passed to `baselines.embed`, or a function of T that returns them
    start: str = ""  # "pca" or "ikd": the map the method starts from ("" for its own default start)
    scales: bool = False  # runs on the 70 000-image sets


def landmark_options(n_points): return {"n_landmarks": min(MAX_LANDMARKS, n_points // 4)}


# the option through which each method takes a starting map
START_OPTION = {"opentsne": "initialization", "umap": "init", "pacmap": "init", "saul_lvm": "init"}

VARIANTS = {
    "ikd": Variant("ikd"),
    "ikd_distance": Variant("ikd", "distance paths", {"path": "distance"}),
    "ikd_product": Variant("ikd", "product paths", {"path": "product"}),
    "ikd_full": Variant("ikd", "full solver", {"solver": "full"}),
    "ikd_landmarks": Variant("ikd", "landmarks", landmark_options, scales=True),
    "pca": Variant("pca", scales=True),
    "isomap": Variant("isomap"),
    "le": Variant("le"),
    "mds": Variant("mds"),
    "tsne": Variant("tsne"),
    "opentsne": Variant("opentsne", scales=True),
    "umap": Variant("umap", scales=True),
    "pacmap": Variant("pacmap", scales=True),
    "trimap": Variant("trimap", scales=True),
    "sne": Variant("sne"),
    "saul_lvm": Variant("saul_lvm", scales=True),
    "gplvm": Variant("gplvm"),
    **{f"{method}_{start}_start": Variant(method, f"{start.upper()} start", start=start, scales=True)
       for method in START_OPTION for start in ("pca", "ikd")},
}

DATASETS = ("gp", "digits", "coil20", "qpcr", "fashion_mnist_full", "mnist_full")
QUICK_METHODS = ("pca", "ikd", "umap", "umap_ikd_start")


@functools.lru_cache(maxsize=1)
def load(dataset, max_rows=None):
    "(X, labels or None, true latent or None) of a data set, on a seeded subset of `max_rows` rows in stored order."
    if dataset == "gp":
        Z = ou_latent(1000, 3, random_state=0)
        X, y = gp_observations(Z, 100, lengthscale=3.0, noise=0.05, random_state=0), None
    else:
        loaders = {"digits": load_digits, "coil20": load_coil20, "qpcr": load_guo_qpcr, "mnist_full": load_mnist,
                   "fashion_mnist_full": lambda: load_fashion_mnist(n_samples=None)}
        (X, y), Z = loaders[dataset](), None
    if max_rows is not None and max_rows < len(X):
        keep = np.sort(np.random.default_rng(0).choice(len(X), max_rows, replace=False))
        X, y, Z = X[keep], None if y is None else y[keep], None if Z is None else Z[keep]
    return np.asarray(X, dtype=np.float64), y, Z


def runs_on(name, dataset, n_points, n_features):
    "Whether variant `name` runs on this data set, of this size."
    variant = VARIANTS[name]
    if dataset in LARGE_DATASETS and not variant.scales: return False
    return variant.method != "gplvm" or (n_points <= GPLVM_MAX_POINTS and n_features <= GPLVM_MAX_FEATURES)


def start_map(dataset, name, n_components, max_rows, seed, results_dir):
    "The starting map of a variant: PCA's or IKD's map of the same trial settings, centred and, for openTSNE, scaled as openTSNE scales its own PCA start."
    variant = VARIANTS[name]
    X = load(dataset, max_rows)[0]
    source = "pca" if variant.start == "pca" else ("ikd_landmarks" if dataset in LARGE_DATASETS else "ikd")
    path = embedding_path(results_dir, dataset, source, max_rows)
    U = np.load(path).astype(np.float64) if path.exists() else timed_embed(
        source, X, n_components, random_state=seed, **resolved_options(source, len(X)))[0]
    U = U - U.mean(0)
    if variant.method == "opentsne":
        from openTSNE.initialization import rescale
        U = rescale(U)  # UMAP and PaCMAP rescale a given start themselves
    return U


def resolved_options(name, n_points):
    options = VARIANTS[name].options
    return options(n_points) if callable(options) else dict(options)


def embedding_path(results_dir, dataset, name, max_rows):
    return Path(results_dir) / "structure" / "embeddings" / f"{dataset}{'' if max_rows is None else f'-{max_rows}'}-{name}.npy"


# methods with numba code, compiled at a process's first call of each code path: UMAP takes one path below 4096 rows
# (exact neighbours) and another from there on (pynndescent, which the 70 000-image fits run), so it is warmed on both
COMPILED = ("umap", "pacmap", "trimap", "saul_lvm")
WARM_UP_ROWS = (200, 5000)
# Saul's LVM compiles only its approximate neighbour search (pynndescent, above 40 000 rows): asked for it, with two EM
# iterations (numpy code, nothing to compile; 400 on random points took minutes)
WARM_UP_OPTIONS = {"saul_lvm": {"neighbors": "approximate", "max_iter": 2}}


@functools.cache
def warm_up(method, n_components):
    "Fit a compiled method on random points of both sizes, so that the timed fit does not pay numba's compilation."
    if method not in COMPILED: return
    for rows in WARM_UP_ROWS:
        timed_embed(method, np.random.default_rng(0).normal(size=(rows, 10)), n_components, random_state=0,
                    **WARM_UP_OPTIONS.get(method, {}))


def trial(dataset, method, n_components, max_rows, max_points, seed, results_dir):
    "Embed one data set with one variant, keep the map, and score it: one result row."
    X, y, Z = load(dataset, max_rows)
    variant = VARIANTS[method]
    options = resolved_options(method, len(X))
    if variant.start: options[START_OPTION[variant.method]] = start_map(dataset, method, n_components, max_rows, seed, results_dir)
    if variant.method == "opentsne" and n_components > 2: options["negative_gradient_method"] = "bh"  # FFT: 1-2 dims only
    try:
        warm_up(variant.method, n_components)
        U, seconds = timed_embed(variant.method, X, n_components, random_state=seed, **options)
        error = "" if np.all(np.isfinite(U)) else "non-finite embedding"
    except Exception as failure:  # recorded in the results, not hidden
        U, seconds, error = None, float("nan"), f"{type(failure).__name__}: {str(failure)[:200]}"
    row = {"n_points": len(X), "seconds": seconds, "error": error}
    if error:
        return [{**row, "knn_5": float("nan"), "knn_5_shuffled": float("nan"), "r2": float("nan"),
                 **{score: float("nan") for score in STRUCTURE_SCORES}}]
    path = embedding_path(results_dir, dataset, method, max_rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, U.astype(np.float32))
    knn = {"knn_5": float("nan"), "knn_5_shuffled": float("nan")} if y is None else {
        "knn_5": knn_accuracy(U, y, 5, folds="paper"), "knn_5_shuffled": knn_accuracy(U, y, 5, folds="shuffled")}
    return [{**row, **knn, "r2": float("nan") if Z is None else affine_r2(U, Z),
             **structure_scores(X, U, y, max_points=max_points, random_state=seed)}]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=["gp", "digits", "coil20", "qpcr"], choices=DATASETS)
    parser.add_argument("--methods", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--max-rows", type=int, default=None, help="run on a seeded subset of this many rows")
    parser.add_argument("--max-points", type=int, default=3000, help="points of the pairwise scores' subset")
    parser.add_argument("--results-dir", default=str(ROOT / "nbs" / "results"))
    parser.add_argument("--quick", action="store_true", help="300 digits, four methods, a temporary results folder")
    args = parser.parse_args()
    if args.quick:
        args.datasets, args.methods, args.max_rows = ["digits"], list(QUICK_METHODS), 300
        if args.results_dir == parser.get_default("results_dir"): args.results_dir = tempfile.mkdtemp(prefix="ikd_structure_")
    warnings.simplefilter("ignore")  # the methods' own warnings (disconnected graphs, convergence) would bury the table
    rows = []
    for dataset in args.datasets:
        X, _, _ = load(dataset, args.max_rows)
        n_components = 3 if dataset == "gp" else 2
        # the start maps' sources first, so that the starting-map variants read their kept maps
        names = sorted((m for m in args.methods if runs_on(m, dataset, *X.shape)), key=lambda m: bool(VARIANTS[m].start))
        for name in names:
            settings = dict(dataset=dataset, method=name, n_components=n_components, max_rows=args.max_rows,
                            max_points=args.max_points, seed=0)
            cached = run_trials(f"{dataset}-{name}", [settings], functools.partial(trial, results_dir=args.results_dir),
                                results_dir=Path(args.results_dir) / "structure", verbose=False)
            variant = VARIANTS[name]
            rows += [{**row, "method": variant.method, "setting": variant.setting, "variant": name} for row in cached]
            print(f"{dataset:>20s} {name:>18s} {cached[0]['seconds']:8.1f} s {cached[0]['error']}", flush=True)
    csv = Path(args.results_dir) / "structure.csv"
    run = {(r["dataset"], r["variant"]) for r in rows}
    kept = [r for r in read_csv(csv) if (r["dataset"], r["variant"]) not in run] if csv.exists() else []
    write_csv(sorted(kept + rows, key=lambda r: (DATASETS.index(r["dataset"]), list(VARIANTS).index(r["variant"]))), csv)
    shown = ["seconds", "knn_5", "r2", "trustworthiness", "continuity", "steadiness", "cohesiveness", "spearman_rho",
             "triplet_accuracy", "centroid_rank_correlation"]
    table = pd.DataFrame(rows).set_index(["dataset", "variant"])[shown]
    print(table.round(3).to_string())
    print(f"written {csv}")


if __name__ == "__main__":
    main()
