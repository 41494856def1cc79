"""Landmark IKD over the trusted graph of every row against the exact fit and the landmark-only fit it replaced (issue 47).

    python benchmarks/landmark_quality.py [--before 445e168] [--sets digits coil20 qpcr gp mnist5000 fashion5000]
                                          [--recall 20000]

For each data set: the exact fit (every row), the landmark fit of version `--before` (g(D), graph and paths among the
L landmarks only, every other row placed as a new point) and this tree's landmark fit (graph over every row, paths from
the landmarks), at L = T/10 and T/4 farthest-point landmarks. Quality is 5-NN accuracy (`metrics.knn_accuracy`,
shuffled stratified folds, seed 0) on labelled sets and affine R^2 against the known latent on the GP benchmark
(T = 1000, N = 100, M = 3; M = 2 elsewhere). Each fit runs in a fresh child process; time is its wall time and memory its
peak resident set beyond what the process held after loading the data (timed under load on a shared 2-core machine).

"held out" fits this tree's landmark fit (L = T/10) on a stratified 80 % of the rows and places the other 20 % with
`transform`: a 5-NN classifier (or the affine map to the latent) trained on the fitted rows' embedding scores the
placed rows, beside the same score of the fitted rows by cross-validation.

`--recall T` measures the trusted graph's recall against the exact one on T MNIST images: pynndescent (and faiss-cpu,
when installed) against the exact band-by-band k strongest correlations, with their times.
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

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, resource, sys, time, warnings
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
def rss(): return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MB (Linux reports kB)
before = rss()
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


def graph_recall(n_rows: int, k: int = 7):
    "Recall of the approximate trusted graphs against the exact one on n_rows MNIST images, and the times."
    import time
    import numpy as np
    from ikd.covariance import covariance_rows
    from ikd.datasets import load_mnist
    from ikd.landmarks import trusted_pairs
    X, _ = load_mnist()
    X = X[np.sort(np.random.default_rng(0).choice(len(X), n_rows, replace=False))]
    rows = covariance_rows(X)
    def timed(**options):
        start = time.perf_counter()
        pairs = trusted_pairs(rows, n_neighbors=k, **options)
        return set(zip(pairs.rows.tolist(), pairs.cols.tolist())), time.perf_counter() - start
    exact, exact_seconds = timed(approximate=False)
    print(f"trusted {k}-NN graph on {n_rows} MNIST images: exact in bands {exact_seconds:.1f} s ({len(exact)} directed pairs)")
    approximate, seconds = timed(approximate=True)
    print(f"  pynndescent: recall {len(approximate & exact) / len(exact):.4f}, {seconds:.1f} s (first call compiles)")
    approximate, seconds = timed(approximate=True)
    print(f"  pynndescent again: recall {len(approximate & exact) / len(exact):.4f}, {seconds:.1f} s")
    try:
        import faiss
    except ImportError:
        print("  faiss-cpu: not installed")
        return
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    start = time.perf_counter()
    index = faiss.IndexHNSWFlat(unit.shape[1], 32, faiss.METRIC_INNER_PRODUCT)
    index.add(unit.astype(np.float32))
    _, found = index.search(unit.astype(np.float32), k + 1)
    seconds = time.perf_counter() - start
    pairs = {(i, int(j)) for i, row in enumerate(found) for j in row if j != i and j >= 0}
    pairs |= {(j, i) for i, j in pairs}
    print(f"  faiss HNSW (32 links, inner product): recall {len(pairs & exact) / len(exact):.4f}, {seconds:.1f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="445e168", help="commit whose landmark-only fit is compared")
    parser.add_argument("--sets", nargs="+", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--recall", type=int, default=0, help="MNIST images for the graph recall (0: skip)")
    args = parser.parse_args()
    if args.sets: quality_table(args.sets, args.before)
    if args.recall: graph_recall(args.recall)
