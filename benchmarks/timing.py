"""Shared helpers of the benchmark scripts: best-of timing, and one measurement per fresh process."""
import json
import resource
import subprocess
import time


def wall_times(fn, repeat=3, before=lambda: None):
    "The wall times of `repeat` calls of `fn`, each after an untimed call of `before`, in seconds."
    times = []
    for _ in range(repeat):
        before()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def best_time(fn, repeat=3):
    "The smallest wall time of `repeat` calls of `fn`, in seconds."
    return min(wall_times(fn, repeat))


def report_from_child(seconds):
    "Print, as the child's last line, its measured seconds and its peak resident memory so far (ru_maxrss is in KiB)."
    print(json.dumps({"seconds": seconds, "peak_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20}))


def run_in_child(command, timeout=None):
    "Run `command` in a fresh process and return the report it printed with `report_from_child`."
    done = subprocess.run(command, check=True, capture_output=True, text=True, timeout=timeout)
    return json.loads(done.stdout.splitlines()[-1])
