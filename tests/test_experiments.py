"""The experiment runners: resumable cache, failure recording, summaries."""
import json

import numpy as np

from ikd import baselines
from ikd.experiments import run_trials, summarize, synthetic_trial


def test_cache_resumes_and_skips_a_cut_off_line(tmp_path):
    calls = []

    def double(x):
        calls.append(x)
        return [{"y": 2 * x}]
    run_trials("demo", [{"x": 1}, {"x": 2}], double, tmp_path, verbose=False)
    cache = tmp_path / "cache" / "demo.jsonl"
    cache.write_text(cache.read_text() + '{"key": "cut off in the mid')  # an interrupted write
    rows = run_trials("demo", [{"x": 1}, {"x": 2}, {"x": 3}], double, tmp_path, verbose=False)
    assert calls == [1, 2, 3]
    assert rows == [{"x": 1, "y": 2}, {"x": 2, "y": 4}, {"x": 3, "y": 6}]
    assert json.loads(cache.read_text().splitlines()[-1])["rows"] == [{"y": 6}]


def test_a_failing_method_is_recorded_not_dropped(monkeypatch):
    def broken(X, n_components, random_state, **options): raise np.linalg.LinAlgError("singular neighbourhood")
    monkeypatch.setitem(baselines.METHODS, "broken", baselines.Method("broken", broken, "a broken method", "#000080", "$b$"))
    rows = synthetic_trial("gp", 20, seed=0, methods=["broken", "pca"], n_points=60)
    assert np.isnan(rows[0]["r2"]) and "singular neighbourhood" in rows[0]["error"]
    assert np.isfinite(rows[1]["r2"]) and rows[1]["error"] == ""


def test_summaries_average_over_trials_and_leave_out_failures():
    rows = [{"m": "a", "r2": 0.5}, {"m": "a", "r2": float("nan")}, {"m": "a", "r2": 0.7}, {"m": "b", "r2": float("nan")}]
    summary = summarize(rows, ["m"], ["r2"])
    assert abs(summary[0]["r2"] - 0.6) < 1e-12 and summary[0]["trials"] == 3
    assert np.isnan(summary[1]["r2"]) and summary[1]["trials"] == 1
