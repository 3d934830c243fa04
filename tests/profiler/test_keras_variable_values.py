"""A Keras variable (what layers' weights are: its dtype a str, not a tf.DType) as an
argument of a jitted function: profiled and guarded as a variable (it was an internal
error of the profiler: the function ran plainly for good)."""
import keras
import tensorflow as tf

import janus
from janus.profiler import describe_value
from tests.differential import assert_same


def make_layer():
    layer = keras.layers.Dense(2, kernel_initializer="ones")
    layer.build((None, 3))
    return layer


def scaled(layer, w, x):
    return tf.reduce_sum(w * x)


def updated(layer, w, x):
    w.assign_add(x * 0.1)
    return tf.reduce_sum(w)


def test_a_keras_variable_is_described_as_a_variable():
    assert describe_value(make_layer().kernel) == ("variable", "float32", (3, 2))


def test_keras_variables_as_arguments_run_as_graphs_and_equal_plain_python():
    calls = [lambda s, i=i: (s, s.kernel, tf.fill((3, 2), float(i))) for i in range(6)]
    for fn in (scaled, updated):
        stats = assert_same(fn, calls, make_state=make_layer)
        assert stats.graph_calls >= 3
