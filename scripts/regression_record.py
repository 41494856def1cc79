"""Regression record: embeddings of `IKD` for a fixed set of configurations, recorded or compared.

    python scripts/regression_record.py --record .cache/regression/before.npz    # record with the ikd on sys.path
    python scripts/regression_record.py --compare .cache/regression/before.npz   # compare the current ikd with a record
    python scripts/regression_record.py --compare FILE --quick                    # the fast configurations only
    python scripts/regression_record.py --quick --record-scores tests/data/regression_scores_quick.json  # the test's record

The record of the redesign was made from a worktree of commit 6181f6d:
    git worktree add /tmp/before 6181f6d
    PYTHONPATH=/tmp/before python scripts/regression_record.py --old-api --record .cache/regression/before.npz

A redesign that must not change results is checked by recording with the old code (a `git worktree` of the old commit
on PYTHONPATH) and comparing with the new. Every configuration stores the embedding of the fitted rows and, for the
held-out configurations, the `transform` of held-out rows; the comparison reports the largest absolute difference and the
difference of the score (affine R^2 on the GP benchmark, 5-fold 5-NN accuracy on digits), which stays meaningful where an
arithmetic order, and with it a rigid motion of the embedding, legitimately changes (then the largest difference after
the best rigid alignment is printed too).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from ikd import IKD
from ikd.datasets import gp_observations, load_digits, ou_latent
from ikd.metrics import affine_r2, knn_accuracy, rigid_align

SOLVERS = {  # name -> IKD keyword arguments; blockwise covers are chosen through a solver object
    "auto": {},
    "full": {"solver": "full"},
    "geodesic-distance": {"solver": "geodesic", "path": "distance"},
    "geodesic-product": {"solver": "geodesic", "path": "product"},
    "blockwise-cliques": {"solver": "blockwise", "cover": "cliques"},
    "blockwise-neighbourhoods": {"solver": "blockwise", "cover": "neighbourhoods"},
}
SLOW = {"blockwise-cliques"}  # seconds per fit on these data; left out of --quick


def make_model(n_components, solver="auto", cover=None, old_api=False, **params):
    "An `IKD` for one configuration (the blockwise cover is a parameter of the blockwise solver object)."
    if old_api:  # before the solver objects (commit 6181f6d): the cover was fixed inside the estimator's module
        import functools
        import ikd.blockwise
        import ikd.estimator
        cover_of = functools.partial(ikd.blockwise.blockwise_embedding, cover=cover) if cover else ikd.blockwise.blockwise_embedding
        ikd.estimator.blockwise_embedding = cover_of
        return IKD(n_components=n_components, solver=solver, **params)
    if cover is not None:
        from ikd.blockwise import BlockwiseSolver
        return IKD(n_components=n_components, solver=BlockwiseSolver(cover=cover), **params)
    return IKD(n_components=n_components, solver=solver, **params)


def datasets(quick=False, perturbation=0.0):
    "name -> (X, M, score function of an embedding of the rows of X); X plus `perturbation` times its sd of fixed noise."
    out = {}
    for seed in (0,) if quick else (0, 1, 2):
        Z = ou_latent(1000, 3, random_state=seed)
        for N in (50,) if quick else (50, 1000):
            X = gp_observations(Z, N, lengthscale=3.0, noise=0.05, random_state=seed)
            out[f"gp-seed{seed}-N{N}"] = (X, 3, lambda U, Z=Z: affine_r2(U, Z))
    if not quick:
        X, y = load_digits()
        for M in (2, 10):
            out[f"digits-M{M}"] = (X, M, lambda U, y=y: knn_accuracy(U, y))
    if perturbation:
        noise = np.random.default_rng(12345)
        out = {name: (X + perturbation * X.std() * noise.standard_normal(X.shape), M, score)
               for name, (X, M, score) in out.items()}
    return out


def configurations(quick=False, n_points=1000):
    """(name, IKD arguments, held out?) for every configuration, for data of `n_points` rows.

    Random landmarks are a fixed seeded list of rows: `landmarks="random"` draws by the rows' content, so any change of
    the data (the 1e-5 perturbation of the conditioning test, or the 2e-6 by which the generated GP data differ between
    BLAS builds) draws other rows; the rule's own draw is tested in tests/test_landmarks.py and tests/test_metamorphic.py."""
    for solver, params in SOLVERS.items():
        if quick and solver in SLOW: continue
        for refine in ((False, True, "auto") if solver == "auto" else (False, True)):
            yield f"{solver}-refine{refine}", {**params, "refine": refine}, False
            yield f"{solver}-refine{refine}-heldout", {**params, "refine": refine}, True
    yield "landmarks-farthest", {"n_landmarks": 300, "landmarks": "farthest"}, False
    random_rows = np.sort(np.random.default_rng(0).choice(n_points, 300, replace=False))
    yield "landmarks-random-list", {"landmarks": random_rows}, False


def run(quick=False, verbose=True, only="", old_api=False, perturbation=0.0):
    "name -> (array, score) for every dataset and configuration (on data perturbed by `perturbation`, see `datasets`)."
    results = {}
    for data_name, (X, M, score) in datasets(quick, perturbation).items():
        T = len(X)
        order = np.random.default_rng(0).permutation(T)
        train, test = np.sort(order[:int(0.8 * T)]), np.sort(order[int(0.8 * T):])
        for config_name, params, held_out in configurations(quick, T):
            name = f"{data_name}/{config_name}"
            if only not in name: continue
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = make_model(M, old_api=old_api, **params)
                try:
                    if held_out:
                        model.fit(X[train])
                        U = np.empty((T, M))
                        U[train], U[test] = model.embedding_, model.transform(X[test])
                    else:
                        U = model.fit_transform(X)
                except ValueError:  # a solver that refuses these data (the clique cover at its cap) is recorded as NaN
                    U = np.full((T, M), np.nan)
            results[name] = (U, score(U) if np.isfinite(U).all() else float("nan"))
            if verbose: print(f"{name:60s} score {results[name][1]:.6f}  {time.perf_counter() - start:6.2f} s", flush=True)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--record", type=Path, help="write the embeddings and scores to this .npz file")
    action.add_argument("--compare", type=Path, help="compare with a record made by --record")
    action.add_argument("--record-scores", type=Path, help="write the scores alone as JSON (tests/data/regression_scores_quick.json)")
    parser.add_argument("--quick", action="store_true", help="only GP seed 0, N = 50, without the clique cover")
    parser.add_argument("--old-api", action="store_true", help="the ikd on sys.path predates the solver objects")
    parser.add_argument("--only", default="", help="only the configurations whose name contains this")
    parser.add_argument("--tolerance", type=float, default=1e-8, help="largest absolute difference of an embedding")
    parser.add_argument("--score-tolerance", type=float, default=1e-6, help="largest difference of a score")
    args = parser.parse_args(argv)
    results = run(args.quick, only=args.only, old_api=args.old_api)
    if args.record_scores:
        args.record_scores.write_text(json.dumps({name: score for name, (_, score) in results.items()}, indent=1) + "\n")
        print(f"recorded the scores of {len(results)} configurations")
        return 0
    if args.record:
        args.record.parent.mkdir(parents=True, exist_ok=True)
        arrays = {f"{name}|embedding": U for name, (U, _) in results.items()}
        arrays.update({f"{name}|score": np.array(s) for name, (_, s) in results.items()})
        np.savez_compressed(args.record, **arrays)
        print(f"recorded {len(results)} configurations")
        return 0
    record = np.load(args.compare)
    exact = same_score = differ = refused = 0
    for name, (U, score) in results.items():
        before, before_score = record[f"{name}|embedding"], float(record[f"{name}|score"])
        if not np.isfinite(U).all():
            refused += 1
            print(f"{name:60s} refused now; score before {before_score:.6f}")
            continue
        gap = float(np.max(np.abs(U - before))) if U.shape == before.shape else np.inf
        score_gap = abs(score - before_score)
        rigid_gap = float(np.max(np.abs(rigid_align(U, before) - before))) if U.shape == before.shape else np.inf
        if gap <= args.tolerance: exact += 1; verdict = "identical"
        elif score_gap <= args.score_tolerance:
            same_score += 1; verdict = f"same score; after rigid alignment max |dU| {rigid_gap:.1e}"
        else: differ += 1; verdict = f"DIFFERS; after rigid alignment max |dU| {rigid_gap:.1e}"
        print(f"{name:60s} max |dU| {gap:9.2e}  score {score:.6f} vs {before_score:.6f}  {verdict}")
    print(f"{exact} identical to {args.tolerance:g}, {same_score} with the same score to {args.score_tolerance:g}, "
          f"{differ} different, {refused} refused, of {len(results)}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
