"""The measurements behind `IKD(solver="auto")`: geodesic variants on the GP benchmark and on real data sets.

Run: python benchmarks/geodesic_variants.py [--seeds 3] [--sizes 10 20 50 100 1000] [--data-dir ../shared/data]
Prints (1) mean affine R^2 on the GP benchmark of Sec. 3.1 (Eq. 12 latent, T = 1000, M = 3, SE, l = 3, noise sd 0.05)
for distance and max-product paths, each without and with the error-weighted refinement, beside sklearn's Isomap;
(2) 5-fold 5-NN accuracy of the same variants on digits, COIL-20, the qPCR data and 3000 Fashion-MNIST images at
M = 2, 3, 5, 10, with the estimated intrinsic dimension and what the defaults chose; (3) mean affine R^2 of the same
variants on the three 100-point latents of Fig. 3 (SE, l = 0.5, noise sd 0.05, M = 3) at N = 100, 1000, 10000.
"""
import argparse
import warnings

import numpy as np
from sklearn.datasets import load_digits
from sklearn.manifold import Isomap

from ikd import IKD
from ikd.datasets import gp_observations, load_coil20, load_fashion_mnist, load_guo_qpcr, ou_latent
from ikd.experiments import LATENTS, latent_data
from ikd.metrics import affine_r2, knn_accuracy

VARIANTS = {
    "distance": dict(path="distance", refine=False),
    "distance+refine": dict(path="distance", refine=True),
    "product (paper)": dict(path="product", refine=False),
    "product+refine": dict(path="product", refine=True),
    "auto": dict(),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 50, 100, 1000])
    parser.add_argument("--data-dir", default=None, help="folder with the real data sets (default: $IKD_DATA)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    columns = list(VARIANTS) + ["Isomap (5)"]
    print(f"GP benchmark, T = 1000, M = 3, {args.seeds} seeds: mean affine R^2")
    print(f"{'N':>6s}  " + "  ".join(f"{name:>16s}" for name in columns))
    for N in args.sizes:
        scores = {name: [] for name in columns}
        for seed in range(args.seeds):
            Z = ou_latent(1000, 3, random_state=seed)
            X = gp_observations(Z, N, lengthscale=3.0, noise=0.05, random_state=seed)
            for name, params in VARIANTS.items():
                scores[name].append(affine_r2(IKD(3, **params).fit_transform(X), Z))
            scores["Isomap (5)"].append(affine_r2(Isomap(n_neighbors=5, n_components=3).fit_transform(X), Z))
        print(f"{N:6d}  " + "  ".join(f"{np.mean(scores[name]):16.4f}" for name in columns), flush=True)

    print("\n5-fold 5-NN accuracy; m = estimated intrinsic dimension; auto = what the defaults chose")
    data = {"digits": load_digits(return_X_y=True), "COIL-20": load_coil20(args.data_dir),
            "qPCR": load_guo_qpcr(args.data_dir), "F-MNIST 3000": load_fashion_mnist(data_dir=args.data_dir)}
    print(f"{'data':>13s} {'M':>3s}  " + "  ".join(f"{name:>16s}" for name in VARIANTS) + "    m   auto chose")
    for name, (X, y) in data.items():
        X = np.asarray(X, dtype=np.float64)
        for M in (2, 3, 5, 10):
            accuracy = {}
            for variant, params in VARIANTS.items():
                model = IKD(M, **params).fit(X)
                accuracy[variant] = knn_accuracy(model.embedding_, y)
            print(f"{name:>13s} {M:3d}  " + "  ".join(f"{accuracy[v]:16.3f}" for v in VARIANTS)
                  + f"  {model.settings_.intrinsic_dimension:5.2f}  {model.solver_.path}{', refined' if model.settings_.refine else ''}", flush=True)

    print(f"\nFig. 3 latents, T = 100, M = 3, SE, l = 0.5, noise sd 0.05, {args.seeds} seeds: mean affine R^2; m as above")
    print(f"{'latent':>8s} {'N':>6s}  " + "  ".join(f"{name:>16s}" for name in VARIANTS) + "    m   auto chose")
    for latent in LATENTS:
        for N in (100, 1000, 10000):
            scores, dimensions = {name: [] for name in VARIANTS}, []
            for seed in range(args.seeds):
                X, Z = latent_data(latent, "squared_exponential", N, seed)
                for variant, params in VARIANTS.items():
                    model = IKD(3, **params).fit(X)
                    scores[variant].append(affine_r2(model.embedding_, Z))
                dimensions.append(model.settings_.intrinsic_dimension)
            print(f"{latent:>8s} {N:6d}  " + "  ".join(f"{np.mean(scores[v]):16.4f}" for v in VARIANTS)
                  + f"  {np.mean(dimensions):5.2f}  {model.solver_.path}{', refined' if model.settings_.refine else ''}", flush=True)


if __name__ == "__main__":
    main()
