"""Fit times of two versions of ikd side by side, in one run: an earlier commit (a `git worktree`) against this tree.

    python benchmarks/compare_versions.py --before 6181f6d [--repeats 5] [--rounds 5]

Each configuration is timed in fresh child processes, one per version and round; the versions alternate within a round
and swap places from one round to the next (before-after, after-before, ...), so drift in the machine's speed affects
both alike. A child fits `repeats + 1` times and reports the median of the last `repeats`, so imports and first calls
are not counted. Prints one row per configuration: the median over rounds before and after, their ratio, and the range
of the per-round ratios (a ratio whose range straddles 1 is noise).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

CONFIGURATIONS = {  # name -> (data, IKD keyword arguments, what is timed)
    "GP T=1000 N=100, defaults": ("gp", {"n_components": 3}, "fit"),
    "GP T=1000 N=100, full": ("gp", {"n_components": 3, "solver": "full"}, "fit"),
    "GP T=1000 N=100, product paths": ("gp", {"n_components": 3, "path": "product"}, "fit"),
    "digits M=2, defaults": ("digits", {"n_components": 2}, "fit"),
    "digits M=10, defaults": ("digits", {"n_components": 10}, "fit"),
    "digits M=2, 500 landmarks": ("digits", {"n_components": 2, "n_landmarks": 500}, "fit"),
    "digits M=2, transform 1797 rows": ("digits", {"n_components": 2}, "transform"),
}

CHILD = r"""
import json, sys, time, warnings
import numpy as np
from ikd import IKD
from ikd.datasets import gp_observations, ou_latent
from sklearn.datasets import load_digits
data, params, timed, repeats = json.loads(sys.argv[1])
if data == "gp": X = gp_observations(ou_latent(1000, 3, random_state=0), 100, lengthscale=3.0, noise=0.05, random_state=0)
else: X = load_digits().data
times = []
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    model = IKD(**params).fit(X)
    for _ in range(repeats + 1):
        start = time.perf_counter()
        model.fit(X) if timed == "fit" else model.transform(X)
        times.append(time.perf_counter() - start)
print(json.dumps(float(np.median(times[1:]))))
"""


def median_time(tree, data, params, timed, repeats):
    "Median seconds of `repeats` timed calls in a child process importing ikd from `tree`."
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps([data, params, timed, repeats])], env=env, cwd=tree,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the earlier commit")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=1, help="alternating before/after child pairs per configuration")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        before = Path(folder) / "before"
        subprocess.run(["git", "worktree", "add", "--detach", str(before), args.before], cwd=ROOT, check=True,
                       capture_output=True)
        try:
            print(f"{'configuration':36s} {'before (s)':>11s} {'after (s)':>10s} {'after/before':>13s} {'per-round range':>16s}")
            for name, (data, params, timed) in CONFIGURATIONS.items():
                old, new = [], []
                for round_ in range(args.rounds):
                    trees = ((before, old), (ROOT, new)) if round_ % 2 == 0 else ((ROOT, new), (before, old))
                    for tree, times in trees: times.append(median_time(tree, data, params, timed, args.repeats))
                ratios = np.array(new) / np.array(old)
                print(f"{name:36s} {np.median(old):11.3f} {np.median(new):10.3f} {np.median(new) / np.median(old):13.2f} "
                      f"{ratios.min():7.2f}..{ratios.max():.2f}", flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, check=True)


if __name__ == "__main__":
    main()
