"""Fixtures for the cache tests: repo root importable, TF quiet, a private cache dir."""
from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import pytest  # noqa: E402



@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """janus.cache writes to a fresh directory for this test (flushed and reset after)."""
    import janus
    path = tmp_path / "cache"
    janus.cache.flush()
    monkeypatch.setattr(janus.cache.settings, "directory", str(path))
    monkeypatch.setattr(janus.cache.settings, "enabled", True)
    monkeypatch.setattr(janus.cache.settings, "warm_start", True)
    monkeypatch.setattr(janus.cache.settings, "warm_start_same_process", True)
    yield path
    janus.cache.flush()
