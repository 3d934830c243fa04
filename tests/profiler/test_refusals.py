"""A trace that cannot succeed is not attempted: when every profiled call made a call a
graph refuses (tf.numpy_function/py_function, host randomness, `.numpy()`, `float(t)`),
janus decides from the profile and runs the function eagerly, as plain Python would."""
import random

import numpy as np
import pytest
import tensorflow as tf

import janus
from janus import generation as janus_generation
from tests.differential import assert_same


def with_numpy_function(x):
    y = tf.numpy_function(lambda a: a * 2.0, [x], tf.float32)
    return tf.reduce_sum(y) + tf.reduce_sum(x)


def with_numpy_value(x):
    return np.float64(tf.reduce_sum(x).numpy()) + 1.0  # (handed to numpy)


def with_float(x):
    return float(tf.reduce_sum(x)).hex()  # (a float's method; `* 2.0` is kept: F461)


def with_host_random(x):
    return x * random.random()


def sometimes_numpy(x, flag):
    if flag:
        return tf.reduce_sum(x).numpy()
    return tf.reduce_sum(x)


@pytest.mark.parametrize("fn", [with_numpy_function, with_numpy_value, with_float])
def test_no_trace_when_every_profiled_call_was_refused(fn, monkeypatch):
    traces = []
    original = janus_generation.generate
    monkeypatch.setattr(janus_generation, "generate",
                        lambda *a, **k: traces.append(1) or original(*a, **k))
    # (segments off: with them a break known from the source is decided at the first call,
    # before any profiling; this tests the profiler's own refusal records)
    jitted = janus.jit(fn, segments=False)
    stats = assert_same(fn, [(tf.ones([3]) * i,) for i in range(5)], jitted=jitted)
    assert traces == []  # decided before tracing
    assert stats.generation_failures == 1 and stats.graph_calls == 0
    assert jitted.unsupported is not None


def test_host_randomness_runs_plainly():
    jitted = janus.jit(with_host_random)
    random.seed(3)
    got = [jitted(tf.ones([2])).numpy() for _ in range(4)]
    random.seed(3)
    want = [with_host_random(tf.ones([2])).numpy() for _ in range(4)]
    np.testing.assert_allclose(got, want)
    assert janus.stats(jitted).graph_calls == 0


def test_a_refusal_on_some_profiled_calls_only_still_traces(monkeypatch):
    traces = []
    original = janus_generation.generate
    monkeypatch.setattr(janus_generation, "generate",
                        lambda *a, **k: traces.append(1) or original(*a, **k))
    stats = assert_same(sometimes_numpy, [(tf.ones([3]), flag) for flag in
                                          (True, False, False, False, False)])
    assert traces  # one profiled call did not refuse: tracing may succeed
    assert stats.graph_calls > 0
