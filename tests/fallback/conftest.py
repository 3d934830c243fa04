"""Makes `tests.differential` importable however pytest is started; the segment knobs
tests pin (`any_size`)."""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import pytest  # noqa: E402


@pytest.fixture
def any_size(monkeypatch):
    """Every stretch is outlined, traced and kept as a graph whatever its size and time,
    so the graph path is what a test compares (the choice, janus/fallback/trial.py, is
    tested on its own); nor is the split tried as a whole (fallback/whole_trial.py)."""
    from janus.fallback import whole_trial, trial
    monkeypatch.setattr(whole_trial, "MAX_TRIALS", 0)
    from janus.transform import segments
    monkeypatch.setattr(segments, "TINY_OPS", 0)
    monkeypatch.setattr(trial, "MIN_PLAIN_S", 0.0)
    monkeypatch.setattr(trial, "PAYS", float("inf"))
