"""Dimension estimates as input to IKD's `auto` rules: m-hat, its variants, and the doubling dimension (issues 21 and 33).

Run: python benchmarks/doubling_dimension.py [--seeds 3] [--data-dir DIR]
For the seven data sets of the settings notebook's tables (digits, COIL-20, qPCR, 3000 Fashion-MNIST images; the hard,
medium and easy Fig. 3 latents at N = 100, 1000, 10000 with the seeds of `geodesic_variants.py`), computes m-hat as a
default fit does (`IKD.settings_.intrinsic_dimension`, read beyond the noise radius, the floor raised by the expected
extreme of the pairs in its noise band), m-hat without the noise radius (plain Levina-Bickel, as for a precomputed
covariance), m-hat with the floor at the strongest pair (`floor_shift=0`, the rule before issue 44), and the doubling
dimension (`dimension.doubling_dimension`, upper quartile), all from the same correlations and kernel. Then applies the
rules (distance paths when the dimension is at most M + 1; refinement when it is at most min(M + 1, 4) and noise ranks at
most half of the graph's edges, `settings.NOISE_RANKED_MAX`, the share read as a fit reads it) with each estimate, and
reads the score of the chosen variant from
the committed `benchmarks/geodesic_variants.txt` (5-fold 5-NN accuracy; mean affine R^2 over the seeds for the latents,
where the rule is applied to the seeds' mean estimate). Prints and writes benchmarks/results/doubling_dimension.txt.
"""
import argparse
import re
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits

from ikd import IKD
from ikd.covariance import sample_covariance
from ikd.datasets import load_coil20, load_fashion_mnist, load_guo_qpcr
from ikd.dimension import doubling_dimension, intrinsic_dimension
from ikd.experiments import LATENTS, latent_data
from ikd.geodesic import REFINE_MAX_DIMENSION
from ikd.settings import NOISE_RANKED_MAX

HERE = Path(__file__).parent
VARIANTS = ("distance", "distance+refine", "product (paper)", "product+refine")  # the committed tables' first columns
RESULTS = HERE / "results" / "doubling_dimension.txt"


def committed_scores():
    "{(data, M or N): {variant: score}} from the committed real-data and latent tables of geodesic_variants.txt."
    scores = {}
    for block in (HERE / "geodesic_variants.txt").read_text().strip().split("\n\n")[1:]:
        for line in block.split("\n")[2:]:
            data, size, *values = re.split(r"\s{2,}", line.strip())
            scores[(data, int(size))] = dict(zip(VARIANTS, map(float, values[:4])))
    return scores


def chosen_variant(dimension, n_components, noise_ranked_share):
    "The settings rules (path, then refinement) applied to one dimension estimate."
    path = "distance" if dimension <= n_components + 1 else "product (paper)"
    refined = dimension <= min(n_components + 1, REFINE_MAX_DIMENSION) and noise_ranked_share <= NOISE_RANKED_MAX
    return {"distance": "distance+refine", "product (paper)": "product+refine"}[path] if refined else path


ESTIMATES = ("m-hat", "no radius", "top floor", "doubling")


def estimates(X):
    "The four estimates of `ESTIMATES` on the correlations a default fit uses, and the noise-ranked share of its graph."
    model = IKD(2).fit(X)
    S = sample_covariance(X)
    return (model.settings_.intrinsic_dimension, intrinsic_dimension(S, model.kernel_),
            intrinsic_dimension(S, model.kernel_, n_features=X.shape[1], floor_shift=0.0),
            doubling_dimension(S, model.kernel_), model.settings_.noise_ranked_share)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--data-dir", default=None, help="folder with the real data sets (default: $IKD_DATA)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    scores = committed_scores()
    rows = []  # (data, setting, the four estimates, the score each one's choice gets, the best score)
    real = {"digits": lambda: load_digits(return_X_y=True), "COIL-20": lambda: load_coil20(args.data_dir),
            "qPCR": lambda: load_guo_qpcr(args.data_dir), "F-MNIST 3000": lambda: load_fashion_mnist(data_dir=args.data_dir)}
    for name, load in real.items():
        X, _ = load()
        *dimensions, share = estimates(np.asarray(X, dtype=np.float64))
        for M in (2, 3, 5, 10):
            table = scores[(name, M)]
            rows.append((name, f"M = {M}", *dimensions, *(table[chosen_variant(d, M, share)] for d in dimensions),
                         max(table.values())))
    for latent in LATENTS:
        for N in (100, 1000, 10000):
            *dimensions, share = np.array([estimates(latent_data(latent, "squared_exponential", N, seed)[0])
                                           for seed in range(args.seeds)]).mean(axis=0)
            table = scores[(latent, N)]
            rows.append((latent, f"N = {N}", *dimensions, *(table[chosen_variant(d, 3, share)] for d in dimensions),
                         max(table.values())))
    n = len(ESTIMATES)
    lines = ["Dimension estimates and the score of the variant each one makes the auto rules choose "
             "(real data: 5-fold 5-NN accuracy; latents: M = 3, mean affine R^2)",
             f"{'data':>13s} {'setting':>9s}  " + "  ".join(f"{e:>9s}" for e in ESTIMATES) + "  "
             + "  ".join(f"{'with ' + e:>14s}" for e in ESTIMATES) + f"  {'best':>6s}"]
    for data, setting, *values in rows:
        lines.append(f"{data:>13s} {setting:>9s}  " + "  ".join(f"{v:9.2f}" for v in values[:n]) + "  "
                     + "  ".join(f"{v:14.4f}" for v in values[n:2 * n]) + f"  {values[-1]:6.4f}")
    for label, part in (("real data (16 settings)", rows[:16]), ("latents (9 settings)", rows[16:])):
        means = [np.mean([row[2 + n + i] for row in part]) for i in range(n)]
        differ = [sum(row[2 + n + i] != row[2 + n] for row in part) for i in range(1, n)]
        lines.append(f"mean over {label}: " + ", ".join(f"with {e} {m:.4f}" for e, m in zip(ESTIMATES, means))
                     + f", best variant {np.mean([row[-1] for row in part]):.4f}; settings where the chosen variant scores otherwise than m-hat's: "
                     + ", ".join(f"{e} {d}" for e, d in zip(ESTIMATES[1:], differ)))
    RESULTS.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
