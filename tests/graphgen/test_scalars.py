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
