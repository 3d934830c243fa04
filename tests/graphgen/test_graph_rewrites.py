"""Class: a graph janus builds must compute what the eager ops compute, even where
TensorFlow's graph optimizer would rewrite it into something else (fuzz finding F5).

TF 2.21's oneDNN remapper fuses `Maximum(x, Mul(x, c))` into `LeakyRelu(x, c)`, which
is only right for c <= 1: `tf.maximum(x, x * 1.5)` became `min(x, 1.5 x)` in the graph.
janus emits `tf.maximum` as `-tf.minimum(-x, -y)` (same values, NaN and gradients).
"""
import tensorflow as tf

from tests.differential import assert_same


def maximum_after_append(x, xs):
    acc = x * 0.5
    xs.append(acc)
    for _ in xs:
        acc = tf.maximum(x, x * 1.5)
    return acc


def test_maximum_of_a_tensor_and_its_multiple():
    x = tf.constant([0.1079, -0.2075, -0.9037])
    stats = assert_same(maximum_after_append, [(x, [])] * 4)
    assert stats.graph_calls >= 1


class Model:
    def __init__(self):
        self.w = tf.Variable([1.0, -2.0, 0.5])


def maximum_gradient(model, x):
    with tf.GradientTape() as tape:
        y = tf.math.maximum(model.w * x, model.w * x * 2.0) + tf.maximum(x, model.w)
        loss = tf.reduce_sum(y)
    grad = tape.gradient(loss, model.w)
    model.w.assign_sub(0.1 * grad)
    return loss, grad


def test_maximum_values_and_gradients_with_ties():
    calls = [(tf.constant([1.0, 2.0, 0.5]),), (tf.constant([-1.0, -2.0, 0.5]),)] * 3
    stats = assert_same(maximum_gradient, calls, make_state=Model)
    assert stats.graph_calls >= 2


def maximum_plus(x, y):
    return tf.maximum(x, y) + x


def test_maximum_of_integers_still_runs_as_graph():
    for dtype in (tf.uint8, tf.int32):
        x, y = tf.constant([1, 200, 3], dtype), tf.constant([5, 2, 3], dtype)
        stats = assert_same(maximum_plus, [(x, y)] * 4)
        assert stats.graph_calls >= 1
