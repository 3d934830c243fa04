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


INT3 = tf.constant(3)


def converted(x, a, flag):
    if flag:
        return x + a
    return INT3 + a, tf.constant(a, tf.int32), tf.stack([INT3, a])


def test_a_fed_float_converted_to_an_int_dtype_raises_as_in_python():
    # (F159: the graph cast the fed float and truncated it where eager TF raises)
    calls = [(tf.constant(1.0), 0.5 * i, True) for i in range(6)] + \
        [(tf.constant(1.0), 0.5 * i + 0.25, False) for i in range(4)]
    stats = assert_same(converted, calls)
    assert stats.internal_errors == 0, stats


def packed(x, a, b):
    return tf.constant([a, b]) * x, tf.constant((a, 2.0), tf.float64), tf.convert_to_tensor(a)


def test_a_list_of_fed_numbers_made_a_constant():
    calls = [(tf.constant(2.0), 0.5 * i, 1.5 - i) for i in range(8)]
    calls.append((tf.constant(2.0), 1e300, 1.0))  # (eager TF raises: beyond float32, F158)
    calls.append((tf.constant(2.0), 1e-40, 1.0))
    stats = assert_same(packed, calls)
    assert stats.internal_errors == 0 and stats.graph_calls >= 4, stats


def fixed_list(x, ws):
    return tf.reduce_sum(tf.constant(ws) * x)


def test_a_float_beyond_float32_in_a_list_of_fed_floats_raises():
    # (F158: TF's graph converted it to inf where eager TF raises ValueError)
    calls = [(tf.constant(1.0), [0.5 + i, 1.5 * i]) for i in range(6)]
    calls += [(tf.constant(1.0), [1e300, 2.0]), (tf.constant(1.0), [1.0, 2.0])]
    stats = assert_same(fixed_list, calls)
    assert stats.internal_errors == 0, stats


def hinted(x, a, b):
    return tf.convert_to_tensor([a, b], dtype_hint=tf.int32), \
        tf.convert_to_tensor(a, dtype_hint=tf.int32), tf.convert_to_tensor(x, dtype_hint=tf.int32)


def test_a_dtype_hint_as_eager_tf_takes_it_for_fed_numbers():
    # (F160: TF casts a list of tensors to the hint: fed floats became ints)
    calls = [(tf.constant(2.0), 0.5 * i + 0.25, 1.5 - i) for i in range(8)]
    calls += [(tf.constant(2.0), i, 3 - i) for i in range(4)]
    stats = assert_same(hinted, calls)
    assert stats.internal_errors == 0 and stats.graph_calls >= 4, stats


def half_precision_step(x, lr):
    h = tf.cast(x, tf.float16) * lr + 1.0
    b = tf.cast(x, tf.bfloat16) * lr
    return h, b, tf.constant(lr, tf.float16), tf.constant([lr, 0.5], tf.bfloat16)


def test_a_fed_float_converted_to_half_types_keeps_one_graph():
    """(F391) A Python float times a float16/bfloat16 tensor was guarded per value (a
    graph per learning rate, then 'limit reached'): now fed, cast from float64 in the
    graph, which rounds as eager TF converts the Python float (ties included)."""
    x = tf.constant([1.0, -2.0, 3.0])
    rates = [0.001 * (i + 1) for i in range(10)] + [
        1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 2049.0, 1.0 + 2.0 ** -8 + 2.0 ** -40,
        65520.0, 1e-8]  # (float16 and bfloat16 ties, half a float16 ulp past its max)
    stats = assert_same(half_precision_step, [(x, lr) for lr in rates])
    assert stats.graph_calls >= 12 and stats.generations <= 3
