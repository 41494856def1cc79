"""Choosing M by BIC on a 1-D latent: IKD's closed-form embedding against the GPLVM optimised from it (issue 33).

Run: python benchmarks/model_order_1d.py [--seeds 3] [--max-iters 1000]
GP observations (SE, l = 3, N = 200) of a 200-point Eq. 12 OU latent of dimension 1, at noise sd 0, 0.01, 0.05 and 0.1.
For M = 1, 2, 3: `IKD(M).bic(X)`, the BIC at IKD's embedding, and `gpy_warm_start.optimised_bic`, the BIC at the GPLVM
optimum reached from it. Prints the M each picks and the BIC values; writes benchmarks/results/model_order_1d.txt.
"""
import argparse
import warnings
from pathlib import Path

from ikd import IKD
from ikd.datasets import gp_observations, ou_latent
from ikd.gpy_warm_start import optimised_bic

RESULTS = Path(__file__).parent / "results" / "model_order_1d.txt"
CANDIDATES = (1, 2, 3)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--max-iters", type=int, default=1000)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    lines = ["BIC over M = 1, 2, 3 on a 1-D latent (T = 200, N = 200): the M each picks, and each BIC (IKD / optimised GPLVM)",
             f"{'seed':>4s}  {'noise sd':>8s}  {'IKD picks':>9s}  {'GPLVM picks':>11s}  "
             + "  ".join(f"{f'M = {M}':>21s}" for M in CANDIDATES)]
    for seed in range(args.seeds):
        for noise in (0.0, 0.01, 0.05, 0.1):
            X = gp_observations(ou_latent(200, 1, random_state=seed), 200, lengthscale=3.0, noise=noise, random_state=seed)
            closed, optimised = {}, {}
            for M in CANDIDATES:
                model = IKD(M).fit(X)
                closed[M], optimised[M] = model.bic(X), optimised_bic(X, M, model=model, max_iters=args.max_iters)
            lines.append(f"{seed:4d}  {noise:8.2f}  {min(closed, key=closed.get):9d}  {min(optimised, key=optimised.get):11d}  "
                         + "  ".join(f"{closed[M]:10.0f} {optimised[M]:10.0f}" for M in CANDIDATES))
            print(lines[-1], flush=True)
    RESULTS.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
