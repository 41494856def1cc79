"""The known-answer grid (issue 33, item 16; `benchmarks/known_answers.py`, which defines the cells, the scores and the
thresholds with their reason): every combination of covariance x solver x landmarks must recover a known GP latent,
place held-out rows and decode its embedding. The data here are the benchmark's at a smaller size (T = 300 fitted,
60 held out, N = 60), about 35 s of CPU for the whole grid (40 cells)."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import known_answers  # noqa: E402


@pytest.fixture(scope="module")
def data():
    return known_answers.make_data(n_train=300, n_test=60, n_features=60, seed=0)


@pytest.mark.parametrize("cell", known_answers.CELLS, ids="-".join)
def test_cell_reaches_the_known_answer(data, cell):
    result = known_answers.evaluate(cell, data)
    missed = known_answers.failures(result)
    assert not missed, f"{'/'.join(cell)}: " + "; ".join(missed)
