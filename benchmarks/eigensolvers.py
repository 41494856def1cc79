"""Which partial eigensolver should IKD use for the top-M eigenpairs of g(D)?

Run: python benchmarks/eigensolvers.py [--sizes 1000 4000] [--components 2 10]
Times scipy.linalg.eigh(subset_by_index=...) against scipy.sparse.linalg.eigsh (ARPACK) on the g(D) matrix of a
correlation matrix of random-walk data (a realistic, slowly decaying spectrum), best of three runs each.
"""
import argparse
import sys
from pathlib import Path

import numpy as np
from scipy import linalg
from scipy.sparse.linalg import eigsh

sys.path.insert(0, str(Path(__file__).parent))
from timing import best_time  # noqa: E402

from ikd.gram import gram
from ikd.kernels import SquaredExponential


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000])
    parser.add_argument("--components", type=int, nargs="+", default=[2, 10])
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    for T in args.sizes:
        X = np.cumsum(rng.standard_normal((T, 200)), axis=0)
        D = SquaredExponential().inverse(np.clip(np.corrcoef(X), 1e-3, None))
        G = gram(D, "centroid")
        for M in args.components:
            t_eigh = best_time(lambda: linalg.eigh(G, subset_by_index=[T - M, T - 1]))
            t_eigsh = best_time(lambda: eigsh(G, k=M, which="LA", v0=np.ones(T)))
            print(f"T={T:5d} M={M:2d}  eigh(subset) {t_eigh:7.3f} s   eigsh {t_eigsh:7.3f} s")


if __name__ == "__main__":
    main()
