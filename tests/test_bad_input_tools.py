"""Bad input to the tools around the estimators (issue 33): `python -m ikd` run as a user runs it, in its own process.
Each refusal is one line on stderr and exit status 2, and nothing is written."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPOSITORY = Path(__file__).resolve().parents[1]


def command_line(*argv, folder):
    "Run `python -m ikd` in `folder` with this checkout's ikd; its exit status and stderr."
    environment = {**os.environ, "PYTHONPATH": str(REPOSITORY), "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-m", "ikd", *map(str, argv)], cwd=folder, env=environment,
                          capture_output=True, text=True, timeout=300)
    return done.returncode, done.stderr


@pytest.mark.parametrize("outputs", [
    ["--save-embedding", "d.npy", "--no-baseline"],  # overwrote the data and exited 0
    ["--save-embedding", "./sub/../d.npy", "--no-baseline"],
    ["--output", "d.npy"],
])
def test_an_output_that_is_the_input_is_refused(tmp_path, outputs):
    data = np.random.default_rng(0).normal(size=(40, 5))
    np.save(tmp_path / "d.npy", data)
    (tmp_path / "sub").mkdir()
    status, stderr = command_line("d.npy", *outputs, folder=tmp_path)
    assert status == 2 and len(stderr.strip().splitlines()) == 1, stderr
    assert "is the same file as the data file" in stderr
    np.testing.assert_array_equal(np.load(tmp_path / "d.npy"), data)
    assert not (tmp_path / "ikd_embedding.png").exists()


def test_labels_too_few_to_score_are_refused_before_the_fit(tmp_path):
    "6 points in classes of 5 and 1 printed '5-NN accuracy nan' after 27 lines of tracebacks, and exited 0."
    np.save(tmp_path / "d.npy", np.random.default_rng(0).normal(size=(6, 5)))
    np.save(tmp_path / "y.npy", np.array([0, 0, 0, 0, 0, 1]))
    status, stderr = command_line("d.npy", "--labels", "y.npy", folder=tmp_path)
    assert status == 2 and len(stderr.strip().splitlines()) == 1, stderr
    assert "class 1 has 1 point(s)" in stderr and "at least 5 in every class" in stderr
    assert not (tmp_path / "ikd_embedding.png").exists()
