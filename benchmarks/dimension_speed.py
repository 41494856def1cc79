"""Time of `intrinsic_dimension` on digits' covariance (T = 1797), as a default fit calls it, against a saved older copy.

Run: python benchmarks/dimension_speed.py OLD_MODULE.py [--repeats 5]
OLD_MODULE.py is a copy of an earlier `ikd/dimension.py` with its relative imports made absolute (for example
`git show COMMIT:ikd/dimension.py | sed 's/^from \.\([a-z_]*\) import/from ikd.\1 import/' > old.py`). The
two are timed interleaved, `--repeats` times each, and the script prints each time and the ratio of the medians.
"""
import argparse
import importlib.util
import time

import numpy as np
from sklearn.datasets import load_digits

from ikd import dimension
from ikd.covariance import sample_covariance
from ikd.kernels import get_kernel


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old_module")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("old_dimension", args.old_module)
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    X = load_digits().data
    S, se = sample_covariance(X), get_kernel("squared_exponential")
    times = {"old": [], "new": []}
    for _ in range(args.repeats):
        for name, module in (("old", old), ("new", dimension)):
            start = time.perf_counter()
            module.intrinsic_dimension(S, se, 7, n_features=X.shape[1])
            times[name].append(time.perf_counter() - start)
    for name, values in times.items(): print(f"{name}: " + " ".join(f"{t:.3f}" for t in values) + " s")
    print(f"new / old (medians): {np.median(times['new']) / np.median(times['old']):.2f}")


if __name__ == "__main__":
    main()
