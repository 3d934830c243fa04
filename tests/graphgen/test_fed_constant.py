"""`tf.constant(lr)` of a Python number janus feeds (a learning rate that changes between
calls): the generalized trace failed on it (TF's constant takes Python values only in a
graph), and the call fell back."""
import tensorflow as tf

import janus
from tests.differential import assert_same


@tf.function
def _scale(w, lr):
    return w * lr


def test_a_fed_number_made_a_constant():
    def step(x, lr):
        return _scale(x, tf.constant(lr)) + tf.constant(lr, tf.float64, shape=[2]).dtype.size
    calls = [(tf.ones([2]), 0.1)] * 4 + [(tf.ones([2]), 0.05)] * 3 + [(tf.ones([2]), 0.2)]
    stats = assert_same(step, calls)
    assert stats.fallback_calls == 0, stats
    assert stats.graph_calls >= 5, stats
