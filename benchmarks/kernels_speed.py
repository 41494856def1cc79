"""Time `Kernel.inverse` on a 2000 x 2000 correlation matrix for every kernel (issue: kernels, speed).

Run: python benchmarks/kernels_speed.py [--size 2000] [--repeat 3]
Prints the best of `repeat` wall times per kernel, single-threaded, and the speed-up of the vectorized Matérn inverse
over a per-entry scipy.optimize.root_scalar loop on a 300 x 300 matrix.
"""
import argparse
import sys
from pathlib import Path
import os

if __name__ == "__main__":  # only as a script: an importer's process keeps its own thread settings
    os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np
from scipy import optimize

sys.path.insert(0, str(Path(__file__).parent))
from timing import best_time  # noqa: E402

from ikd.kernels import GammaExponential, Matern, RationalQuadratic, SquaredExponential


def scalar_loop_inverse(kernel, k):
    "The per-entry reference: one bracketing root find for each covariance."
    out = np.empty(k.size)
    for i, value in enumerate(k.ravel()):
        out[i] = optimize.root_scalar(lambda d: kernel.f(d) - value, bracket=(0.0, 1e4), method="brentq").root
    return out.reshape(k.shape)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--loop-size", type=int, default=300)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    S = np.corrcoef(rng.standard_normal((args.size, 100)))
    kernels = [SquaredExponential(), RationalQuadratic(alpha=1.0), GammaExponential(gamma=1.0), Matern(nu=0.5),
               Matern(nu=1.5), Matern(nu=2.5), Matern(nu=0.8), Matern(nu=3.7)]
    print(f"inverse on a {args.size} x {args.size} correlation matrix, best of {args.repeat}")
    for kernel in kernels:
        kernel.inverse(S[:5, :5])  # builds the Matérn table once, as a fitted estimator would have
        print(f"  {kernel!r:50s} {best_time(lambda: kernel.inverse(S), args.repeat):7.3f} s")
    n = args.loop_size
    small = np.clip(S[:n, :n], 1e-6, None)
    for kernel in (Matern(nu=1.5), Matern(nu=2.5)):
        loop = best_time(lambda: scalar_loop_inverse(kernel, small), 1)
        vectorized = best_time(lambda: kernel.inverse(small), args.repeat)
        check = np.max(np.abs(scalar_loop_inverse(kernel, small[:20, :20]) - kernel.inverse(small[:20, :20])))
        print(f"  {kernel!r}: per-entry root_scalar loop on {n} x {n}: {loop:.2f} s, vectorized {vectorized * 1e3:.1f} ms, "
              f"ratio {loop / vectorized:.0f}x (max difference {check:.1e})")


if __name__ == "__main__":
    main()
