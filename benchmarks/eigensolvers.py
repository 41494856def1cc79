"""Which partial eigensolver should IKD use for the top-M eigenpairs of g(D)?

Run: python benchmarks/eigensolvers.py [--sizes 2000 4000 8000] [--components 2 10]
The matrix is the one a default fit decomposes: g(D) about the centroid of the geodesic distances of the GP benchmark
(Eq. 12 latent, M = 3, N = 100 features, l = 3, noise sd 0.05, seed 0) at each T. Compared, best of three runs each:
ARPACK (`scipy.sparse.linalg.eigsh`, seeded start vector: today's default), LAPACK's subset solver
(`scipy.linalg.eigh(subset_by_index=...)`, up to T = 4000), a randomized range finder
(`sklearn.utils.extmath.randomized_svd`, 10 oversamples, 7 power iterations) and LOBPCG (`scipy.sparse.linalg.lobpcg`,
tolerance 1e-10, seeded start block). For each, the time and the largest difference of the embedding U sqrt(lambda)
from ARPACK's, after matching each column's sign.
"""
import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from scipy import linalg
from scipy.sparse.linalg import eigsh, lobpcg
from sklearn.utils.extmath import randomized_svd

sys.path.insert(0, str(Path(__file__).parent))
from timing import best_time  # noqa: E402

from ikd.covariance import sample_covariance
from ikd.datasets import gp_observations, ou_latent
from ikd.gram import gram
from ikd.kernels import get_kernel
from ikd.geodesic import GeodesicSolver


def geodesic_gram(T):
    X = gp_observations(ou_latent(T, 3, random_state=0), 100, lengthscale=3.0, noise=0.05, random_state=0)
    D = GeodesicSolver(n_neighbors=7, path="distance").solve(sample_covariance(X), get_kernel("squared_exponential")).distances
    return gram(D, "centroid", overwrite=True)


def arpack(G, M):
    return eigsh(G, k=M, which="LA", v0=np.random.default_rng(0).uniform(-1, 1, len(G)))


def lapack(G, M):
    return linalg.eigh(G, subset_by_index=[len(G) - M, len(G) - 1])


def randomized(G, M):
    U, s, Vt = randomized_svd(G, M, n_oversamples=10, n_iter=7, random_state=0)
    return s * np.sign(np.sum(U * Vt.T, axis=0)), U


def block_lobpcg(G, M):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lobpcg warns when it stops at maxiter; the error column shows it
        return lobpcg(G, np.random.default_rng(0).standard_normal((len(G), M)), largest=True, tol=1e-10, maxiter=500)


def embedding(values, vectors):
    order = np.argsort(values)[::-1]
    values, vectors = values[order], vectors[:, order]
    vectors = vectors * np.sign(vectors[np.argmax(np.abs(vectors), axis=0), np.arange(vectors.shape[1])])
    return vectors * np.sqrt(np.clip(values, 0, None))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 4000, 8000])
    parser.add_argument("--components", type=int, nargs="+", default=[2, 10])
    args = parser.parse_args()
    solvers = {"eigsh (ARPACK)": arpack, "eigh subset (LAPACK)": lapack, "randomized": randomized, "LOBPCG": block_lobpcg}
    print(f"{'T':>5s} {'M':>3s}  " + "  ".join(f"{name:>30s}" for name in solvers))
    for T in args.sizes:
        G = geodesic_gram(T)
        for M in args.components:
            reference = embedding(*arpack(G, M))
            cells = []
            for name, solve in solvers.items():
                if name.startswith("eigh") and T > 4000:
                    cells.append(f"{'(skipped)':>30s}")
                    continue
                seconds = best_time(lambda: solve(G, M))
                error = np.abs(embedding(*solve(G, M)) - reference).max()
                cells.append(f"{seconds:8.3f} s, max |dU| {error:8.1e}")
            print(f"{T:5d} {M:3d}  " + "  ".join(cells), flush=True)


if __name__ == "__main__":
    main()
