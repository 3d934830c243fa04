"""Graphs a split function's segments make and do not reuse are bounded (F242,
janus/fallback/churn.py): two in a row per segment, `max_specializations` per function
over all its splits, and a kept segment regenerates only on credit.

Each test compares janus with plain Python call by call (tests/differential.py), then
counts the traces.
"""
import warnings

import numpy as np
import tensorflow as tf

import janus
from janus.fallback import churn, segmented, trial
from tests.differential import assert_same

SCALES = [0.99 ** (i + 1) for i in range(20)]


def _state():
    return {"w": tf.Variable([[0.5, -0.25], [0.125, 1.0]]),
            "rng": np.random.RandomState(0), "log": {}}


def drawn_step(s, x):
    """A host draw (a break), a stretch reading the whole dict `s` (its guards see the
    log growing new keys: a new graph per call), and the log written after it."""
    t = int(s["rng"].randint(0, 20))
    a = SCALES[t]
    y = tf.matmul(a * x, s["w"])
    s["w"].assign_sub(0.01 * tf.reduce_mean(y) * tf.ones([2, 2]))
    loss = tf.reduce_sum(tf.tanh(y))
    s["log"].setdefault(t, []).append(float(loss))
    return loss


def _calls(n):
    return [(tf.constant(np.random.RandomState(i).randn(4, 2), tf.float32),)
            for i in range(n)]


def _segment_graphs(jitted) -> int:
    return sum(s.jit.stats.generations for s in jitted.segmented.all_segments())


def test_f242_a_segment_whose_graphs_are_not_reused_makes_no_third(any_size):
    jitted = janus.jit(drawn_step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(drawn_step, _calls(16), make_state=_state, jitted=jitted)
    churned = [s for s in jitted.segmented.all_segments() if s.jit.stats.generations]
    assert churned and all(s.jit.stats.generations <= churn.UNREUSED_IN_A_ROW
                           for s in churned), [s.describe() for s in churned]
    assert any("ran only the calls that made them" in s.why_eager for s in churned)
    assert "ran only the calls that made them" in jitted.explain()


def test_f242_a_function_s_segments_share_one_limit_of_unreused_graphs(any_size,
                                                                       monkeypatch):
    # (the limit is max_specializations; lowered for the split only: the segments' jits
    # keep theirs)
    monkeypatch.setattr(segmented.Segmented, "_max_unreused", lambda self: 1)
    jitted = janus.jit(drawn_step)
    assert_same(drawn_step, _calls(16), make_state=_state, jitted=jitted)
    split = jitted.segmented
    assert split.budget.spent and _segment_graphs(jitted) <= 2, \
        [s.describe() for s in split.all_segments()]
    assert "split churn" in jitted._warned  # (said once with a JanusWarning)
    assert "no more segment graphs" in jitted.explain()
    assert not [s for s in split.segments if s.state in ("measuring", "graph")]


def kept_step(s, x):
    """A break (`.numpy()`) between segments whose input grows a new shape at call 20."""
    h = tf.tanh(tf.matmul(x, s["w"]))
    m = float(tf.reduce_sum(h).numpy())
    y = tf.matmul(h, s["w"]) * 2.0 + tf.reduce_mean(h) * m
    return tf.reduce_sum(tf.sin(y))


def _grown(n, at=20):
    return [(tf.constant(np.ones((2 if i < at else 3, 2)) * (i + 1) / n, tf.float32),)
            for i in range(n)]


def _kept_state():
    return {"w": tf.Variable([[0.5, -0.25], [0.125, 1.0]])}


def _injected(monkeypatch, graph_ms: float, plain_ms: float):
    real = trial.Segment._timed
    times = {"graph": graph_ms * 1e-3, "plain": plain_ms * 1e-3}
    monkeypatch.setattr(trial.Segment, "_timed",
                        lambda self, kind, seconds: real(self, kind, times[kind]))


def test_f242_a_kept_segment_regenerates_only_once_its_savings_pay(any_size, monkeypatch):
    monkeypatch.setattr(trial, "PAYS", 0.9)
    _injected(monkeypatch, graph_ms=1.0, plain_ms=1.2)  # (0.2 ms a call: a trace is more)
    jitted = janus.jit(kept_step)
    assert_same(kept_step, _grown(30), make_state=_kept_state, jitted=jitted)
    kept = [s for s in jitted.segmented.all_segments() if s.state == "kept"]
    assert kept and all(s.credit.refused > 0 for s in kept), \
        [s.describe() for s in jitted.segmented.all_segments()]
    made = [s.jit.stats.generations for s in kept]
    # rent or buy: once the calls run in Python would have saved a trace, it makes one
    for s in kept:
        s.credit.generation = 0.0
    assert_same(kept_step, _grown(4, at=0), make_state=_kept_state, jitted=jitted)
    assert [s.jit.stats.generations for s in kept] > made


def test_f242_a_kept_segment_that_pays_regenerates_at_once(any_size, monkeypatch):
    monkeypatch.setattr(trial, "PAYS", 0.9)
    _injected(monkeypatch, graph_ms=1.0, plain_ms=5000.0)  # (a trace repaid in a call)
    jitted = janus.jit(kept_step)
    stats = assert_same(kept_step, _grown(30), make_state=_kept_state, jitted=jitted)
    kept = [s for s in jitted.segmented.all_segments() if s.state == "kept"]
    assert kept and all(s.credit.refused == 0 for s in kept)
    assert stats.segment_graph_calls >= 10
