"""Landmark IKD over the trusted graph of every row against the exact fit and the landmark-only fit it replaced (issue 47).

    python benchmarks/landmark_quality.py [--before 445e168] [--sets digits coil20 qpcr gp mnist5000 fashion5000]
                                          [--recall 20000]

For each data set: the exact fit (every row), the landmark fit of version `--before` (g(D), graph and paths among the
L landmarks only, every other row placed as a new point) and this tree's landmark fit (graph over every row, paths from
the landmarks), at L = T/10 and T/4 farthest-point landmarks. Quality is 5-NN accuracy (`metrics.knn_accuracy`,
shuffled stratified folds, seed 0) on labelled sets and affine R^2 against the known latent on the GP benchmark
(T = 1000, N = 100, M = 3; M = 2 elsewhere). Each fit runs in a fresh child process; time is its wall time and memory its
peak resident set beyond what the process held after loading the data (Linux's high-water mark, reset once the data
are loaded; timed under load on a shared 2-core machine).

"held out" fits this tree's landmark fit (L = T/10) on a stratified 80 % of the rows and places the other 20 % with
`transform`: a 5-NN classifier (or the affine map to the latent) trained on the fitted rows' embedding scores the
placed rows, beside the same score of the fitted rows by cross-validation.

`--recall T [T ...]` measures the trusted graph (k = 7 strongest correlations, both directions) of two approximate
indexes on the unit rows against the exact band-by-band graph (`ikd.landmarks.trusted_pairs(rows, 7,
approximate=False)`) on random MNIST subsets of T images: pynndescent as `ikd.landmarks` calls it (metric dot, 2k
candidates re-ranked by their exact correlations), and faiss-cpu's HNSW index (inner product, 32 links, the smallest
efSearch tried that reaches recall 0.99, 2k candidates re-ranked alike), each on one thread and on two (BLAS, numba
and OpenMP threads alike). Recall is the share of the exact graph's directed pairs that the approximate graph holds;
seconds include building the index, searching and re-ranking. From the exact graph's time (~ T^2 N) and the faster
approximate one's (~ T) it prints the T below which the exact graph is the cheaper.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import io
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import gc, json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
from ikd import IKD
from ikd.metrics import affine_r2, knn_accuracy
from ikd import datasets

name, L, held_out = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3] == "1"
def load(name):
    if name == "gp":
        Z = datasets.ou_latent(1000, 3, random_state=0)
        return datasets.gp_observations(Z, 100, lengthscale=3.0, noise=0.05, random_state=0), None, Z, 3
    if name == "mnist5000":
        X, y = datasets.load_mnist()
        keep = np.sort(np.random.default_rng(0).choice(len(X), 5000, replace=False))
        return X[keep], y[keep], None, 2
    if name == "fashion5000":
        X, y = datasets.load_fashion_mnist(5000, random_state=0)
        return X, y, None, 2
    X, y = {"digits": datasets.load_digits, "coil20": datasets.load_coil20, "qpcr": datasets.load_guo_qpcr}[name]()
    return X, y, None, 2
X, y, Z, M = load(name)
def status(field): return int(next(line for line in open("/proc/self/status") if line.startswith(field)).split()[1]) / 1024
# loading (all 70 000 MNIST images, then a subset; a GP draw) can peak above the fit: with the loader's arrays freed,
# the kernel's high-water mark is reset, so the peak below is the fit's own
gc.collect()
with open("/proc/self/clear_refs", "w") as marks: marks.write("5")
before = status("VmRSS:")
def rss(): return status("VmHWM:")  # MB (Linux reports kB)
score = (lambda E, rows: knn_accuracy(E, y[rows])) if Z is None else (lambda E, rows: affine_r2(E, Z[rows]))
if not held_out:
    start = time.perf_counter()
    E = IKD(M, n_landmarks=L, random_state=0).fit_transform(X)
    seconds = time.perf_counter() - start
    print(json.dumps({"score": score(E, np.arange(len(X))), "seconds": seconds, "peak_mb": rss() - before}))
else:
    from sklearn.model_selection import train_test_split
    from sklearn.neighbors import KNeighborsClassifier
    rows = np.arange(len(X))
    train, test = train_test_split(rows, test_size=0.2, random_state=0, stratify=y if Z is None else None)
    train, test = np.sort(train), np.sort(test)
    model = IKD(M, n_landmarks=max(M + 2, len(train) // 10), random_state=0).fit(X[train])
    placed = model.transform(X[test])
    fitted = score(model.embedding_, train)
    if Z is None:
        held = KNeighborsClassifier(5).fit(model.embedding_, y[train]).score(placed, y[test])
    else:
        from sklearn.metrics import r2_score
        design = lambda E: np.hstack([E, np.ones((len(E), 1))])
        coef, *_ = np.linalg.lstsq(design(model.embedding_), Z[train], rcond=None)  # the fitted rows' affine map
        held = r2_score(Z[test], design(placed) @ coef)
    print(json.dumps({"score": fitted, "held_out": float(held)}))
"""


def old_version(commit: str) -> Path:
    "The `ikd` package of `commit`, unpacked from `git archive` into a temporary folder (the checkout is not touched)."
    folder = Path(tempfile.mkdtemp(prefix="ikd-before-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "ikd"], check=True, capture_output=True).stdout
    tarfile.open(fileobj=io.BytesIO(archive)).extractall(folder, filter="data")
    return folder


def child(version: Path, name: str, L, held_out=False) -> dict:
    env = dict(os.environ, PYTHONPATH=str(version), IKD_DATA=os.environ.get("IKD_DATA", str(ROOT.parent / "shared/data")), OPENBLAS_NUM_THREADS=os.environ.get("OPENBLAS_NUM_THREADS", "1"))
    # run from the version's folder: `python -c` puts the working directory first on the path
    out = subprocess.run([sys.executable, "-c", CHILD, name, json.dumps(L), "1" if held_out else "0"], env=env,
                         capture_output=True, text=True, cwd=version)
    if out.returncode: raise RuntimeError(f"{name} L={L}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


SIZES = {"digits": 1797, "coil20": 1440, "qpcr": 437, "gp": 1000, "mnist5000": 5000, "fashion5000": 5000}


def quality_table(sets, before):
    old = old_version(before)
    print(f"{'set':<12} {'fit':<22} {'L':>5} {'score':>7} {'time s':>7} {'peak MB':>8}", flush=True)
    for name in sets:
        T = SIZES[name]
        rows = [("exact", None, ROOT)]
        for L in (T // 10, T // 4):
            rows += [(f"landmarks only ({before})", L, old), ("landmarks, full graph", L, ROOT)]
        for label, L, version in rows:
            result = child(version, name, L)
            print(f"{name:<12} {label:<22} {L or T:>5} {result['score']:>7.3f} {result['seconds']:>7.1f} "
                  f"{result['peak_mb']:>8.0f}", flush=True)
        held = child(ROOT, name, None, held_out=True)
        print(f"{name:<12} {'held out (80/20)':<22} {T * 8 // 100:>5} fitted {held['score']:.3f} held out "
              f"{held['held_out']:.3f}", flush=True)


RECALL_NEIGHBOURS = 7  # k of the trusted graph, IKD's default
HNSW_LINKS = 32  # faiss HNSW: M, the links per node
HNSW_SEARCH_DEPTHS = (16, 32, 64, 128)  # efSearch values tried; the table keeps the smallest with recall >= 0.99
TARGET_RECALL = 0.99


def _pair_codes(rows, cols, T):  # directed pairs as single integers, for set operations in numpy
    return np.unique(rows.astype(np.int64) * T + cols)


def _trusted_codes(unit, candidates, k):
    """The trusted graph that `ikd.landmarks.trusted_pairs` builds from candidate lists: each row's k strongest
    candidates by their exact correlation, then every pair in both directions, positive correlations only."""
    T, width = candidates.shape
    r = np.repeat(np.arange(T), width)
    c = candidates.ravel().astype(np.intp)
    keep = (c != r) & (c >= 0)
    r, c = r[keep], c[keep]
    rho = np.einsum("ij,ij->i", unit[r], unit[c])
    order = np.lexsort((-rho, r))
    r, c, rho = r[order], c[order], rho[order]
    kept = (np.arange(len(r)) - np.searchsorted(r, r)) < k
    r, c, rho = r[kept], c[kept], rho[kept]
    positive = rho > 0
    r, c = r[positive], c[positive]
    return _pair_codes(np.r_[r, c], np.r_[c, r], T)


def _pynndescent_candidates(unit, k, threads):
    "Nearest-neighbour descent on the unit rows as `ikd.landmarks` calls it (metric dot, 2k candidates), on `threads` threads."
    from pynndescent import NNDescent
    candidates = min(len(unit) - 1, 2 * k) + 1
    index = NNDescent(unit, metric="dot", n_neighbors=candidates, random_state=0, n_jobs=threads, compressed=True)
    return index.neighbor_graph[0]


def _hnsw_index(unit, threads):
    import faiss
    faiss.omp_set_num_threads(threads)
    index = faiss.IndexHNSWFlat(unit.shape[1], HNSW_LINKS, faiss.METRIC_INNER_PRODUCT)
    index.add(np.ascontiguousarray(unit, dtype=np.float32))
    return index


def graph_recall(sizes, k: int = RECALL_NEIGHBOURS):
    """Recall and time of pynndescent and faiss HNSW against the exact band-by-band trusted graph on MNIST subsets,
    on one thread and on two, and the exact graph's time extrapolated as T^2 N against the approximate one's T."""
    import time
    import faiss
    from threadpoolctl import threadpool_limits
    from ikd.covariance import covariance_rows
    from ikd.datasets import load_mnist
    from ikd.landmarks import trusted_pairs
    images, _ = load_mnist()
    def timed(work):  # (result, wall seconds, processor seconds of every thread of this process)
        wall, processor = time.perf_counter(), time.process_time()
        result = work()
        return result, time.perf_counter() - wall, time.process_time() - processor
    warm = covariance_rows(images[:500])
    _, wall, processor = timed(lambda: _pynndescent_candidates(warm / np.linalg.norm(warm, axis=1, keepdims=True), k, 1))
    print(f"# pynndescent's first call in a process compiles: {wall:.1f} s wall, {processor:.1f} s processor (excluded below)")
    print(f"{'T':>6} {'threads':>7} {'method':<44} {'recall':>7} {'wall s':>7} {'cpu s':>7}")
    crossover = {}
    for T in sizes:
        X = images[np.sort(np.random.default_rng(0).choice(len(images), T, replace=False))]
        rows = covariance_rows(X)
        unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        for threads in (1, 2):
            with threadpool_limits(threads):
                exact, *exact_seconds = timed(lambda: trusted_pairs(rows, n_neighbors=k, approximate=False))
                exact = _pair_codes(exact.rows, exact.cols, T)
                line = lambda method, codes, wall, processor: print(
                    f"{T:>6} {threads:>7} {method:<44} {np.isin(exact, codes).mean():>7.4f} {wall:>7.1f} {processor:>7.1f}",
                    flush=True)
                line("exact, bands (ikd.landmarks.trusted_pairs)", exact, *exact_seconds)
                if threads == 1:
                    package, *seconds = timed(lambda: trusted_pairs(rows, n_neighbors=k, approximate=True))
                    line("package approximate (trusted_pairs)", _pair_codes(package.rows, package.cols, T), *seconds)
                codes, *seconds = timed(lambda: _trusted_codes(unit, _pynndescent_candidates(unit, k, threads), k))
                line(f"pynndescent, dot, {2 * k} candidates re-ranked", codes, *seconds)
                best = np.array(seconds) if np.isin(exact, codes).mean() >= TARGET_RECALL else np.full(2, np.inf)
                index, *build_seconds = timed(lambda: _hnsw_index(unit, threads))
                for depth in HNSW_SEARCH_DEPTHS:
                    index.hnsw.efSearch = depth
                    codes, *search_seconds = timed(lambda: _trusted_codes(
                        unit, index.search(np.ascontiguousarray(unit, dtype=np.float32), 2 * k + 1)[1], k))
                    total = np.add(build_seconds, search_seconds)
                    line(f"faiss HNSW M={HNSW_LINKS} efSearch={depth}, {2 * k} re-ranked", codes, *total)
                    if np.isin(exact, codes).mean() >= TARGET_RECALL:
                        best = np.minimum(best, total)
                        break
                crossover[T, threads] = T * best / np.array(exact_seconds)
    print("# exact graph ~ T^2 N, approximate ~ T: the exact graph is the cheaper below T* = T x (approximate s / exact s),")
    print("# the faster approximate index at recall >= 0.99 taken")
    for (T, threads), (wall, processor) in crossover.items():
        print(f"# from T = {T}, {threads} thread(s): T* = {wall:,.0f} by wall time, {processor:,.0f} by processor time")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="445e168", help="commit whose landmark-only fit is compared")
    parser.add_argument("--sets", nargs="*", choices=list(SIZES), help="data sets (default: all, unless --recall)")
    parser.add_argument("--recall", type=int, nargs="*", default=[], help="MNIST subset sizes for the graph recall")
    args = parser.parse_args()
    sets = args.sets if args.sets is not None else ([] if args.recall else list(SIZES))
    if sets: quality_table(sets, args.before)
    if args.recall: graph_recall(args.recall)
