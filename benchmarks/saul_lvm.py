"""Saul's tractable LVM against PCA, IKD, UMAP and t-SNE on digits and MNIST (issues 22 and 35).

Run: python benchmarks/saul_lvm.py [--ablation] [--solvers] [--sweep] [--mnist-test] [--mnist] [--dims 2 5 10] [--data-dir DIR]
Digits (scikit-learn's 1797 images): shuffled stratified 5-fold 9-NN accuracy of each embedding at d = 2 and 10, and the
fit time (t-SNE at d = 10 uses the exact method; Barnes-Hut allows at most 3); writes results/saul_lvm.txt.
--ablation: the changes of issue 35 on digits at d = 2, each alone and together (the start's scale, momentum, the far
weight on one-way edges of E, recursion into the groups at two coarse levels): 9-NN accuracy, final zeta, silhouette,
Procrustes disparity of the map from its start, iterations; writes results/saul_lvm_ablation.txt.
--solvers: the means' linear solvers (sparse LU, multigrid CG, Jacobi CG) on the same fits (digits, a 3000-point Swiss
roll, 2000, 5000 and 10 000 MNIST test images; d = 2, defaults otherwise; sparse LU stops at 5000 images, where one fit
takes minutes): fit seconds (best of `SOLVER_REPEATS`), iterations, final zeta and the Procrustes disparity of each map
from the direct solver's; writes results/saul_lvm_solvers.txt. Needs the MNIST files (--data-dir or IKD_DATA).
--sweep: how close the model's options bring its MNIST map to UMAP's 9-NN accuracy: on the 10 000 test images (d = 2,
5-fold 9-NN accuracy) the defaults and one change at a time (k, s, coarse levels, PCA's map as the start, momentum, a
longer run), then on 3000 of them (seed 0) the model without coarse graining (every far pair, coarse_levels=0) beside
one level, at s = 1 and 2, and UMAP; writes results/saul_lvm_sweep.txt (about 20 minutes on one core).
--mnist-test: the 10 000 MNIST test images at d = 2, the LVM (s = 1; s = 2 as in the paper's 9-NN errors; two coarse
levels) and UMAP side by side (each in a fresh process, so both
pay their imports and numba's compilation), 5-fold 9-NN accuracy as for digits; also the recall of the approximate
(pynndescent) neighbours against the exact ones; writes results/saul_lvm_mnist_test.txt and the maps to
results/saul_lvm_mnist_test.npz.
--mnist: all 70 000 MNIST images, each method in a fresh process (wall time and peak resident memory, data loading
included) at each d; the 9-NN test error trains on the 60 000 training images' outputs and tests on the 10 000 test
images' (the paper's protocol); the recall of the approximate neighbours on 2000 sampled rows. The LVM uses the paper's
settings for its maps (k = 9, s = 1, one coarse level; at d = 2 also s = 2, its setting for the 9-NN errors) and its
defaults otherwise (neighbors="auto": approximate at this size).
Writes results/saul_lvm_mnist.txt and results/saul_lvm_mnist.npz (the 2-D maps of the LVM and UMAP, the LVM's
variances, the labels) for the figures of the lvm page. Each result file starts with the machine's load (`uptime`).
"""
import argparse
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from timing import report_from_child, run_in_child

RESULTS = Path(__file__).parent / "results"
METHODS = ("saul_lvm", "pca", "ikd", "umap", "tsne")
MNIST_METHODS = ("saul_lvm", "pca", "umap")
LVM_MNIST = dict(n_neighbors=9, n_walk_steps=1, coarse_levels=1, random_state=0)
# "saul_lvm_s2": the paper's settings for its 9-NN errors (its Fig. 6: k = 9, s = 2); s = 1 is its setting for the maps
# "saul_lvm_l2": two coarse levels, which recurse into the groups as the reference does
LVM_VARIANTS = {"saul_lvm": {}, "saul_lvm_s2": dict(n_walk_steps=2), "saul_lvm_l2": dict(coarse_levels=2)}
RECALL_SAMPLE = 2000  # rows whose approximate neighbours are checked against an exact search over all rows


def load_average():
    "The 1-, 5- and 15-minute load averages, as `uptime` prints them."
    return "load average %.2f, %.2f, %.2f on %d cores" % (*os.getloadavg(), os.cpu_count())


def mnist(part, data_dir):
    "All 70 000 MNIST images (part 'all') or the 10 000 test images (part 'test'), as float64, with their digits."
    from ikd.datasets import load_mnist
    X, y = load_mnist(data_dir)
    return (X[60000:], y[60000:]) if part == "test" else (X, y)


def run_single(method, d, part, data_dir, save):
    "One fit in this (fresh) process; its time, peak memory and iterations go to the parent on the last line."
    from ikd.baselines import embed
    warnings.simplefilter("ignore")
    X, _ = mnist(part, data_dir)
    start = time.perf_counter()
    if method in LVM_VARIANTS:
        from ikd.lvm import TractableLVM
        model = TractableLVM(d, **{**LVM_MNIST, **LVM_VARIANTS[method]}).fit(X)
        Z, extra = model.embedding_, dict(variances=model.variances_, n_iter=model.n_iter_)
    else: Z, extra = embed(method, X, d, random_state=0), {}
    seconds = time.perf_counter() - start
    np.savez(save, embedding=Z, **extra)
    report_from_child(seconds)


def fresh_fit(method, d, part, data_dir, folder):
    "Fit `method` in a fresh process; returns (report, saved arrays)."
    save = str(Path(folder) / f"{method}_{part}_{d}.npz")
    command = [sys.executable, __file__, "--single", method, str(d), part, save]
    if data_dir: command += ["--data-dir", data_dir]
    report = run_in_child(command)
    return report, dict(np.load(save))


def neighbour_recall(X, n_neighbors=9, sample=None, random_state=0):
    "The fraction of the exact k nearest neighbours that pynndescent finds (on `sample` random rows, all when None)."
    from sklearn.neighbors import NearestNeighbors
    from ikd.lvm import nearest_neighbours
    X = np.unique(X, axis=0)  # the fit searches the distinct rows
    start = time.perf_counter()
    _, approximate = nearest_neighbours(X, n_neighbors, "approximate", random_state)
    seconds = time.perf_counter() - start
    rows = np.arange(len(X)) if sample is None else np.sort(np.random.default_rng(random_state).choice(len(X), sample, False))
    # the k + 1 nearest of each sampled row among all rows, itself first
    exact = NearestNeighbors(n_neighbors=n_neighbors + 1).fit(X).kneighbors(X[rows], return_distance=False)[:, 1:]
    found = (approximate[rows][:, :, None] == exact[:, None, :]).any(axis=2)
    return float(found.mean()), seconds


def test_error(Z, y, n_train=60000):
    from sklearn.neighbors import KNeighborsClassifier
    classifier = KNeighborsClassifier(n_neighbors=9).fit(Z[:n_train], y[:n_train])
    return 1.0 - classifier.score(Z[n_train:], y[n_train:])


def digits_table():
    from sklearn.datasets import load_digits
    from ikd.baselines import embed
    from ikd.metrics import knn_accuracy
    X, y = load_digits(return_X_y=True)
    lines = [load_average(), "Digits (1797 x 64): shuffled stratified 5-fold 9-NN accuracy (fit seconds)",
             f"{'method':>11s}  " + "  ".join(f"{f'd = {d}':>17s}" for d in (2, 10))]
    for method in METHODS:
        cells = []
        for d in (2, 10):
            start = time.perf_counter()
            Z = embed(method, X, d, random_state=0)
            seconds = time.perf_counter() - start
            cells.append(f"{knn_accuracy(Z, y, n_neighbors=9):.3f} ({seconds:6.1f} s)")
        lines.append(f"{method:>11s}  " + "  ".join(f"{cell:>17s}" for cell in cells))
        print(lines[-1], flush=True)
    return lines


# each variant: what it changes from the earlier model (local start, plain EM, far weight 1 of 2 on one-way edges of E)
ABLATION = {
    "earlier model": dict(spread="local", momentum=0.0, repel_one_way=True),
    "start alone": dict(spread="overall", momentum=0.0, repel_one_way=True),
    "momentum alone": dict(spread="local", momentum=0.9, repel_one_way=True),
    "start + momentum": dict(spread="overall", momentum=0.9, repel_one_way=True),
    "no far weight on E alone": dict(spread="local", momentum=0.0, repel_one_way=False),
    "all three (new model)": dict(spread="overall", momentum=0.9, repel_one_way=False),
    "new, 2 levels, no recursion": dict(coarse_levels=2, into_groups=False),
    "new, 2 levels, recursion": dict(coarse_levels=2, into_groups=True),
}


def ablation_table():
    "Each change of issue 35 alone and together on digits (d = 2): 400 iterations each, and the stopping rule's count."
    from scipy.spatial import procrustes
    from sklearn.datasets import load_digits
    from ikd.lvm import _normalised, fit_lvm
    from ikd.metrics import knn_accuracy, silhouette
    X, y = load_digits(return_X_y=True)
    order = np.lexsort(X.T[::-1])  # the estimator's canonical order (digits has no repeated rows)
    unit, _ = _normalised(X[order])
    y = y[order]
    lines = [load_average(), "Digits (1797 x 64), d = 2, seed 0: each change of issue 35 alone and together. 400 EM "
             "iterations (tol = 0); 'stops at': the iteration where the default stopping rule (tol = 1e-3) ends the fit",
             f"{'variant':>30s}  {'9-NN':>6s}  {'zeta':>8s}  {'silhouette':>10s}  {'disparity':>9s}  {'restarts':>8s}  "
             f"{'stops at':>8s}  {'far pairs':>9s}  {'seconds':>7s}"]
    for name, options in ABLATION.items():
        start = time.perf_counter()
        result = fit_lvm(unit, 2, max_iter=400, tol=0, random_state=0, **options)
        seconds = time.perf_counter() - start
        history, Z = result.history, result.means
        rises = (history[20::2] - history[:-20:2]) / np.abs(history[20::2])
        stops = int(np.argmax(rises <= 1e-3)) + 10 if np.any(rises <= 1e-3) else 400
        lines.append(f"{name:>30s}  {knn_accuracy(Z, y, n_neighbors=9):6.3f}  {history[-1]:8.4f}  {silhouette(Z, y):10.3f}  "
                     f"{procrustes(result.start[0], Z)[2]:9.3f}  {result.restarts:8d}  {stops:8d}  "
                     f"{len(result.dissimilar):9d}  {seconds:7.1f}")
        print(lines[-1], flush=True)
    return lines


SOLVER_REPEATS = 2  # fits per (data set, solver): the best time is reported
DIRECT_SOLVE_UP_TO = 5000  # larger MNIST subsets skip sparse LU (the 10 000 test images take minutes per fit)


def solver_table(data_dir):
    "The means' linear solvers on the same fits: time, iterations, zeta and how far each map is from the direct one's."
    from scipy.spatial import procrustes
    from sklearn.datasets import load_digits, make_swiss_roll
    from ikd.lvm import LINEAR_SOLVERS, TractableLVM
    X_test, _ = mnist("test", data_dir)
    rows = np.random.default_rng(0).permutation(len(X_test))
    data = {"digits": load_digits().data, "Swiss roll 3000": make_swiss_roll(3000, random_state=0)[0],
            **{f"MNIST {n}": X_test[np.sort(rows[:n])] for n in (2000, 5000, 10000)}}
    lines = [load_average(), "The means' linear solvers on the same fits (d = 2, seed 0, defaults otherwise): fit seconds "
             f"(best of {SOLVER_REPEATS}), EM iterations, final zeta, Procrustes disparity from the direct solver's map",
             f"{'data':>16s}  {'solver':>9s}  {'seconds':>7s}  {'iterations':>10s}  {'zeta':>9s}  {'disparity':>9s}"]
    for name, X in data.items():
        direct_map = None
        for solver in LINEAR_SOLVERS:
            if solver == "direct" and len(X) > DIRECT_SOLVE_UP_TO: continue
            seconds = []
            for _ in range(SOLVER_REPEATS):
                start = time.perf_counter()
                model = TractableLVM(2, linear_solver=solver, random_state=0).fit(X)
                seconds.append(time.perf_counter() - start)
            if solver == "direct": direct_map = model.embedding_
            disparity = f"{procrustes(direct_map, model.embedding_)[2]:9.1e}" if direct_map is not None else f"{'':>9s}"
            lines.append(f"{name:>16s}  {solver:>9s}  {min(seconds):7.2f}  {model.n_iter_:10d}  "
                         f"{model.objective_history_[-1]:9.5f}  {disparity}")
            print(lines[-1], flush=True)
    return lines


SWEEP = {  # name: options changed from the paper's map settings (k = 9, s = 1, one coarse level) and the defaults
    "defaults": {}, "k = 5": dict(n_neighbors=5), "k = 15": dict(n_neighbors=15), "s = 2": dict(n_walk_steps=2),
    "s = 3": dict(n_walk_steps=3), "2 coarse levels": dict(coarse_levels=2), "PCA start": dict(init="pca"),
    "s = 2, PCA start": dict(n_walk_steps=2, init="pca"), "no momentum": dict(momentum=0.0),
    "1000 iterations, no stopping rule": dict(max_iter=1000, tol=0.0), "s = 2, 1000 iterations": dict(n_walk_steps=2, max_iter=1000, tol=0.0),
}
EXACT_SUBSET = 3000  # test images on which the model without coarse graining (all n^2/2 pairs) is fitted


def sweep_table(data_dir):
    "The model's options against UMAP's 9-NN accuracy on the MNIST test set, and the exact model on a subset."
    from sklearn.decomposition import PCA
    from ikd.baselines import embed
    from ikd.lvm import TractableLVM
    from ikd.metrics import knn_accuracy
    X, labels = mnist("test", data_dir)
    lines = [load_average(), "MNIST test set (10 000 x 784), d = 2, seed 0: shuffled stratified 5-fold 9-NN accuracy of the "
             "LVM with one option changed at a time, and UMAP's",
             f"{'variant':>34s}  {'9-NN':>6s}  {'iterations':>10s}"]

    def fit(name, X, labels, options):
        if options.get("init") == "pca": options = {**options, "init": PCA(2, random_state=0).fit_transform(X)}
        model = TractableLVM(2, **{**LVM_MNIST, **options}).fit(X)
        lines.append(f"{name:>34s}  {knn_accuracy(model.embedding_, labels, n_neighbors=9):6.3f}  {model.n_iter_:10d}")
        print(lines[-1], flush=True)

    for name, options in SWEEP.items(): fit(name, X, labels, options)
    lines.append(f"{'UMAP':>34s}  {knn_accuracy(embed('umap', X, 2, random_state=0), labels, n_neighbors=9):6.3f}")
    subset = np.sort(np.random.default_rng(0).choice(len(X), EXACT_SUBSET, replace=False))
    lines += ["", f"{EXACT_SUBSET} of the test images (seed 0): every far pair (0 coarse levels) against one level",
              f"{'variant':>34s}  {'9-NN':>6s}  {'iterations':>10s}"]
    for s in (1, 2):
        for levels in (1, 0):
            fit(f"s = {s}, {levels} coarse level{'s' if levels != 1 else ''}", X[subset], labels[subset],
                dict(n_walk_steps=s, coarse_levels=levels))
    lines.append(f"{'UMAP':>34s}  {knn_accuracy(embed('umap', X[subset], 2, random_state=0), labels[subset], n_neighbors=9):6.3f}")
    return lines


def keep_map(maps, method, saved):
    "A fit's map (and the LVM's output variances) for the saved file, as float32."
    maps[f"{method}_map"] = saved["embedding"].astype(np.float32)
    if "variances" in saved: maps[f"{method}_variances"] = saved["variances"].astype(np.float32)


def iterations_column(saved):
    "The iterations a fit used, right-aligned in 10 characters; blank for a method without them."
    return f"{int(saved['n_iter']):10d}" if "n_iter" in saved else f"{'':10s}"


def mnist_test_table(data_dir):
    "The 10 000 MNIST test images at d = 2: the LVM and UMAP in fresh processes, 5-fold 9-NN accuracy, recall."
    from ikd.metrics import knn_accuracy
    X, labels = mnist("test", data_dir)
    recall, search_seconds = neighbour_recall(X)
    lines = [load_average(), "MNIST test set (10 000 x 784), d = 2: shuffled stratified 5-fold 9-NN accuracy, fit seconds "
             "(fresh process each, imports and compilation included), peak GB",
             f"{'method':>11s}  {'9-NN':>6s}  {'seconds':>8s}  {'peak GB':>7s}  {'iterations':>10s}"]
    maps = {"labels": labels}
    with tempfile.TemporaryDirectory() as folder:
        for method in ("saul_lvm", "saul_lvm_s2", "saul_lvm_l2", "umap"):
            report, saved = fresh_fit(method, 2, "test", data_dir, folder)
            keep_map(maps, method, saved)
            iterations = iterations_column(saved)
            lines.append(f"{method:>11s}  {knn_accuracy(saved['embedding'], labels, n_neighbors=9):6.3f}  "
                         f"{report['seconds']:8.1f}  {report['peak_gb']:7.2f}  {iterations}")
            print(lines[-1], flush=True)
    lines.append(f"pynndescent 9-NN recall against the exact search on all 10 000 rows: {recall:.4f} "
                 f"(search {search_seconds:.1f} s in the benchmark's process, numba's compilation included when it is the "
                 "process's first; the LVM's 'auto' searches exactly at this size)")
    lines.append(load_average() + " (after)")
    np.savez_compressed(RESULTS / "saul_lvm_mnist_test.npz", **maps)
    return lines


def mnist_table(dims, data_dir):
    "All 70 000 MNIST images at each d: LVM, PCA, UMAP in fresh processes; 9-NN test error on the 10 000 test images."
    X, labels = mnist("all", data_dir)
    recall, search_seconds = neighbour_recall(X, sample=RECALL_SAMPLE)
    del X
    lines = [load_average(), "MNIST 70 000 x 784, all images embedded; 9-NN test error (train 60 000, test 10 000), fit "
             "seconds, peak GB (fresh process each)",
             f"{'method':>11s}  {'d':>3s}  {'error':>6s}  {'seconds':>8s}  {'peak GB':>7s}  {'iterations':>10s}"]
    maps = {"labels": labels}
    with tempfile.TemporaryDirectory() as folder:
        for d in dims:
            for method in MNIST_METHODS + (("saul_lvm_s2",) if d == 2 else ()):
                report, saved = fresh_fit(method, d, "all", data_dir, folder)
                if d == 2: keep_map(maps, method, saved)
                iterations = iterations_column(saved)
                lines.append(f"{method:>11s}  {d:3d}  {test_error(saved['embedding'], labels):6.3f}  "
                             f"{report['seconds']:8.1f}  {report['peak_gb']:7.2f}  {iterations}")
                print(lines[-1], flush=True)
    lines.append(f"pynndescent 9-NN recall against the exact search, {RECALL_SAMPLE} sampled rows of 70 000: {recall:.4f} "
                 f"(search {search_seconds:.1f} s in the benchmark's process, numba's compilation included when it is the "
                 "process's first)")
    lines.append(load_average() + " (after)")
    if 2 in dims: np.savez_compressed(RESULTS / "saul_lvm_mnist.npz", **maps)
    return lines


def write(name, lines):
    output = RESULTS / name
    output.write_text("\n".join(lines).strip("\n") + "\n")
    print(f"written to {output}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ablation", action="store_true", help="the changes of issue 35 on digits (about 2 minutes)")
    parser.add_argument("--solvers", action="store_true", help="the means' linear solvers side by side (about 8 minutes)")
    parser.add_argument("--sweep", action="store_true", help="the LVM's options against UMAP's accuracy (about 20 minutes)")
    parser.add_argument("--mnist-test", action="store_true", help="the 10 000 MNIST test images, LVM beside UMAP")
    parser.add_argument("--mnist", action="store_true", help="all 70 000 MNIST images (about an hour for three d)")
    parser.add_argument("--no-digits", action="store_true", help="skip the digits table")
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 5, 10], help="MNIST output dimensions")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--single", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.single:
        run_single(args.single[0], int(args.single[1]), args.single[2], args.data_dir, args.single[3])
        return
    warnings.simplefilter("ignore")
    if not args.no_digits: write("saul_lvm.txt", digits_table())
    if args.ablation: write("saul_lvm_ablation.txt", ablation_table())
    if args.solvers: write("saul_lvm_solvers.txt", solver_table(args.data_dir))
    if args.sweep: write("saul_lvm_sweep.txt", sweep_table(args.data_dir))
    if args.mnist_test: write("saul_lvm_mnist_test.txt", mnist_test_table(args.data_dir))
    if args.mnist: write("saul_lvm_mnist.txt", mnist_table(args.dims, args.data_dir))


if __name__ == "__main__":
    main()
