"""The doubling dimension beside the Levina-Bickel estimate m-hat as input to IKD's `auto` rules (issue 21, part 3).

Run: python benchmarks/doubling_dimension.py [--seeds 3] [--data-dir DIR]
For the seven data sets of the settings notebook's tables (digits, COIL-20, qPCR, 3000 Fashion-MNIST images; the hard,
medium and easy Fig. 3 latents at N = 100, 1000, 10000 with the seeds of `geodesic_variants.py`), computes m-hat as a
default fit does (`IKD.settings_.intrinsic_dimension`) and the doubling dimension (`dimension.doubling_dimension`, upper
quartile) from the same correlations and kernel. Then applies the two rules (distance paths when the dimension is at most
M + 1, refinement when it is at most min(M + 1, 4)) with each estimate, and reads the score of the chosen variant from
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
from ikd.dimension import doubling_dimension
from ikd.experiments import LATENTS, latent_data
from ikd.geodesic import REFINE_MAX_DIMENSION

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


def chosen_variant(dimension, n_components):
    "The settings rules (path, then refinement) applied to one dimension estimate."
    path = "distance" if dimension <= n_components + 1 else "product (paper)"
    refined = dimension <= min(n_components + 1, REFINE_MAX_DIMENSION)
    return {"distance": "distance+refine", "product (paper)": "product+refine"}[path] if refined else path


def estimates(X):
    "(m-hat, doubling dimension) on the correlations a default fit uses."
    model = IKD(2).fit(X)
    return model.settings_.intrinsic_dimension, doubling_dimension(sample_covariance(X), model.kernel_)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--data-dir", default=None, help="folder with the real data sets (default: $IKD_DATA)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    scores = committed_scores()
    rows = []  # (data, M, m-hat, doubling, score with m-hat's choice, score with the doubling dimension's, best score)
    real = {"digits": lambda: load_digits(return_X_y=True), "COIL-20": lambda: load_coil20(args.data_dir),
            "qPCR": lambda: load_guo_qpcr(args.data_dir), "F-MNIST 3000": lambda: load_fashion_mnist(data_dir=args.data_dir)}
    for name, load in real.items():
        X, _ = load()
        m_hat, doubling = estimates(np.asarray(X, dtype=np.float64))
        for M in (2, 3, 5, 10):
            table = scores[(name, M)]
            rows.append((name, f"M = {M}", m_hat, doubling, table[chosen_variant(m_hat, M)],
                         table[chosen_variant(doubling, M)], max(table.values())))
    for latent in LATENTS:
        for N in (100, 1000, 10000):
            pairs = np.array([estimates(latent_data(latent, "squared_exponential", N, seed)[0]) for seed in range(args.seeds)])
            m_hat, doubling = pairs.mean(axis=0)
            table = scores[(latent, N)]
            rows.append((latent, f"N = {N}", m_hat, doubling, table[chosen_variant(m_hat, 3)],
                         table[chosen_variant(doubling, 3)], max(table.values())))
    lines = ["Dimension estimates and the score of the variant each one makes the auto rules choose "
             "(real data: 5-fold 5-NN accuracy; latents: M = 3, mean affine R^2)",
             f"{'data':>13s} {'setting':>9s}  {'m-hat':>6s}  {'doubling':>8s}  {'with m-hat':>10s}  {'with doubling':>13s}  {'best':>6s}"]
    for data, setting, m_hat, doubling, by_m_hat, by_doubling, best in rows:
        lines.append(f"{data:>13s} {setting:>9s}  {m_hat:6.2f}  {doubling:8.2f}  {by_m_hat:10.4f}  {by_doubling:13.4f}  {best:6.4f}")
    for label, part in (("real data (16 settings)", rows[:16]), ("latents (9 settings)", rows[16:])):
        by_m_hat, by_doubling, best = (np.mean([row[i] for row in part]) for i in (4, 5, 6))
        differ = sum(row[4] != row[5] for row in part)
        lines.append(f"mean over {label}: with m-hat {by_m_hat:.4f}, with the doubling dimension {by_doubling:.4f}, "
                     f"best variant {best:.4f}; the choices differ in {differ}")
    RESULTS.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
