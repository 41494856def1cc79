"""Hypothesis profiles for the property tests, and a compare cache of the test run's own.

By default the `ci` profile is loaded: examples are derandomized (each test draws the same ones on every machine and
every run), no example database is read or written, and a failure prints the `@reproduce_failure` blob that replays it.
So `bash scripts/test` on a fresh clone runs exactly the examples CI ran, and a failure seen once is seen every time.
A failure hypothesis has ever found is pinned with `@example(...)` on its test, so the derandomized run keeps checking it.

To look further, run the property tests with the `explore` profile: fresh random examples on each run, ten times as many
(for tests that set their count with `examples(n)`), failures kept in `.hypothesis/` and tried first next time:

    HYPOTHESIS_PROFILE=explore .venv/bin/python -m pytest -q -p no:cacheprovider tests/test_properties.py tests/test_landmarks.py

A failure found so becomes an `@example(...)` on the test (with the fix), and the default run then checks it for good.
"""
import atexit
import os
import shutil
import tempfile

from hypothesis import HealthCheck, settings

DEFAULT = settings.get_profile("default")
settings.register_profile("ci", DEFAULT, max_examples=100, derandomize=True, database=None, print_blob=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])  # timing checks would make the run depend on load
settings.register_profile("explore", DEFAULT, max_examples=1000, derandomize=False, print_blob=True, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# `ikd.compare` memoises maps on disk: a test run (each pytest-xdist worker) gets an empty cache of its own, so that no
# test reads a map an earlier run left in the user's cache, and two workers never write one file at once
os.environ["IKD_CACHE"] = tempfile.mkdtemp(prefix="ikd_test_cache_")
atexit.register(shutil.rmtree, os.environ["IKD_CACHE"], ignore_errors=True)
