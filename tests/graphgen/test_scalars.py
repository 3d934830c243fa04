"""Python numbers that change every call: fed as tensors after repeated value-guard failures,
written back and returned as Python numbers again."""
import numpy as np
import tensorflow as tf

import janus


class Counter:
    def __init__(self):
        self.steps = 0
        self.seen = 0.0


def count(state, x):
    state.steps += 1
    state.seen = state.seen + float(1) / 2
    if state.steps % 3 == 0:
        y = x * 2.0
    else:
        y = x + 1.0
    return y * state.steps, state.steps


def test_counter_on_the_heap_needs_no_graph_per_value():
    eager, jitted_state = Counter(), Counter()
    jitted = janus.jit(count)
    for i in range(22):
        if i == 14:
            settled = janus.stats(jitted).as_dict()
        x = tf.constant([1.0, float(i)])
        expected = count(eager, x)
        actual = jitted(jitted_state, x)
        np.testing.assert_allclose(actual[0].numpy(), expected[0].numpy())
        assert actual[1] == expected[1] and type(actual[1]) is int
        assert jitted_state.steps == eager.steps and type(jitted_state.steps) is int
        assert jitted_state.seen == eager.seen and type(jitted_state.seen) is float
    stats = janus.stats(jitted)
    assert stats.generations == settled["generations"]      # the ladder has settled:
    assert stats.graph_calls == settled["graph_calls"] + 8  # every later call is a graph
    assert any("scalar tensor" in line for spec in jitted.specializations
               for line in spec.plan.describe())


def scaled(x, lr):
    return x * lr


def test_python_float_argument_that_changes_is_fed_not_baked():
    jitted = janus.jit(scaled)
    for i in range(10):
        lr = 0.1 * 0.9 ** i
        x = tf.constant([1.0, 2.0])
        np.testing.assert_allclose(jitted(x, lr).numpy(), scaled(x, lr).numpy(), rtol=1e-6)
    assert janus.stats(jitted).generations <= 3


def stacked(x, depth, scale):
    h = x
    for _ in range(depth):     # a count: fed, the loop one tf.while_loop
        h = tf.tanh(h) * scale  # a factor: fed
    return h


def test_a_changing_loop_count_is_fed_and_one_graph_serves_every_count():
    """`depth` changes per call and counts a `range` loop: it is fed like `scale`, and the
    loop is a tf.while_loop (graphgen/dynamic_sizes.py), not a graph per count."""
    jitted = janus.jit(stacked, max_specializations=4)
    rng = np.random.default_rng(0)
    for i in range(40):
        x = tf.constant(rng.normal(size=(2, 3)), tf.float32)
        depth, scale = [1, 2, 3, 1, 3, 2, 5][i % 7], float(rng.uniform(0.5, 1.5))
        np.testing.assert_allclose(jitted(x, depth, scale).numpy(),
                                   stacked(x, depth, scale).numpy(), rtol=1e-5)
    stats = janus.stats(jitted)
    assert not jitted.unsupported
    assert stats.generation_failures == 0 and stats.generations <= 2
    assert stats.graph_calls >= 30
    plans = [line for spec in jitted.specializations for line in spec.plan.describe()]
    assert any("args[1] is fed" in line for line in plans)


def sliced(x, weights, depth, scale):
    h = x
    for w in weights[:depth]:  # a count of Python list items: cannot be fed
        h = tf.tanh(h * w) * scale
    return h


def test_a_changing_count_stays_guarded_and_the_function_keeps_its_graphs():
    """`depth` changes per call and slices a Python list: feeding it fails once, then it
    stays guarded (a graph per value) while `scale` is fed; janus never gives up on the
    function (CI saw 8 threads give up on such a function after three failed
    generations)."""
    jitted = janus.jit(sliced, max_specializations=4)
    rng = np.random.default_rng(0)
    weights = [0.5, 1.5, 0.9]
    for i in range(40):
        x = tf.constant(rng.normal(size=(2, 3)), tf.float32)
        depth, scale = [1, 2, 3, 1, 3, 2][i % 6], float(rng.uniform(0.5, 1.5))
        np.testing.assert_allclose(jitted(x, weights, depth, scale).numpy(),
                                   sliced(x, weights, depth, scale).numpy(), rtol=1e-5)
    stats = janus.stats(jitted)
    assert not jitted.unsupported
    assert stats.generation_failures <= 1
    assert stats.graph_calls >= 25
    plans = [line for spec in jitted.specializations for line in spec.plan.describe()]
    assert any("stays guarded" in line for line in plans)
