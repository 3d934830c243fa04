"""Every test session gets its own empty graph cache: a warm start from an earlier run
would (correctly) skip profiling and change the counters tests assert on. And janus's
own errors fail the tests (JanusInternalError) instead of silently running plainly; and
tiny functions stay graphs (no plain trial). `any_size` pins the segment knobs. And each test counts its jitted functions
afresh (janus/remade.py: one function jitted by many tests is not a loop making them)."""
import gc
import os
import shutil
import tempfile

import pytest

_cache_dir = tempfile.mkdtemp(prefix="janus-test-cache-")
os.environ["JANUS_CACHE_DIR"] = _cache_dir
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("JANUS_RAISE_INTERNAL", "1")  # also for subprocesses tests start
# Tests assert on the graph calls of tiny functions, whose graphs would be measured slower
# than plain Python and run plainly (graphgen/plain_trial.py): off, except in the tests of
# that decision (tests/graphgen/test_plain_trial*.py turn it on).
os.environ.setdefault("JANUS_PLAIN_TRIAL", "0")


@pytest.fixture(autouse=True)
def _jitted_functions_counted_afresh():
    from janus import remade
    remade.forget()
    yield


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


@pytest.fixture
def no_collector():
    """The garbage collector off during the test: an object kept in a reference cycle
    stays alive every time, not only when no collection happens to run."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


def pytest_collection_modifyitems(config, items):
    from tests import shards
    shards.select(config, items)


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_cache_dir, ignore_errors=True)
