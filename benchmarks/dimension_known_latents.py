"""m-hat on latents of known dimension (issue 44): GP observations of Eq. 12 OU latents of dimension 1, 2, 3.

Run: python benchmarks/dimension_known_latents.py [--seeds 5] [--old OLD_MODULE.py]
For m = 1, 2, 3, T = 50, 200, 1000 points, noise sd 0, 0.05, 0.1 and N = 200 features (SE, l = 3), `intrinsic_dimension`
as a default fit reads it (7 neighbours, the noise radius from N) over `--seeds` seeds: mean, sd over the seeds, and the
range. With --old, the same for a saved earlier copy of `ikd/dimension.py` (see `benchmarks/dimension_speed.py`).
Prints and writes benchmarks/results/dimension_known_latents.txt.
"""
import argparse
import importlib.util
import itertools
from pathlib import Path

import numpy as np

from ikd import dimension
from ikd.covariance import sample_covariance
from ikd.datasets import gp_observations, ou_latent
from ikd.kernels import get_kernel

RESULTS = Path(__file__).parent / "results" / "dimension_known_latents.txt"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--old", default=None, help="a saved earlier ikd/dimension.py, read beside the current one")
    args = parser.parse_args()
    modules = {"now": dimension}
    if args.old:
        spec = importlib.util.spec_from_file_location("old_dimension", args.old)
        modules["before"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(modules["before"])
    se = get_kernel("squared_exponential")
    lines = [f"m-hat of GP observations (SE, l = 3, N = 200) of OU latents of dimension m, {args.seeds} seeds: "
             "mean, sd over seeds [min, max]",
             f"{'m':>2s} {'T':>5s} {'noise':>6s}  " + "  ".join(f"{name:>24s}" for name in modules)]
    deviations = {name: [] for name in modules}
    for m, T, noise in itertools.product((1, 2, 3), (50, 200, 1000), (0.0, 0.05, 0.1)):
        readings = {name: [] for name in modules}
        for seed in range(args.seeds):
            S = sample_covariance(gp_observations(ou_latent(T, m, random_state=seed), 200, noise=noise, random_state=seed))
            for name, module in modules.items(): readings[name].append(module.intrinsic_dimension(S, se, 7, n_features=200))
        cells = []
        for name, values in readings.items():
            values = np.array(values)
            deviations[name].extend(values - m)
            cells.append(f"{values.mean():5.2f} {values.std(ddof=1):4.2f} [{values.min():4.2f}, {values.max():4.2f}]")
        lines.append(f"{m:2d} {T:5d} {noise:6.2f}  " + "  ".join(f"{c:>24s}" for c in cells))
        print(lines[-1], flush=True)
    for name, values in deviations.items():
        values = np.abs(values)
        lines.append(f"{name}: largest |m-hat - m| {values.max():.2f}, 95th percentile {np.quantile(values, 0.95):.2f}")
    RESULTS.write_text("\n".join(lines) + "\n")
    print("\n".join(lines[-len(modules):]))


if __name__ == "__main__":
    main()
