"""A bounded loop checks its exactness conditions after it (graphgen/deferred_checks.py):
each test compares janus with plain Python call by call, with calls whose check fails in
a middle iteration (a float leaving the fast range, a zero divisor, an int past int64,
a probability vector numpy refuses), then looks at where the checks ended up."""
import numpy as np
import pytest
import tensorflow as tf

import janus
from tests.differential import assert_same
from tests.graphgen.test_host_draws import RS, run_twins


def _body_ops(jitted) -> set:
    """Op types of the loop bodies of the last specialization's graph."""
    graph_def = jitted.specializations[-1].concrete.graph.as_graph_def()
    return {node.op for f in graph_def.library.function
            if "body" in f.signature.name for node in f.node_def}


class Dynamics:
    """Python numbers changed in `step` (carried through the episode's loop)."""

    def __init__(self):
        self.scale, self.count, self.steps = 1.0, 1, 0

    def step(self, push, factor, pole, growth):
        self.scale = self.scale * factor / (pole - self.steps)  # (pole == steps: 1 / 0)
        self.count = self.count * growth + 1  # (may grow past int64)
        self.steps += 1
        return self.scale, bool(push > 10.0 or self.steps >= 8)


def episode(env, x, start, factor, pole, growth):
    env.scale, env.count, env.steps = start, 1, 0
    out = []
    for t in range(12):  # (breaks on a tensor: one tf.while_loop)
        push = tf.reduce_sum(x) * t
        out.append(push * env.scale)
        _, done = env.step(push, factor, pole, growth)
        if done:
            break
    return tf.stack(out), env.scale, env.count, env.steps


X = tf.constant([1.0, 2.0], tf.float64)
GOOD = [(X * (0.5 + k), 1.0 + k, 0.5 + 0.1 * k, 20.0 + k, 2 + k % 3) for k in range(6)]


def _twice(calls):
    return calls[:3] + calls + calls


@pytest.mark.parametrize("bad", [
    (X, 1e-300, 1e-3, 20.0, 2),      # a subnormal scale in the third step
    (X, 1e300, 1e5, 30.0, 2),        # an infinite scale in the third step
    (X, 1.0, 0.5, 3.0, 2),           # the fourth step divides by zero
    (X, 1.0, 0.5, 20.0, 2 ** 20),    # the count past int64 in the fourth step
], ids=["subnormal", "overflow", "zero-divisor", "int-growth"])
def test_a_check_failing_in_a_middle_iteration(bad):
    """Python's outcome (values, ZeroDivisionError, the environment as Python left it)
    whichever iteration the check fails in; before and after, calls run as graphs whose
    loop body holds no check."""
    calls = _twice(GOOD[:3]) + [bad] + GOOD[3:] + [bad] + GOOD
    jitted = janus.jit(episode)
    stats = assert_same(episode, calls, Dynamics, jitted=jitted)
    assert stats.graph_calls >= 8, stats
    fast = janus.jit(episode)
    assert_same(episode, _twice(GOOD), Dynamics, jitted=fast)
    ops = _body_ops(fast)
    assert "TensorListPushBack" in ops and not ops & {"CheckNumerics", "Assert"}, sorted(ops)


def sample_episode(rs, logits):
    actions = []
    for t in range(5):
        probs = tf.nn.softmax(logits[t])
        actions.append(rs.choice(3, p=probs.numpy()))
        if probs[0] > 0.9:
            break
    return actions


def test_probabilities_numpy_refuses_in_a_middle_iteration_raise_as_numpy():
    """A nan in the third step's logits: numpy's ValueError, the RNG where Python left it;
    in the steady state the validation of p is not in the loop body."""
    data = np.random.RandomState(3)
    good = [tf.constant(data.normal(size=(5, 3)), tf.float32) for _ in range(8)]
    bad = data.normal(size=(5, 3)).astype(np.float32)
    bad[2, 1] = np.nan
    calls = [(g,) for g in good[:5]] + [(tf.constant(bad),)] + [(g,) for g in good[5:]]
    stats = run_twins(sample_episode, lambda: (RS(4),), calls)
    assert stats.graph_calls >= 4, stats
    jitted, rs = janus.jit(sample_episode), RS(4)
    for g in good:
        jitted(rs, g)
    ops = _body_ops(jitted)  # (an Assert may keep the draw's gather: graphgen/dead_ends)
    assert ops and not ops & {"CheckNumerics", "Min"}, sorted(ops)


def episode_with_while(env, x, start, factor, pole, growth):
    env.scale, env.count, env.steps = start, 1, 0
    out = []
    for t in range(12):
        push = tf.reduce_sum(x) * t
        y, n = push * env.scale, tf.constant(0)
        while y > 1.0:  # (a loop that may not end by itself: the outer checks stay in it)
            y = y * 0.5
            n += 1
        out.append(y)
        _, done = env.step(push, factor, pole, growth)
        if done:
            break
    return tf.stack(out), env.scale, env.steps


def test_a_loop_holding_a_while_checks_in_every_iteration():
    calls = _twice(GOOD[:3]) + [(X, 1e-300, 1e-3, 20.0, 2)] + GOOD
    jitted = janus.jit(episode_with_while)
    stats = assert_same(episode_with_while, calls, Dynamics, jitted=jitted)
    assert stats.graph_calls >= 4, stats
    fast = janus.jit(episode_with_while)
    assert_same(episode_with_while, _twice(GOOD), Dynamics, jitted=fast)
    graph_def = fast.specializations[-1].concrete.graph.as_graph_def()
    outer = [f for f in graph_def.library.function if "body" in f.signature.name and
             any(node.op in ("While", "StatelessWhile") for node in f.node_def)]
    assert outer and all(any(node.op == "CheckNumerics" for node in f.node_def)
                         for f in outer), [f.signature.name for f in outer]


def test_a_range_longer_than_the_limit_checks_in_every_iteration(monkeypatch):
    """The lists a deferring loop carries grow with its iterations: a `range` known to be
    longer than `MAX_ITERATIONS` checks per iteration instead, with Python's results."""
    from janus.graphgen import deferred_checks

    monkeypatch.setattr(deferred_checks, "MAX_ITERATIONS", 8)  # (episode: range(12))
    calls = _twice(GOOD[:3]) + [(X, 1e-300, 1e-3, 20.0, 2)] + GOOD
    jitted = janus.jit(episode)
    stats = assert_same(episode, calls, Dynamics, jitted=jitted)
    assert stats.graph_calls >= 4, stats
    ops = _body_ops(jitted)
    assert "CheckNumerics" in ops and "TensorListPushBack" not in ops, sorted(ops)
