"""More constructs researchers write, each against plain Python."""
import tensorflow as tf

import other_module
from differential import assert_same


def tf_range_loop(x, n):
    acc = tf.zeros_like(x)
    for i in tf.range(n):
        acc = acc + x * tf.cast(i, x.dtype)
    return acc


def test_for_over_tf_range_of_varying_length_is_one_graph():
    calls = [(tf.ones([2]), tf.constant(k)) for k in [3, 4, 5, 2, 6, 3]]
    stats = assert_same(tf_range_loop, calls)
    assert stats.generations == 1 and stats.graph_calls == 4


def nested_def_and_dict(x):
    def square(v):
        return v * v
    total = 0.0
    for name, value in {"a": x, "b": x + 1.0}.items():
        total = total + tf.reduce_sum(square(value))
    return total


def test_nested_function_and_dict_items():
    stats = assert_same(nested_def_and_dict, [(tf.ones([2]) * i,) for i in range(5)])
    assert stats.graph_calls == 3


def test_assert_on_a_tensor_is_an_in_graph_guard_and_raises_like_python():
    calls = [(tf.ones([2]),)] * 3 + [(-tf.ones([2]),), (tf.ones([2]),)]
    stats = assert_same(other_module.checked, calls)  # the failing call raises as plain does
    assert stats.graph_calls == 2
