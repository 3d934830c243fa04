"""A list or tuple holding a Python number janus feeds, converted by a tensor's operator
(`s.seed + [0, s.k]`, graphgen/operator_lists.py, F465): one graph for every value, the
results and the errors plain Python's."""
import numpy as np
import pytest
import tensorflow as tf

import janus
from tests.differential import assert_same


class Counter:
    def __init__(self):
        self.seed = tf.Variable([1, 2], dtype=tf.int64)
        self.k = 0
        self.scale = 0.5


def stateless_counter(s, x):
    s.k += 1
    seed = s.seed + [0, s.k]
    return x + tf.random.stateless_uniform([3], seed=seed), seed


def float_tuple(s, x):
    s.scale = s.scale * 1.5
    return x * (1.0, s.scale, 2.0)


def reflected_and_nested(s, x):
    s.k += 2
    m = tf.reshape(tf.range(4, dtype=tf.int32), [2, 2])
    return [s.k, 1] + tf.constant([3, 4]), m * [[s.k, 0], [0, s.k]], x - [s.k, 0.5, 1.0]


def float_into_ints(s, x):
    s.scale = s.scale + 0.25
    return tf.constant([1, 2]) + [s.scale, 1.0]


def wide_ints(s, x):
    s.k += 2 ** 40
    return tf.constant([1, 2], tf.int64) + [s.k, 0]


@pytest.mark.parametrize("fn", [stateless_counter, float_tuple, reflected_and_nested,
                                wide_ints])
def test_one_graph_for_every_value(fn):
    calls = [(tf.constant(np.arange(3, dtype=np.float32) + i),) for i in range(8)]
    stats = assert_same(fn, calls, make_state=Counter)
    assert stats.generations == 1
    assert stats.graph_calls >= 4


def test_a_float_where_ints_are_raises_as_plain():
    calls = [(tf.ones([3]),) for _ in range(6)]
    assert_same(float_into_ints, calls, make_state=Counter)


def test_no_trace_no_change():
    assert (tf.constant([1, 2]) + [3, 4]).numpy().tolist() == [4, 6]
    assert tf.convert_to_tensor((1.0, 2)).dtype == tf.float32
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.constant([1, 2]) + [0.5, 1.0]
