"""A tensor's value read as a Python float and tested or rounded with `math`
(`if math.isnan(float(loss)): raise ...`, `math.floor(float(t))`): no graph break
(transform/breaks.py `_MATH_FUNCTIONS`, F459; graphgen/number_functions.py computes
them). Before, the read split the step there. Compared with plain Python."""
import math

import numpy as np
import tensorflow as tf

from tests.differential import assert_same


class Run:
    def __init__(self):
        self.w = tf.Variable([1.0, -2.0])
        self.smooth = 0.0
        self.buckets = []


def checked(s, x):
    loss = tf.reduce_sum(x * s.w)
    value = float(loss)
    if math.isnan(value) or not math.isfinite(value):
        raise FloatingPointError(f"loss is {value}")
    s.smooth = 0.9 * s.smooth + 0.1 * value
    s.buckets.append(math.floor(value))
    return loss


def _calls():
    rng = np.random.RandomState(3)
    calls = [(tf.constant(rng.randn(2).astype(np.float32) * 3),) for _ in range(8)]
    return calls + [(tf.constant([np.nan, 1.0], tf.float32),), (tf.constant([np.inf, 0.0]),)] + \
        calls[:2]


def test_a_read_tested_with_math_stays_in_the_graph():
    stats = assert_same(checked, _calls(), make_state=Run)
    assert stats.graph_calls >= 6, stats
