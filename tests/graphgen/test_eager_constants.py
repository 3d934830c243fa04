"""Python values a trace makes into tensors are converted as eager TensorFlow converts them
(janus/graphgen/eager_constants.py, F390): the dtype, the values and the exceptions of the
eager C converter, not those of a graph's `make_tensor_proto`. Every test compares janus
with plain Python."""
import numpy as np
import tensorflow as tf

from tests.differential import assert_same

SCALE = np.float64(0.1)


def lists_of_numpy_scalars(x, lr, px):
    a = tf.constant([lr])            # np.float64: float64 (a graph's: float32)
    b = tf.constant([px, px]) * 2    # np.uint8: int32, 400 (a graph's: uint8, 144)
    c = tf.reduce_sum([lr, lr * 2])  # a list an op converts
    return x * 2.0, a, b, c


def test_numpy_scalars_in_lists_take_eager_dtypes():
    calls = [(tf.constant(1.0), np.float64(0.1 * (i + 1)), np.uint8(200)) for i in range(12)]
    stats = assert_same(lists_of_numpy_scalars, calls)
    assert stats.graph_calls >= 8


def host_constants(x):
    a = tf.constant([SCALE, 1.0])                                # a module's np.float64
    b = tf.reduce_mean([np.float64(0.1), np.float64(0.2)])       # literals an op converts
    c = tf.stack([np.float64(1.5), np.float64(2.5)])
    d = tf.convert_to_tensor([np.float64(1.0), np.float32(2.0)])
    if tf.reduce_sum(x) > 0:                                      # (in a branch too)
        e = tf.constant([SCALE])
    else:
        e = tf.constant([SCALE * 2])
    return x * 2.0, a, b, c, d, e


def test_host_values_in_lists_take_eager_dtypes():
    stats = assert_same(host_constants, [(tf.constant(1.0 * i - 3),) for i in range(10)])
    assert stats.graph_calls >= 6


def mixed_literal(x):
    return x * 2.0, tf.constant([True, 2])      # eager: ValueError (mixed types)


def mixed_fed(x, flag):
    return x * 2.0, tf.reduce_sum([flag, 2])    # eager: ValueError (mixed types)


def beyond_int64(x):
    return x * 2.0, tf.constant(2 ** 63)         # eager: ValueError; a graph's uint64


def numpy_bool_mix(x, m):
    return x * 2.0, tf.constant([m, 1])          # eager: ValueError


def test_values_eager_refuses_to_convert_raise_as_eagerly():
    assert_same(mixed_literal, [(tf.constant(1.0 * i),) for i in range(6)])
    assert_same(mixed_fed, [(tf.constant([1.0, 2.0]), i % 2 == 0) for i in range(6)])
    assert_same(beyond_int64, [(tf.constant(1.0 * i),) for i in range(6)])
    assert_same(numpy_bool_mix, [(tf.constant(1.0), np.bool_(i % 2)) for i in range(6)])


def python_numbers(x, n, lr):
    return x * 2.0, tf.constant([n, 1]), tf.constant([lr, 0.5]), tf.constant([n, lr])


def test_fed_python_numbers_in_lists_still_graphs():
    calls = [(tf.constant(1.0), i, 0.1 * i) for i in range(12)]
    stats = assert_same(python_numbers, calls)
    assert stats.graph_calls >= 8
