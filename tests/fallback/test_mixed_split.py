"""A split function's Python parts run mixed only while mixing pays: its own segments'
graphs run either way, only a callee's graph (or an optimizer update) run through the
mixed runtime counts (janus/fallback/mixed.py, `MixedRunner`)."""
import numpy as np
import pytest
import tensorflow as tf

import janus
from janus.fallback import mixed


def dense(w, x):
    return tf.tanh(tf.matmul(x, w))


def _gae_like(w, x, log):
    """A segment, a break, then a Python loop over host values (PPO's GAE loop)."""
    y = tf.tanh(tf.matmul(x, w)) * 2.0 + 1.0
    values = y.numpy()[:, 0]
    acc, out = 0.0, np.zeros_like(values)
    for t in reversed(range(len(values))):
        acc = values[t] + 0.9 * acc
        out[t] = acc
    log.append(acc)
    return y * acc


def _calls_a_graph_in_python(w, x, log):
    """The Python part (a host draw's line) calls a user function that runs as a graph."""
    y = tf.tanh(tf.matmul(x, w)) * 2.0 + 1.0
    total = float(y.numpy().sum())
    z = dense(w, x) * np.float32(np.random.default_rng(len(log)).random())
    log.append(total)
    return z + total


def _run_both(fn, calls):
    w = tf.Variable(np.full((3, 2), 0.3, np.float32))
    jitted = janus.jit(fn)
    log_plain, log_janus = [], []
    for i in range(calls):
        x = tf.constant(np.full((4, 3), (-1.0) ** i * (i + 1) / 7, np.float32))
        np.testing.assert_allclose(jitted(w, x, log_janus).numpy(),
                                   fn(w, x, log_plain).numpy(), rtol=1e-5)
        assert log_janus == log_plain
    return jitted


def test_python_glue_between_segments_runs_as_it_is_after_a_few_calls(any_size):
    jitted = _run_both(_gae_like, 4 * mixed.PLAIN_AFTER)
    split = jitted.segmented
    assert split and janus.stats(jitted).segment_graph_calls > 0
    assert split.runner.plain and "runs as it is" in janus.explain(jitted)


def test_python_part_calling_a_graph_keeps_running_mixed(any_size):
    jitted = _run_both(_calls_a_graph_in_python, 2 * mixed.PLAIN_AFTER)
    split = jitted.segmented
    assert split and not split.runner.plain and split.runner.pays
    assert mixed._callees[dense].stats.graph_calls >= 1


def _boom(*args, **kwargs):
    raise RuntimeError("injected")


def test_a_failure_of_a_segments_bookkeeping_is_janus_s_not_the_users(any_size, monkeypatch):
    """A split function running as it is has no mixed runtime around it: a segment's own
    bookkeeping failing (injected) leaves the call's result plain Python's, runs the
    segment eagerly from then on, and is recorded as an internal error."""
    from janus.fallback import trial
    monkeypatch.setattr(janus.config, "raise_internal_errors", False)
    monkeypatch.setattr(trial, "_structure", _boom)  # after its first (measuring) run
    with pytest.warns(janus.JanusWarning, match="internal error"):
        jitted = _run_both(_gae_like, 6)
    segs = jitted.segmented.all_segments()
    assert any("janus internal error: RuntimeError" in s.why_eager for s in segs)
    assert all(s.state == "eager" for s in segs)


def test_a_bookkeeping_failure_before_the_segment_runs_runs_it_plainly(any_size, monkeypatch):
    from janus.fallback import trial
    monkeypatch.setattr(janus.config, "raise_internal_errors", False)
    monkeypatch.setattr(trial.Segment, "_kind_of_call", _boom)
    with pytest.warns(janus.JanusWarning, match="internal error"):
        _run_both(_gae_like, 4)


def test_with_the_switch_a_bookkeeping_failure_raises(any_size, monkeypatch):
    from janus.fallback import trial
    monkeypatch.setattr(janus.config, "raise_internal_errors", True)
    monkeypatch.setattr(trial, "_structure", _boom)
    with pytest.raises(janus.JanusInternalError, match="segment's trial"):
        _run_both(_gae_like, 2)
