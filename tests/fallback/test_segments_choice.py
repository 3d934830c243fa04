"""Splitting cheaply: breaks known from the source before any trace, no trace where a graph
cannot pay, and the Python between segments as fast as without segments.

Every test compares janus with plain Python call by call (tests/differential.py) and then
checks what janus did (or did not) trace.
"""
import time

import numpy as np
import pytest
import tensorflow as tf

import janus
from janus.fallback import mixed, whole_trial, trial
from janus.transform import segments
from tests.differential import assert_same


class Buffer:
    def __init__(self):
        self.obs = np.arange(12, dtype=np.float32).reshape(6, 2) / 10.0
        self.w = tf.Variable([[0.5], [-0.25]])
        self.v = tf.Variable(0.5)
        self.rng = np.random.default_rng(3)
        self.hist = []


def _line(fn, text: str) -> int:
    """The line of `fn`'s source holding `text`."""
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def _traces(jitted) -> list:
    """(generations, failed generations) of every segment the function was ever split into."""
    return [(s.jit.stats.generations, s.jit.stats.generation_failures)
            for s in jitted.segmented.all_segments()]


def numpy_values(b, k):
    """A local holding numpy values, its methods, a write into it, an argument's RNG."""
    idx = b.rng.permutation(6)[:4]
    pred = tf.matmul(b.obs[idx], b.w)[:, 0]
    host = pred.numpy()
    host = (host - host.max()) / (host.std() + 1e-3)  # (a graph computes `.mean()`)
    host[0] = host[0] + float(k)
    loss = tf.reduce_sum(tf.square(pred - host)) + tf.reduce_sum(tf.tanh(pred))
    return loss * 2.0 + tf.reduce_mean(b.w)


def test_breaks_known_from_the_source_are_split_before_any_trace(any_size):
    jitted = janus.jit(numpy_values, segments=True)
    stats = assert_same(numpy_values, [(k,) for k in range(12)], make_state=Buffer,
                        jitted=jitted)
    assert stats.segment_graph_calls > 0 and stats.profile_calls == 0
    lines = {_line(numpy_values, t) for t in ("permutation", ".numpy()", ".max()", "host[0] =")}
    assert lines <= set(jitted.segmented.breaks)
    assert jitted.segmented.splits == 0  # split once, at the first call
    assert all(failed == 0 for _, failed in _traces(jitted))


def update_loop(b, limit):
    """Per-iteration tape + update, leaving the loop on a tensor test."""
    order = b.rng.permutation(6)
    for start in range(0, 6, 2):
        idx = order[start:start + 2]
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.matmul(b.obs[idx], b.w)) * b.v
        grads = tape.gradient(loss, [b.w, b.v])
        b.w.assign_sub(0.1 * grads[0])
        b.v.assign_sub(0.1 * grads[1])
        b.hist.append(start)
        if loss > limit:
            break
    return tf.reduce_sum(b.w) + b.v


def test_a_loop_updating_from_a_tape_and_a_leaving_if_are_opened_up_front(any_size):
    jitted = janus.jit(update_loop, segments=True)
    calls = [(1.0,), (0.1,), (5.0,), (0.2,), (1.0,), (0.05,), (3.0,), (0.3,)] * 2
    stats = assert_same(update_loop, calls, make_state=Buffer, jitted=jitted)
    assert stats.segment_graph_calls > 0
    assert {_line(update_loop, "for start"), _line(update_loop, "if loss")} <= \
        jitted.segmented.opened
    assert all(failed == 0 for _, failed in _traces(jitted))  # no trace failed to find it


def host_float(b, k):
    h = tf.reduce_sum(tf.matmul(b.obs, b.w)) * float(k)
    b.hist.append(round(float(h), 3) + 0.5)  # found by the profiler, not from the source
    return h * tf.reduce_max(b.w) + tf.reduce_sum(tf.exp(b.w)) + tf.reduce_min(b.w)


def test_a_break_the_profiler_refuses_becomes_a_break_not_a_whole_eager_stretch(any_size):
    jitted = janus.jit(host_float, segments=True)
    stats = assert_same(host_float, [(k,) for k in range(12)], make_state=Buffer,
                        jitted=jitted)
    assert _line(host_float, "b.hist.append") in jitted.segmented.breaks
    assert stats.segment_graph_calls > 0


def small(b, k):
    h = tf.reduce_sum(b.w) * float(k)
    host = float(h.numpy())
    return h + host


def test_tiny_stretches_stay_python():
    from janus import source
    node, _ = source.parse_function(small)
    split = segments.split(node, set(segments.static_breaks(node, globals())), globals())
    assert split.stretches == []
    stats = assert_same(small, [(k,) for k in range(4)], make_state=Buffer, segments=True)
    assert stats.segmented_calls == 4


def test_a_stretch_too_short_to_pay_is_never_traced_and_runs_inline(monkeypatch):
    monkeypatch.setattr(trial, "MIN_PLAIN_S", 10.0)  # every plain run is "too short"
    jitted = janus.jit(numpy_values, segments=True)
    assert_same(numpy_values, [(k,) for k in range(6)], make_state=Buffer, jitted=jitted)
    split = jitted.segmented
    assert split.segments == [] and split.all_segments()  # all inline now
    assert all(s.jit.stats.profile_calls == 0 and s.jit.stats.generations == 0
               for s in split.all_segments())
    assert "too short to pay" in jitted.explain()


def episode_loss(b, steps):
    rewards = []
    logits = []
    for t in range(steps):
        logits.append(tf.reduce_sum(b.w) * float(t + 1))
        rewards.append(float(b.rng.normal()))
    total = tf.reduce_sum(tf.stack(logits) * tf.constant(rewards)) + tf.reduce_mean(b.w)
    total = total * tf.reduce_max(b.w) + tf.reduce_min(b.w) * b.v
    return total


def test_inputs_changing_structure_are_not_traced(monkeypatch):
    monkeypatch.setattr(trial, "MIN_PLAIN_S", 0.0)
    monkeypatch.setattr(segments, "TINY_OPS", 0)
    jitted = janus.jit(episode_loss, segments=True)
    assert_same(episode_loss, [(k % 4 + 1,) for k in range(8)], make_state=Buffer,
                jitted=jitted)
    split = jitted.segmented
    changing = [s for s in split.all_segments() if "change structure" in s.why_eager]
    assert changing and all(s.jit.stats.generations == 0 for s in changing)


def helper(w, x):
    return tf.tanh(tf.matmul(x, w)) * 2.0


def python_calls_helper(b, k):
    x = tf.convert_to_tensor(b.obs[:2] * 1.0)
    h = helper(b.w, x) + tf.reduce_sum(b.w) * tf.reduce_mean(x) + tf.square(b.v)
    # a break calling user code (after host work: it stays in the break, host_reads.py)
    scale = float(np.sum(b.obs[:1])) + float(np.sum(helper(b.w, x).numpy()))
    return h * scale + tf.reduce_sum(tf.exp(h)) * tf.reduce_mean(tf.sin(h)) + float(k)


def test_python_between_segments_runs_callees_as_graphs(any_size):
    mixed._callees.pop(helper, None)
    stats = assert_same(python_calls_helper, [(k,) for k in range(12)], make_state=Buffer,
                        segments=True)
    assert stats.segment_graph_calls > 0
    assert mixed._callees[helper].stats.graph_calls > 0  # the break's call of helper


def refused(x):
    return tf.reduce_sum(x) * (2.0 + time.time() * 0.0)  # (a clock: refused)


def calls_refused(x, k):
    y = tf.reduce_sum(tf.square(x)) * float(k)
    z = refused(x) + 1.0
    return y * z + tf.reduce_mean(x)


def test_a_callees_refusal_is_located_at_the_calling_line_and_not_traced_again():
    """(Before F485 the callee's refusal named no line of `calls_refused`: its split ran
    the whole body inline; now the profile locates it at the line calling `refused`.)"""
    import inspect
    lines, first = inspect.getsourcelines(calls_refused)
    call = first + next(i for i, s in enumerate(lines) if "refused(x)" in s)
    jitted = janus.jit(calls_refused, segments=True)
    stats = assert_same(calls_refused, [(tf.constant([1.0, 2.0 + k]), k) for k in range(6)],
                        jitted=jitted)
    assert stats.segmented_calls > 0
    assert all(failed == 0 for _, failed in _traces(jitted))
    assert list(jitted.segmented.breaks) == [call], jitted.explain()


def dead_branch_numpy(x, debug):
    y = tf.reduce_sum(x) * 2.0
    if debug:
        print("y is", y.numpy())
    return y + tf.reduce_max(x) if not debug else y


def test_a_break_that_may_not_run_does_not_stop_a_whole_graph():
    stats = assert_same(dead_branch_numpy, [(tf.constant([1.0, float(k)]), False)
                                            for k in range(6)], segments=True)
    assert stats.graph_calls > 0 and stats.segmented_calls == 0


def numpy_constants(x, k):
    scale = np.sqrt(4.0) * np.log(np.e)  # folded into the graph: not a break
    return tf.reduce_sum(x) * scale + float(k) * np.float32(0.5)


def test_numpy_on_constants_is_not_a_break():
    stats = assert_same(numpy_constants, [(tf.constant([1.0, float(k)]), 1) for k in range(6)],
                        segments=True)
    assert stats.graph_calls > 0 and stats.segmented_calls == 0


class Raiser:
    def __init__(self):
        self.w = tf.Variable([1.0, 2.0])
        self.log = []


def raising(s, x):
    y = tf.reduce_sum(x * s.w) + tf.reduce_max(x) * tf.reduce_min(s.w)
    host = float(y.numpy())
    s.log.append(host)
    s.w.assign_add(x * 0.1)
    tf.debugging.assert_less(tf.reduce_sum(x) * s.w[0], 100.0)
    z = tf.reduce_sum(tf.exp(x)) * s.w[1] + tf.square(y)
    if host > 50:
        raise ValueError("big")
    return z


def test_user_errors_in_and_between_segments_stay_plain_pythons(any_size):
    """(the Python between segments runs mixed: a failed assert in a segment's graph and a
    `raise` after a break reach the caller as plain Python raises them)"""
    calls = [(tf.constant([1.0, float(k)]),) for k in range(8)] + \
        [(tf.constant([60.0, 1.0]),), (tf.constant([1.0, 2.0]),), (tf.constant([90.0, 5.0]),),
         (tf.constant([1.0, 2.0]),)]
    stats = assert_same(raising, calls, make_state=Raiser, segments=True)
    assert stats.segment_graph_calls > 0


def test_segments_are_on_by_default(monkeypatch):
    from janus.config import Config
    monkeypatch.delenv("JANUS_SEGMENTS", raising=False)
    assert Config().segments
    monkeypatch.setenv("JANUS_SEGMENTS", "0")
    assert not Config().segments


@pytest.mark.parametrize("graph_ms, plain_ms, kept", [
    (0.143, 0.079, False),  # `x * 2 + 1`'s wall times (its graph: 0.072 ms of thread CPU)
    (0.075, 0.079, False),  # faster, but by less than 1/PAYS
    (0.050, 0.079, True),   # 1.58x
])
def test_a_segment_is_kept_only_if_its_graph_gains_in_wall_time(monkeypatch, graph_ms,
                                                                 plain_ms, kept):
    # segments are timed in wall time (the caller's CPU time misses TensorFlow's threads);
    # the trial's times are injected, so the decision is deterministic
    assert trial._clock is time.perf_counter
    monkeypatch.setattr(trial, "MIN_PLAIN_S", 0.0)
    monkeypatch.setattr(segments, "TINY_OPS", 0)
    monkeypatch.setattr(whole_trial, "MAX_TRIALS", 0)  # (the split as a whole: real times)
    real = trial.Segment._timed
    injected = {"graph": graph_ms * 1e-3, "plain": plain_ms * 1e-3}
    monkeypatch.setattr(trial.Segment, "_timed",
                        lambda self, kind, seconds: real(self, kind, injected[kind]))
    jitted = janus.jit(numpy_values, segments=True)
    assert_same(numpy_values, [(k,) for k in range(24)], make_state=Buffer, jitted=jitted)
    tried = [s for s in jitted.segmented.all_segments() if s.rounds is not None]
    assert tried and all(s.state in ("kept", "eager") for s in tried), \
        [s.describe() for s in tried]
    if kept:
        assert all(s.state == "kept" for s in tried)
        assert jitted.stats.segment_graph_calls > 0
    else:
        assert all(s.state == "eager" and "does not pay" in s.why_eager for s in tried)
        assert "does not pay" in jitted.explain()
