"""A segment holding a rarely taken branch with a print keeps a graph per outcome, as a
whole function does (zoo10-F62, F326): `s.i += 1; if s.i % 5 == 1: print(...)` before or
after a graph break. Its in-graph guard fails at each change of outcome, its tf.cond
cannot be made (a print in the branch), so each outcome gets a graph of its own; those
misses are no reason to drop the segment (janus/fallback/trial.py `MISS_SHARE`), nor is
the graph of the outcome seen first lost to the failed generalization
(janus/outcomes.py parks it).

Each test compares janus with plain Python call by call (tests/differential.py).
"""
import numpy as np
import tensorflow as tf

import janus
from janus.fallback import trial
from tests.differential import assert_same


class _State:
    def __init__(self):
        self.i = 0
        self.w = tf.Variable([[0.5, -0.25], [0.125, 1.0]])
        self.record = {}


def print_first(s, x):
    """The rare branch in the stretch before the break (probe c06)."""
    s.i += 1
    if s.i % 5 == 1:
        print("starting block", s.i // 5)
    y = tf.tanh(tf.matmul(x, s.w))
    s.w.assign_sub(0.01 * tf.reduce_mean(y) * tf.ones([2, 2]))
    s.record[s.i] = float(np.sum(y.numpy()))  # (the break: only stored, a scalar's
    # read would stay in the graph, F456)
    return y


def print_after(s, x):
    """The rare branch in the stretch after the break."""
    y = tf.tanh(tf.matmul(x, s.w))
    s.record[s.i] = float(np.sum(y.numpy()))  # (the break: only stored, a scalar's
    # read would stay in the graph, F456)
    s.i += 1
    if s.i % 5 == 0:
        print("done block", s.i // 5, "at")
    s.w.assign_sub(0.01 * tf.reduce_mean(y) * tf.ones([2, 2]))
    return tf.reduce_sum(y * 2.0)


def _calls(n):
    return [(tf.constant(np.random.RandomState(i).randn(3, 2), tf.float32),)
            for i in range(n)]


def _pays(monkeypatch):
    """Every segment graph measured as paying well (a trace repaid in a call): what is
    tested is how its misses are judged, not the timing."""
    real = trial.Segment._timed
    times = {"graph": 1e-3, "plain": 5.0}
    monkeypatch.setattr(trial.Segment, "_timed",
                        lambda self, kind, seconds: real(self, kind, times[kind]))


def _check(fn, any_size, monkeypatch):
    _pays(monkeypatch)
    jitted = janus.jit(fn)
    stats = assert_same(fn, _calls(45), make_state=_State, jitted=jitted)
    segs = jitted.segmented.all_segments()
    flipping = [s for s in segs if any("s.i % 5" in k for k in s.jit.stats.guard_failures)]
    assert flipping and all(s.state == "kept" for s in flipping), \
        [s.describe() for s in segs]
    # the graph per outcome serves the steady state: well over half the split calls
    assert stats.segment_graph_calls >= 25, (stats, [s.describe() for s in segs])
    return flipping


def test_f326_a_rare_print_before_a_break_keeps_its_segment_a_graph(any_size, monkeypatch):
    _check(print_first, any_size, monkeypatch)


def test_f326_a_rare_print_after_a_break_keeps_its_segment_a_graph(any_size, monkeypatch):
    _check(print_after, any_size, monkeypatch)
