"""Shared helper of the benchmark scripts."""
import time


def best_time(fn, repeat=3):
    "The smallest wall time of `repeat` calls of `fn`, in seconds."
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)
