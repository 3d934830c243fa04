"""Programs the fuzzer once found diverging (tests/fuzz/regressions/*.py), run again.

A case whose janus bug is not fixed yet carries `XFAIL = "<finding id>: ..."`: the
test is a strict xfail, so it turns red (XPASS) the moment the fix lands — then set
`XFAIL = None` in the case file.
"""
import glob
import os

import pytest

from tests.fuzz import cases, runner

_FILES = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "regressions", "*.py")))


def _param(path):
    _, meta = cases.read(path)
    marks = [pytest.mark.xfail(strict=True, reason=meta["XFAIL"])] if meta.get("XFAIL") else []
    if meta.get("SLOW"):  # (over 10 s: `./scripts/test.sh -m slow`)
        marks.append(pytest.mark.slow)
    return pytest.param(path, id=os.path.basename(path)[:-3], marks=marks)


@pytest.mark.parametrize("path", [_param(p) for p in _FILES])
def test_regression_case(path):
    source, meta = cases.read(path)
    result = runner.run(source, meta["CALLS"], timeout=meta.get("TIMEOUT", 60))
    assert result.divergence is None, f"{meta['FINDING']}: {result.divergence}"
    assert result.calls == len(meta["CALLS"])


def test_f2_identical_functions_in_two_modules_keep_their_own_globals():
    import janus
    import tensorflow as tf

    source = ("SCALE = {}\n"
              "def helper(x):\n    return x * SCALE\n"
              "def f(x):\n    return helper(x) + 1.0\n")
    first = runner.load(source.format(2.0), "f2a")
    second = runner.load(source.format(3.0), "f2b")
    try:
        x = tf.constant([1.0])
        with runner.fuzz_settings():
            for module in (first, second):
                jitted = janus.jit(module.f)
                for _ in range(4):
                    assert jitted(x).numpy().tolist() == module.f(x).numpy().tolist()
    finally:
        runner.unload(first)
        runner.unload(second)


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_f139_graphs_no_call_reuses_stop_being_generated(monkeypatch):
    """F139: the attributes a loop reads changed on every call and each call needed a
    new graph (22 generations in 30 calls, 16 s); janus stops generating once
    `max_specializations` graphs served fewer than two calls each."""
    monkeypatch.setenv("JANUS_FUZZ_PLAIN", "1")  # (as found: graph and plain runs alternate)
    path = os.path.join(os.path.dirname(__file__), "regressions",
                        "f139_graphs_generated_and_not_reused_seed470008.py")
    source, meta = cases.read(path)
    result = runner.run(source, meta["CALLS"], timeout=120)
    assert result.divergence is None, result.divergence
    assert result.stats["generations"] <= 8, result.stats
