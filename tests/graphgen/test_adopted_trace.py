"""A first trace is kept with the inputs it found (graphgen/adopted_trace.py), not redone:
the results, heap, variables and a caller's gradients are plain Python's."""
import numpy as np
import pytest
import tensorflow as tf

import janus
from janus.graphgen import adopted_trace, varying_numbers
from tests.differential import assert_same


@pytest.fixture
def traces(monkeypatch):
    """How many traces janus started, and how many were kept by adoption."""
    counts = {"traces": 0, "adopted": 0}
    tracer, adopt = varying_numbers.FeedingTracer, adopted_trace.adopt  # (every trace's)

    class Counting(tracer):
        def __init__(self, *args, **kwargs):
            counts["traces"] += 1
            super().__init__(*args, **kwargs)

    def counting_adopt(*args):
        made = adopt(*args)
        counts["adopted"] += made is not None
        return made

    monkeypatch.setattr(varying_numbers, "FeedingTracer", Counting)
    monkeypatch.setattr(adopted_trace, "adopt", counting_adopt)
    return counts


class RNN:
    def __init__(self):
        rng = np.random.default_rng(3)
        self.w = tf.Variable(rng.normal(size=(6, 4)).astype(np.float32))
        self.state = tf.zeros([2, 4])
        self.steps = 0


def rnn_step(s, xs, lr):
    with tf.GradientTape() as tape:
        h = s.state
        for x in xs:
            h = tf.tanh(tf.matmul(tf.concat([x, h], 1), s.w))
        loss = tf.reduce_sum(h * h)
    s.w.assign_sub(lr * tape.gradient(loss, s.w))
    s.state = tf.stop_gradient(h)
    s.steps += 1
    return loss


def _seq(i, n):
    rng = np.random.default_rng(i)
    return [tf.constant(rng.normal(size=(2, 2)).astype(np.float32)) for _ in range(n)]


def test_first_trace_kept_and_results_are_plain(traces):
    calls = [(_seq(i, 3 + i % 3), 0.1) for i in range(8)]
    stats = assert_same(rnn_step, calls, make_state=RNN)
    assert stats.graph_calls >= 4
    assert traces["adopted"] >= 1
    assert traces["traces"] <= 2 * stats.generations  # (one per generation, at most two)


def test_adopted_graph_under_a_callers_tape(traces):
    def loss_of(s, x):
        return tf.reduce_sum(tf.matmul(x, s.w) ** 2) + float(s.steps)

    def outer(s, x):
        with tf.GradientTape() as tape:
            loss = step(s, x)
        return loss, tape.gradient(loss, s.w)

    results = {}
    for name, step in (("plain", loss_of), ("janus", janus.jit(loss_of))):
        s = RNN()
        results[name] = [outer(s, tf.constant(np.full((2, 6), i, np.float32)))
                         for i in range(6)]
    assert traces["adopted"] >= 1
    for (lp, gp), (lj, gj) in zip(results["plain"], results["janus"]):
        np.testing.assert_allclose(lp.numpy(), lj.numpy(), rtol=1e-6)
        np.testing.assert_allclose(gp.numpy(), gj.numpy(), rtol=1e-6)


def test_expected_input_no_longer_read(traces):
    """A later generation expects the inputs of the one before; one it no longer reads
    (a list item now read by no op) is left out of the kept graph's inputs."""
    def step(s, x, k):
        total = x * 2.0
        if k < 3:
            total = total + s.extra[0] + s.extra[1]
        s.steps += 1
        return total

    class S(RNN):
        def __init__(self):
            super().__init__()
            self.extra = [tf.constant(1.0), tf.constant(2.0)]

    calls = [(tf.constant(float(i)), 1 if i < 4 else 5) for i in range(10)]
    stats = assert_same(step, calls, make_state=S)
    assert stats.graph_calls >= 4
    assert traces["adopted"] >= 2


def test_a_stand_in_read_twice_with_two_specs_keeps_the_retrace():
    """`adopt` refuses what only a retrace makes right (a stand-in replaced)."""
    @tf.function(autograph=False)
    def traced():
        return tf.constant(1.0)

    concrete = traced.get_concrete_function()

    class Source:
        expr = "args[0]"

    placeholder = tf.constant(0.0)
    assert adopted_trace.adopt(concrete, {"args[0]": (placeholder, ("float32", ()))},
                               [(Source, "tensor", ("float32", (2,)))]) is None
