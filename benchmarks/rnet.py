"""r-nets with friend lists against plain Gonzalez, and the landmark embeddings they give (issue 21, part 2).

Run: python benchmarks/rnet.py [--seeds 3] [--fashion-mnist] [--data-dir DIR]
Prints (and writes benchmarks/results/rnet.txt) for the GP benchmark (Eq. 12 latent, T = 1000, M = 3, SE, l = 3, noise
sd 0.05, N = 100) at L = 100, 200, 400 landmarks: the distances the friend-list r-net computes as a fraction of plain
Gonzalez's T L (and the share of them that builds the friend lists), the time of the r-net in the exact correlation
distance, of plain Gonzalez in the same distance (one BLAS product with all T rows per centre) and of the "farthest"
rule (the r-net in 64 principal directions), and the affine R^2 of landmark IKD with each rule. With --fashion-mnist,
the same for all 70 000 Fashion-MNIST images at L = 2000, with 5-fold 5-NN accuracy at M = 2 and 10.
"""
import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from ikd import IKD
from ikd.covariance import covariance_rows
from ikd.datasets import gp_observations, load_fashion_mnist, ou_latent
from ikd.landmarks import farthest_point_landmarks, rnet
from ikd.metrics import affine_r2, knn_accuracy

RESULTS = Path(__file__).parent / "results" / "rnet.txt"
RULES = ("farthest", "rnet", "random")


def plain_gonzalez(rows, n_centres, first):
    "Every distance updated at every step, by one matrix-vector product with all rows: the plain algorithm at its fastest."
    squared_norms = np.einsum("ij,ij->i", rows, rows)
    distance_to = lambda p: np.sqrt(np.maximum(squared_norms + squared_norms[p] - 2.0 * (rows @ rows[p]), 0.0))
    distance = distance_to(first)
    for _ in range(n_centres - 1):
        distance = np.minimum(distance, distance_to(int(np.argmax(distance))))
    return distance.max()


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def construction_line(label, rows, n_centres):
    "Distance counts and times of the three constructions of the same n_centres landmarks."
    net, net_seconds = timed(rnet, rows, n_centres=n_centres)
    plain_radius, plain_seconds = timed(plain_gonzalez, rows, n_centres, net.centres[0])
    _, farthest_seconds = timed(farthest_point_landmarks, rows, n_centres)
    assert abs(plain_radius - net.radius) < 1e-9 * max(1.0, net.radius)
    T = len(rows)
    friend_share = n_centres * (n_centres - 1) / 2 / net.distance_evaluations
    return (f"{label:>22s} {n_centres:5d}  {net.distance_evaluations / (T * n_centres):17.3f}  {friend_share:12.3f}  "
            f"{net_seconds:9.2f}  {plain_seconds:9.2f}  {farthest_seconds:10.2f}  {net.radius:7.4f}")


HEADER = (f"{'data':>22s} {'L':>5s}  {'distances / (T L)':>17s}  {'friend share':>12s}  {'rnet (s)':>9s}  "
          f"{'plain (s)':>9s}  {'farthest (s)':>10s}  {'radius':>7s}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--fashion-mnist", action="store_true", help="also all 70 000 Fashion-MNIST images (minutes)")
    parser.add_argument("--data-dir", default=None, help="folder with the real data sets (default: $IKD_DATA)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    lines = ["Constructions (GP benchmark, seed 0; Fashion-MNIST: all 70 000 images): distances computed by the friend-list "
             "r-net as a fraction of plain Gonzalez's T L, the share of them spent on friend lists, and wall times", HEADER]
    Z = ou_latent(1000, 3, random_state=0)
    rows = covariance_rows(gp_observations(Z, 100, lengthscale=3.0, noise=0.05, random_state=0))
    for L in (100, 200, 400):
        lines.append(construction_line("GP benchmark, N = 100", rows, L))
        print(lines[-1], flush=True)
    lines += ["", f"Landmark IKD on the GP benchmark (T = 1000, N = 100, M = 3), {args.seeds} seeds: mean affine R^2",
              f"{'L':>5s}  " + "  ".join(f"{rule:>9s}" for rule in RULES) + f"  {'all fitted':>10s}"]
    for L in (100, 200, 400):
        scores = {rule: [] for rule in RULES + ("all",)}
        for seed in range(args.seeds):
            Z = ou_latent(1000, 3, random_state=seed)
            X = gp_observations(Z, 100, lengthscale=3.0, noise=0.05, random_state=seed)
            for rule in RULES:
                scores[rule].append(affine_r2(IKD(3, n_landmarks=L, landmarks=rule).fit_transform(X), Z))
            scores["all"].append(affine_r2(IKD(3).fit_transform(X), Z))
        lines.append(f"{L:5d}  " + "  ".join(f"{np.mean(scores[rule]):9.4f}" for rule in RULES)
                     + f"  {np.mean(scores['all']):10.4f}")
        print(lines[-1], flush=True)
    if args.fashion_mnist:
        X, y = load_fashion_mnist(n_samples=None, data_dir=args.data_dir)
        lines += ["", HEADER, construction_line("Fashion-MNIST 70 000", covariance_rows(X), 2000)]
        print(lines[-1], flush=True)
        lines += ["", "Landmark IKD on all 70 000 Fashion-MNIST images, L = 2000: 5-fold 5-NN accuracy (fit seconds)",
                  f"{'M':>3s}  " + "  ".join(f"{rule:>16s}" for rule in RULES[:2])]
        for M in (2, 10):
            cells = []
            for rule in RULES[:2]:
                embedding, seconds = timed(IKD(M, n_landmarks=2000, landmarks=rule).fit_transform, X)
                cells.append(f"{knn_accuracy(embedding, y):7.3f} ({seconds:5.1f} s)")
            lines.append(f"{M:3d}  " + "  ".join(f"{cell:>16s}" for cell in cells))
            print(lines[-1], flush=True)
    RESULTS.write_text("\n".join(lines) + "\n")
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
