"""Library calls that answer a shape with its static dimensions (`keras.ops.shape(t)`,
`t.get_shape()`, `keras.backend.int_shape`) on a graph tensor whose dimension varies (a
`k` janus feeds): eagerly every dimension is a Python int; in the graph it was a tensor
or None (graphgen/dynamic_sizes.shape_call). Compared with plain Python call by call."""
import keras
import tensorflow as tf

from tests.differential import assert_same

X = tf.reshape(tf.range(20.0), (4, 5))


def ops_shape(x, k):
    values = tf.math.top_k(x, k=k).values
    return keras.ops.shape(values)[1], [i * 2 for i in range(keras.ops.shape(values)[1])]


def get_shape(x, k):
    values = tf.math.top_k(x, k=k).values
    return values.get_shape()[1] + 1, values.get_shape().as_list()


def int_shape(x, k):
    values = tf.math.top_k(x, k=k).values
    return tf.keras.backend.int_shape(values)


def test_shapes_are_python_ints_as_eagerly():
    for fn in (ops_shape, get_shape, int_shape):
        stats = assert_same(fn, [(X, i % 3 + 1) for i in range(9)])
        assert stats.graph_calls >= 3
