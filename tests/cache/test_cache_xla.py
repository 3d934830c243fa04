"""The XLA decision of a specialization is recorded in the graph cache and shown by
`janus cache list` / `janus cache show`."""
import os

import numpy as np
import pytest
import tensorflow as tf

import janus
from janus.graphgen import xla, xla_trial
from tests.cli.test_cli_cache import assert_decision_shown, run_main


@pytest.fixture(autouse=True)
def tiny_graphs_count(monkeypatch):
    """XLA on (it is opt-in); these tests' graphs are tiny: XLA is tried on them all the
    same."""
    monkeypatch.setattr(janus.config, "xla", True)
    monkeypatch.setattr(xla, "MIN_GRAPH_SECONDS", 0.0)


def cell(w, h):
    for _ in range(3):
        h = tf.tanh(tf.matmul(h, w))
    return tf.reduce_sum(h)


def test_the_xla_decision_is_recorded_and_shown(cache_dir):
    jitted = janus.jit(cell)
    w = tf.constant(np.full((4, 4), 0.1, np.float32))
    spec = None
    for i in range(60):
        h = tf.ones([2, 4]) * i
        np.testing.assert_allclose(jitted(w, h).numpy(), cell(w, h).numpy(), rtol=1e-5)
        assert xla.compiler.wait_idle(120)
        if not jitted.specializations:
            continue  # still profiling
        spec = jitted.specializations[0]
        if spec.xla.startswith(("on", "off")):
            break
    assert spec.xla.startswith(("on", "off")), spec.xla
    janus.cache.flush()
    listed = run_main(["--cache-dir", str(cache_dir), "cache", "list"])
    assert listed.returncode == 0, listed
    decision = spec.xla.split(" (")[0]
    assert f"[xla {decision}]" in listed.stdout
    assert_decision_shown(cache_dir, jitted, "cell", "xla", spec.xla)


# -- a later process takes the recorded decision over (warm start: cache/warm.py) --------
# (in one process here: the cache_dir fixture lets a new JitFunction start warm from what
# this process recorded, as a new process would)

def update(w, h):
    for _ in range(3):
        h = tf.tanh(tf.matmul(h, w))
    w.assign(w * 0.999)
    return tf.reduce_sum(h)


def _variables():
    return [tf.Variable(np.full((4, 4), 0.1, np.float32)) for _ in range(2)]


def _call(jitted, w, w_eager, i):
    """One call of `jitted` next to plain `update`, results and variables compared."""
    h = tf.ones([2, 4]) * (i % 5)
    np.testing.assert_allclose(jitted(w, h).numpy(), update(w_eager, h).numpy(), rtol=1e-5)
    np.testing.assert_allclose(w.numpy(), w_eager.numpy(), rtol=1e-5)
    assert xla.compiler.wait_idle(120)


@pytest.fixture
def counted(monkeypatch):
    """XLA compilations submitted and trials started, counted; no re-measurement of a kept
    variant (xla_trial's watch is tested in tests/graphgen/test_xla.py)."""
    counts = {"compiles": 0, "trials": 0}
    submit, trial_init = xla.compiler.submit, xla_trial.XlaTrial.__init__

    def counting_submit(*args, **kwargs):
        counts["compiles"] += 1
        return submit(*args, **kwargs)

    def counting_init(self, *args, **kwargs):
        counts["trials"] += 1
        trial_init(self, *args, **kwargs)
    monkeypatch.setattr(xla.compiler, "submit", counting_submit)
    monkeypatch.setattr(xla_trial.XlaTrial, "__init__", counting_init)
    monkeypatch.setattr(xla_trial, "MAX_RECHECKS", 0)
    return counts


def _record(monkeypatch, counted, keep: bool):
    """A first JitFunction measures XLA (the verdict forced to `keep`); the cache records
    the decision. The first one did compile and measure."""
    text = "on (forced)" if keep else "off (forced)"
    with monkeypatch.context() as m:
        m.setattr(xla_trial, "verdict", lambda x, p: (keep, 2.0 if keep else 0.5, text))
        first, (w, w_eager) = janus.jit(update), _variables()
        for i in range(40):
            _call(first, w, w_eager, i)
            if first.specializations and first.specializations[0].xla == text:
                break
    assert first.specializations[0].xla == text
    assert counted == {"compiles": 1, "trials": 1}
    janus.cache.flush()
    counted.update(compiles=0, trials=0)


@pytest.mark.parametrize("graph", ["loaded", "regenerated"])
def test_a_recorded_off_is_not_compiled_or_measured_again(cache_dir, monkeypatch, counted,
                                                          graph):
    _record(monkeypatch, counted, keep=False)
    second, (w, w_eager) = janus.jit(update), _variables()
    assert janus.cache.warm_start(second)
    if graph == "regenerated":
        second._warm_graphs = []   # the same specialization, traced again (same record id)
    for i in range(12):
        _call(second, w, w_eager, i)
    [spec] = second.specializations
    assert (spec.portable is not None) == (graph == "loaded")
    assert janus.stats(second).generations == (graph == "regenerated")
    assert spec.xla == f"off (forced; {xla_trial.RECORDED})" and spec.accelerated is None
    assert counted == {"compiles": 0, "trials": 0}


@pytest.mark.parametrize("graph", ["loaded", "regenerated"])
def test_a_recorded_on_is_compiled_and_kept_without_a_trial(cache_dir, monkeypatch, counted,
                                                            graph):
    _record(monkeypatch, counted, keep=True)
    second, (w, w_eager) = janus.jit(update), _variables()
    assert janus.cache.warm_start(second)
    if graph == "regenerated":
        second._warm_graphs = []
    for i in range(12):
        _call(second, w, w_eager, i)   # (the XLA variant serves the later calls)
    [spec] = second.specializations
    assert (spec.portable is not None) == (graph == "loaded")
    assert spec.xla == f"on (forced; {xla_trial.RECORDED})" and spec.accelerated is not None
    assert spec.trial is None
    assert counted == {"compiles": 1, "trials": 0}
    janus.cache.flush()   # taken over, nothing new: the record keeps the first decision
    [state] = janus.cache.store().read_warm(os.path.basename(janus.cache.location(second))) \
        .values()
    assert [d["text"] for d in state["xla"].values()] == ["on (forced)"]


def test_a_loaded_graph_without_a_decision_is_measured_on_real_calls(cache_dir, counted):
    first, (w, w_eager) = janus.jit(update, xla=False), _variables()
    for i in range(6):
        _call(first, w, w_eager, i)
    janus.cache.flush()
    second, (w, w_eager) = janus.jit(update), _variables()
    assert janus.cache.warm_start(second)
    for i in range(60):
        _call(second, w, w_eager, i)   # the XLA variant of the loaded graph compiles on
        if second.specializations[0].xla.startswith(("on", "off")):  # copies of `w`
            break
    [spec] = second.specializations
    assert spec.portable is not None and janus.stats(second).generations == 0
    assert spec.xla.startswith(("on", "off")) and xla_trial.RECORDED not in spec.xla
    assert counted == {"compiles": 1, "trials": 1}
