"""r-nets with friend lists against plain Gonzalez, and the landmark embeddings they give (issue 21, part 2).

Run: python benchmarks/rnet.py [--seeds 3] [--fashion-mnist] [--data-dir DIR]
Prints (and writes benchmarks/results/rnet.txt) for the GP benchmark (Eq. 12 latent, T = 1000, M = 3, SE, l = 3, noise
sd 0.05, N = 100) at L = 100, 200, 400 landmarks, and with --fashion-mnist for all 70 000 Fashion-MNIST images at
L = 2000: in the distance the landmark rules use (the standardised rows' 64 leading principal coordinates) and in the
exact correlation distance (all N features), the distances the friend-list r-net (`landmarks.rnet`) computes as a
fraction of plain Gonzalez's T L (`landmarks.gonzalez`), the share of them spent on friend lists, and both wall times
(each construction asserted to give the other's net). Then landmark IKD with each rule ("farthest" and "rnet" give the
same landmarks, asserted), with the exact net's centres given as indices, and with random landmarks: the GP benchmark's
mean affine R^2, Fashion-MNIST's 5-fold 5-NN accuracy at M = 2 and 10 with fit seconds.
"""
import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from ikd import IKD
from ikd.covariance import covariance_rows
from ikd.datasets import gp_observations, load_fashion_mnist, ou_latent
from ikd.landmarks import gonzalez, principal_coordinates, rnet
from ikd.metrics import affine_r2, knn_accuracy

RESULTS = Path(__file__).parent / "results" / "rnet.txt"
HEADER = (f"{'data':>22s} {'distance':>10s} {'L':>5s}  {'distances / (T L)':>17s}  {'friend share':>12s}  "
          f"{'rnet (s)':>9s}  {'gonzalez (s)':>12s}  {'radius':>7s}")


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def construction_lines(label, rows, n_centres):
    "Distance counts and times of the friend-list and plain constructions, in principal coordinates and exactly."
    lines, exact_net = [], None
    projected, projection_seconds = timed(principal_coordinates, rows)
    for space, points in (("64 PCs", projected), ("exact", rows)):
        net, net_seconds = timed(rnet, points, n_centres=n_centres)
        plain, plain_seconds = timed(gonzalez, points, n_centres=n_centres)
        np.testing.assert_array_equal(net.centres, plain.centres)
        friend_share = n_centres * (n_centres - 1) / 2 / net.distance_evaluations
        lines.append(f"{label:>22s} {space:>10s} {n_centres:5d}  {net.distance_evaluations / plain.distance_evaluations:17.3f}"
                     f"  {friend_share:12.3f}  {net_seconds:9.2f}  {plain_seconds:12.2f}  {net.radius:7.4f}")
        print(lines[-1], flush=True)
        exact_net = net
    lines.append(f"{'':>22s} (projection to 64 principal coordinates: {projection_seconds:.2f} s)")
    return lines, exact_net


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
        lines += construction_lines("GP benchmark, N = 100", rows, L)[0]
    columns = ("farthest = rnet", "exact net", "random", "all fitted")
    lines += ["", f"Landmark IKD on the GP benchmark (T = 1000, N = 100, M = 3), {args.seeds} seeds: mean affine R^2",
              f"{'L':>5s}  " + "  ".join(f"{column:>15s}" for column in columns)]
    for L in (100, 200, 400):
        scores = {column: [] for column in columns}
        for seed in range(args.seeds):
            Z = ou_latent(1000, 3, random_state=seed)
            X = gp_observations(Z, 100, lengthscale=3.0, noise=0.05, random_state=seed)
            farthest = IKD(3, n_landmarks=L).fit_transform(X)
            np.testing.assert_array_equal(IKD(3, n_landmarks=L, landmarks="rnet").fit_transform(X), farthest)
            exact = rnet(covariance_rows(X), n_centres=L).centres
            scores["farthest = rnet"].append(affine_r2(farthest, Z))
            scores["exact net"].append(affine_r2(IKD(3, landmarks=exact).fit_transform(X), Z))
            scores["random"].append(affine_r2(IKD(3, n_landmarks=L, landmarks="random").fit_transform(X), Z))
            scores["all fitted"].append(affine_r2(IKD(3).fit_transform(X), Z))
        lines.append(f"{L:5d}  " + "  ".join(f"{np.mean(scores[column]):15.4f}" for column in columns))
        print(lines[-1], flush=True)
    if args.fashion_mnist:
        X, y = load_fashion_mnist(n_samples=None, data_dir=args.data_dir)
        lines += ["", HEADER]
        construction, exact_net = construction_lines("Fashion-MNIST 70 000", covariance_rows(X), 2000)
        lines += construction
        rules = ("farthest", "rnet", "exact net")
        lines += ["", "Landmark IKD on all 70 000 Fashion-MNIST images, L = 2000: 5-fold 5-NN accuracy (fit seconds; the exact "
                  "net's centres given as indices, their construction timed above)",
                  f"{'M':>3s}  " + "  ".join(f"{rule:>16s}" for rule in rules)]
        for M in (2, 10):
            farthest, farthest_seconds = timed(IKD(M, n_landmarks=2000).fit_transform, X)
            by_friend_lists, rnet_seconds = timed(IKD(M, n_landmarks=2000, landmarks="rnet").fit_transform, X)
            np.testing.assert_array_equal(by_friend_lists, farthest)
            exact, exact_seconds = timed(IKD(M, landmarks=exact_net.centres).fit_transform, X)
            cells = [f"{knn_accuracy(embedding, y):7.3f} ({seconds:5.1f} s)" for embedding, seconds in
                     ((farthest, farthest_seconds), (by_friend_lists, rnet_seconds), (exact, exact_seconds))]
            lines.append(f"{M:3d}  " + "  ".join(f"{cell:>16s}" for cell in cells))
            print(lines[-1], flush=True)
    RESULTS.write_text("\n".join(lines) + "\n")
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
