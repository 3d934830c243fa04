"""An `if` that leaves a Python loop, followed by more statements (janus/transform/leave.py):
its test and what follows it join the segment before it, under a tf.cond that carries the
variables it updates; only the leaving runs in Python. Compared with plain Python call by
call (tests/differential.py): results, prints, exceptions, heap and variables, with the
segments' graphs kept whatever they cost (`any_size`)."""
import inspect

import keras
import numpy as np
import pytest
import tensorflow as tf

import janus
from janus.fallback import trial
from tests.differential import assert_same


@pytest.fixture
def keep_graphs(any_size, monkeypatch):
    monkeypatch.setattr(trial, "MAX_TRIAL_GENERATIONS", 12)


class Learner:
    def __init__(self):
        self.w = tf.Variable(np.linspace(-0.4, 0.6, 6).reshape(3, 2).astype(np.float32))
        self.steps = tf.Variable(0)
        self.optimizer = keras.optimizers.Adam(0.05)
        self.optimizer.build([self.w])
        self.rng = np.random.default_rng(3)
        self.log = []


def fit(state, xs, limit):
    """PPO's shape: forward under a tape, a test that may leave, then the update."""
    losses = []
    last = tf.constant(0.0)
    stop = False
    for i in range(xs.shape[0]):
        noise = tf.constant(state.rng.normal() * 0.01, tf.float32)  # graph break: host randomness
        with tf.GradientTape() as tape:
            pred = tf.matmul(xs[i:i + 1], state.w) + noise
            loss = tf.reduce_mean(tf.square(pred - 1.0))
        gap = tf.reduce_max(tf.abs(pred)) + 0.5 * i
        losses.append(loss)
        if gap > limit:
            state.log.append(i)                            # B: Python effects
            print("left at", i)
            stop = True
            break
        grads = tape.gradient(loss, [state.w])
        state.optimizer.apply_gradients(zip(grads, [state.w]))
        state.steps.assign_add(1)                          # C updates variables
        last = tf.reduce_sum(grads[0]) * 2.0
    return tf.add_n(losses), last, stop


def _xs(k):
    return np.linspace(-1.0, 1.0, 15).reshape(5, 3).astype(np.float32) * (1.0 + 0.3 * k)


def _line(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, s in enumerate(lines) if text in s)


def test_the_test_and_what_follows_it_are_one_graph_call(keep_graphs):
    # limits leave at the first iteration, later ones, or never
    calls = [(_xs(k), [2.0, 1.2, 9.0, 2.0, 0.8][k % 5]) for k in range(10)]
    jitted = janus.jit(fit, segments=True)
    stats = assert_same(fit, calls, make_state=Learner, jitted=jitted)
    split = jitted.segmented
    body = [s for s in split.segments if s.stretch.first_line <= _line(fit, "grads = tape")
            <= s.stretch.last_line]
    assert body and body[0].state == "kept", jitted.explain()
    assert body[0].stretch.first_line <= _line(fit, "with tf.GradientTape") and \
        body[0].stretch.outputs == ["janus_leave", "last"], jitted.explain()
    assert stats.segment_graph_calls >= 10
    assert "leaves the loop (its test and what follows it" in jitted.explain()


def nested(state, xs, limits):
    """The `if` leaves the inner loop, the outer one goes on; the inner loop's `else` runs
    when it was not left."""
    total = tf.constant(0.0)
    for j in range(len(limits)):
        state.log.append(int(state.rng.integers(10)))      # graph break
        for i in range(xs.shape[0]):
            jitter = tf.constant(state.rng.normal() * 0.01, tf.float32)  # graph break
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(tf.matmul(xs[i:i + 1], state.w) + jitter))
            if loss > limits[j]:
                total = total + loss
                break
            grads = tape.gradient(loss, [state.w])
            state.optimizer.apply_gradients(zip(grads, [state.w]))
            total = total + loss * 0.5
        else:
            total = total - 1.0
    return total


def test_nested_loops(keep_graphs):
    calls = [(_xs(k), [[2.0, 0.5], [9.0], [0.1, 3.0, 9.0]][k % 3]) for k in range(8)]
    stats = assert_same(nested, calls, make_state=Learner, segments=True)
    assert stats.segment_graph_calls > 0


def skip(state, xs, limits):
    """`continue` instead of `break`, and a test that raises (IndexError) past the limits."""
    n = tf.constant(0.0)
    for i in range(xs.shape[0]):
        state.log.append(float(state.rng.normal()))          # graph break
        y = tf.reduce_sum(tf.tanh(tf.matmul(xs[i:i + 1], state.w)))
        if y > limits[i]:
            continue
        state.w.assign_sub(tf.ones_like(state.w) * y * 0.01)
        n = n + y
    return n


def test_continue_and_a_test_that_raises(keep_graphs):
    calls = [(_xs(k), [0.0, 0.2, -0.2, 5.0, -5.0][:4 if k % 3 == 2 else 5]) for k in range(9)]
    assert_same(skip, calls, make_state=Learner, segments=True)


def returns(state, xs, limit):
    """`return` leaves the function from the loop; B binds what it returns."""
    acc = tf.zeros([1, 2])
    for i in range(xs.shape[0]):
        state.log.append(int(state.rng.integers(5)))      # graph break
        acc = acc * 0.5 + tf.matmul(xs[i:i + 1], state.w)
        if tf.reduce_max(acc) > limit:
            state.log.append("out")
            return acc * 3.0
        state.steps.assign_add(2)
        acc = acc - tf.reduce_mean(acc)
    return acc


def test_return_from_the_loop(keep_graphs):
    calls = [(_xs(k), [0.2, 0.9, 9.0][k % 3]) for k in range(9)]
    assert_same(returns, calls, make_state=Learner, segments=True)


def collect(state, xs, limit):
    """C changes a Python list (the call's own and the state's): no tf.cond can; the
    rewrite is refused after the failed trace and the loop runs as it did before."""
    seen = []
    for i in range(xs.shape[0]):
        state.log.append(float(state.rng.normal()))          # graph break
        y = tf.reduce_sum(tf.matmul(xs[i:i + 1], state.w))
        if y > limit:
            break
        state.steps.assign_add(1)
        seen.append(y * 2.0)
        state.log.append(i)
    return seen


def test_c_changing_python_lists_falls_back_to_the_plain_split(keep_graphs):
    calls = [(_xs(k), [0.0, 0.5, 9.0][k % 3]) for k in range(10)]
    jitted = janus.jit(collect, segments=True)
    assert_same(collect, calls, make_state=Learner, jitted=jitted)
    assert _line(collect, "state.steps.assign_add") in jitted.segmented.opened, \
        jitted.explain()
