"""`math.sqrt(t)` / `math.log(t)` / `math.isnan(t)` of a scalar float tensor: Python
converts the tensor with `float(t)` first. Before, the trace handed the symbolic tensor to
`math`, which raised TypeError, and janus ran the whole function eagerly from then on; now
the implicit read is the `float(t)` janus keeps in the graph (graphgen/host_scalars.py)
and the `math` function its op (graphgen/number_functions.py). Every test compares janus
with plain Python call by call."""
import math

import numpy as np
import tensorflow as tf

from tests.differential import assert_same


class State:
    def __init__(self):
        self.w = tf.Variable([[1.0], [0.5], [-0.5]])
        self.log = []


def c(values):
    return tf.constant(np.asarray(values, np.float32))


def rms_step(s, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ s.w))
    s.w.assign_sub(0.05 * tape.gradient(loss, s.w))
    rms = math.sqrt(loss)
    s.log.append(math.log(loss + 1.0))
    if math.isnan(loss):
        raise FloatingPointError("nan loss")
    return rms, math.floor(loss * 10.0)


def test_math_of_a_scalar_tensor_stays_in_the_graph(any_size):
    rng = np.random.RandomState(0)
    calls = [(c(rng.randn(4, 3)),) for _ in range(10)]
    stats = assert_same(rms_step, calls, make_state=State)
    assert stats.graph_calls >= 6, stats


def test_what_math_raises_of_a_tensor_is_raised():
    def root(x):
        return math.sqrt(tf.reduce_sum(x))
    calls = [(c([1.0, 2.0]),)] * 3 + [(c([-1.0, -2.0]),)] + [(c([float("nan")]),)] + \
        [(c([4.0]),)] * 2
    assert_same(root, calls)


def test_math_of_a_vector_tensor_raises_as_python():
    def root(x):
        return math.sqrt(x)
    assert_same(root, [(c([1.0, 2.0]),)] * 3 + [(c([4.0]),)] * 2)
