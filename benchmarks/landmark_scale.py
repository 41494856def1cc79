"""Landmark IKD at scale (issue 47, items 3, 4 and 6): all 70 000 MNIST and Fashion-MNIST images, a million points of a
known 2-D latent, and 200 000 of them beside UMAP and PaCMAP.

    python benchmarks/landmark_scale.py images      [--sets mnist fashion] [--methods ikd umap pca]
    python benchmarks/landmark_scale.py million     [--points 1000000]
    python benchmarks/landmark_scale.py side-by-side [--points 200000] [--methods ikd umap pacmap]
    python benchmarks/landmark_scale.py growing     [--sizes 8000 16000 32000 70000]  # Fig. 13 beyond T = 4000
    python benchmarks/landmark_scale.py exact       [--sizes 32000] [--methods ikd ikd_covariance]  # item 7

Every fit runs in a fresh child process, one after another; its time is the fit's wall time (and processor time, every thread of the process, which load on the machine moves less) and its memory the peak
resident set beyond what the process held once the data were loaded (Linux's VmHWM, reset after loading). Every library runs on one thread
(OMP/OPENBLAS/MKL/NUMBA_NUM_THREADS=1 unless set): UMAP and PaCMAP with a `random_state` run serially anyway, and IKD's
default `n_jobs=None` is serial, except in `million` and `exact`, whose fits run its shortest paths on both cores (`n_jobs=-1`). Each row goes to `benchmarks/results/landmark_scale.csv` (a row of the same experiment,
data, method and T is replaced), with IKD's stage times from its `ikd` logger.

images: `IKD(2, random_state=0)` with its defaults (`n_landmarks='auto'`), UMAP and PCA, scored by 5-NN accuracy under
shuffled stratified folds (seed 0; `metrics.knn_accuracy`). IKD's row also reports the pickled size of
`model.for_transform()`, the compact model `transform` needs.
million / side-by-side: a 2-D latent uniform on [0, 10]^2 mapped to N = 100 features by squared-exponential GP draws
(l = 3) approximated with 2000 random Fourier features (`datasets.random_feature_observations`), made block by block,
no noise; the score is the affine R^2 of the map against the latent.
growing: Fashion-MNIST subsets (`datasets.load_fashion_mnist(T, random_state=0)`), IKD with `n_landmarks=None` (the
exact fit) up to `--exact-max` points and `n_landmarks='auto'` beyond, PCA and UMAP, 5-NN under the paper's folds and
shuffled ones, as `nbs/exp_fig13.ipynb` scores T <= 4000.
exact: the exact geodesic fit (`IKD(2, n_landmarks=None, n_jobs=-1)`) of Fashion-MNIST subsets: "ikd" as it runs past
`estimator.EXACT_FROM_ROWS_POINTS` rows (graph from the rows, distances over the float32 paths), "ikd_covariance" with
that bound lifted (the float64 T x T covariance beside the paths, as every exact fit ran before), same data and seed.
"""
from __future__ import annotations

import os

# only when run as a script: a notebook or test importing these helpers shares its process with others, and
# numba refuses a thread count that changes after its threads have started
if __name__ == "__main__":
    for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ.setdefault(_variable, "1")

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "landmark_scale.csv"
COLUMNS = ["experiment", "data", "method", "T", "n_landmarks", "seconds", "cpu_seconds", "peak_mb", "score", "score_name",
           "score_paper_folds", "stages", "pickled_mb", "settings"]

CHILD = r"""
import io, json, logging, pickle, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
from ikd import datasets
from ikd.metrics import affine_r2, knn_accuracy

experiment, data, method, T, exact_max = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
if data in ("mnist", "fashion"):
    if T >= 70000: X, y = datasets.load_mnist() if data == "mnist" else datasets.load_fashion_mnist(None)
    else: X, y = datasets.load_fashion_mnist(T, random_state=0)
    Z = None
else:
    Z = np.random.default_rng(0).uniform(0, 10, (T, 2))
    X = datasets.random_feature_observations(Z, 100, lengthscale=3.0, random_state=0)
    y = None

def status_mb(field):  # VmRSS (now) or VmHWM (the peak since the last reset) of this process, in MB
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field + ":")) / 1024
stages = {}
class Stages(logging.Handler):
    def emit(self, record):
        name, seconds = record.args
        stages[name.strip()] = round(stages.get(name.strip(), 0.0) + seconds, 3)
logging.getLogger("ikd").addHandler(Stages()); logging.getLogger("ikd").setLevel(logging.INFO)
logging.getLogger("ikd").propagate = False

import gc; gc.collect()
with open("/proc/self/clear_refs", "w") as refs: refs.write("5")  # the peak restarts here: loading's own peak is not the fit's
before = status_mb("VmRSS")
start, cpu_start = time.perf_counter(), time.process_time()
extra = {}
if method in ("ikd", "ikd_covariance"):
    from ikd import IKD, estimator
    if method == "ikd_covariance": estimator.EXACT_FROM_ROWS_POINTS = 2 ** 62
    landmarks = None if experiment == "exact" or (experiment == "growing" and T <= exact_max) else "auto"
    n_jobs = -1 if experiment in ("million", "exact") else None  # these fits use both cores; the others one
    model = IKD(2, n_landmarks=landmarks, random_state=0, n_jobs=n_jobs).fit(X)
    embedding = model.embedding_
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    peak = status_mb("VmHWM") - before
    extra["settings"] = model.settings_.describe()
    extra["n_landmarks"] = len(getattr(model, "landmark_indices_", [])) or T
    if experiment == "images": extra["pickled_mb"] = round(len(pickle.dumps(model.for_transform())) / 2**20, 1)
else:
    from ikd.baselines import embed
    embedding = embed(method, X, 2, random_state=0)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    peak = status_mb("VmHWM") - before
if Z is None:
    score, name = knn_accuracy(embedding, y), "5-NN (shuffled folds)"
    extra["score_paper_folds"] = knn_accuracy(embedding, y, folds="paper")
else: score, name = affine_r2(embedding, Z), "affine R2"
print(json.dumps(dict(seconds=seconds, cpu_seconds=cpu_seconds, peak_mb=peak, score=score, score_name=name, stages=stages, **extra)))
"""


def run_child(experiment, data, method, T, exact_max=16000) -> dict:
    env = dict(os.environ, IKD_DATA=os.environ.get("IKD_DATA", str(ROOT.parent / "shared" / "data")))
    out = subprocess.run([sys.executable, "-c", CHILD, experiment, data, method, str(T), str(exact_max)],
                         env=env, capture_output=True, text=True, cwd=ROOT)
    if out.returncode: raise RuntimeError(f"{experiment} {data} {method} T={T}: {out.stderr[-3000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return dict(experiment=experiment, data=data, method=method, T=T, **result)


def recorded(row: dict) -> None:
    "Print one row and put it in the results file, replacing the row of the same experiment, data, method and T."
    key = lambda r: (r["experiment"], r["data"], r["method"], str(r["T"]))
    rows = list(csv.DictReader(RESULTS.open())) if RESULTS.exists() else []
    row = {name: (json.dumps(row[name]) if name == "stages" else row.get(name, "")) for name in COLUMNS}
    rows = [r for r in rows if key(r) != key(row)] + [row]
    with RESULTS.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    stages = json.loads(row["stages"]) if row["stages"] else {}
    shown = "  ".join(f"{name} {stages[name]:.1f}" for name in ("landmarks", "covariance", "settings", "graph", "paths", "distances", "eigensolver", "placement",
                                                               "refinement") if name in stages)
    print(f"{row['experiment']:<12} {row['data']:<8} {row['method']:<7} {row['T']:>8} {float(row['seconds']):>8.1f} s (cpu {float(row['cpu_seconds']):.1f} s) "
          f"{float(row['peak_mb']):>8.0f} MB  {row['score_name']} {float(row['score']):.4f}  {shown}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("experiment", choices=["images", "million", "side-by-side", "growing", "exact"])
    parser.add_argument("--sets", nargs="+", default=["mnist", "fashion"], choices=["mnist", "fashion"])
    parser.add_argument("--methods", nargs="+")
    parser.add_argument("--points", type=int)
    parser.add_argument("--sizes", nargs="+", type=int, default=[8000, 16000, 32000, 70000])
    parser.add_argument("--exact-max", type=int, default=16000)
    args = parser.parse_args(argv)
    if args.experiment == "images":
        for data in args.sets:
            for method in args.methods or ["ikd", "umap", "pca"]: recorded(run_child("images", data, method, 70000))
    elif args.experiment == "million":
        recorded(run_child("million", "gp2d", "ikd", args.points or 1_000_000))
    elif args.experiment == "side-by-side":
        for method in args.methods or ["ikd", "umap", "pacmap"]:
            recorded(run_child("side-by-side", "gp2d", method, args.points or 200_000))
    elif args.experiment == "exact":
        for T in args.sizes:
            for method in args.methods or ["ikd", "ikd_covariance"]: recorded(run_child("exact", "fashion", method, T))
    else:
        for T in args.sizes:
            for method in args.methods or ["ikd", "pca", "umap"]:
                recorded(run_child("growing", "fashion", method, T, args.exact_max))


if __name__ == "__main__":
    main()
