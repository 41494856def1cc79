"""The quick part of the regression record (`scripts/regression_record.py --quick`) against its committed scores.

The scores were recorded before the solver redesign and re-recorded once, for issue 17's deliberate changes (the full
solver's order-free reference tie-breaking and 64 refinement anchors for new points, the blockwise solver's canonical
order), with `python scripts/regression_record.py --quick --record-scores tests/data/regression_scores_quick.json`; a
change that alters results on purpose re-records them so and says so. The full record (every solver, GP seeds 0-2 at N = 50 and
1000, digits at M = 2 and 10) is compared with `--compare FILE`."""
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import regression_record  # noqa: E402


def test_quick_record_scores_are_unchanged():
    recorded = json.loads((ROOT / "tests/data/regression_scores_quick.json").read_text())
    current = {name: score for name, (_, score) in regression_record.run(quick=True, verbose=False).items()}
    assert current.keys() == recorded.keys()
    changed = {name: (recorded[name], current[name]) for name in recorded if abs(recorded[name] - current[name]) > 1e-6}
    assert not changed, changed
