"""Python ints beyond int32 that change per call (a global step counter, a seed like
`2**33 + i`, a large negative offset) are fed as int64 scalars with Python's exact int
semantics (`%`, `//`, comparisons), not guarded per value (F360): a graph per value
until the specialization limit before. Beyond int64 they stay guarded. Each test
compares janus with plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same


def _state():
    return {}


def by_step(s, x, step):
    s["phase"] = step % 7  # (a Python int back on the heap)
    s["half"] = step // 2
    late = step > 2 ** 33 + 5
    return x * (step % 7), late, step - 2 ** 33, tf.constant(step)  # (int64, as TF's)


def test_ints_beyond_int32_are_fed_as_int64():
    calls = [(tf.ones([3]), 2 ** 33 + i) for i in range(14)]
    stats = assert_same(by_step, calls, _state)
    assert stats.internal_errors == 0 and stats.generations <= 2, stats
    assert stats.graph_calls >= 10, stats


def test_negative_ints_below_int32_are_fed_as_int64():
    calls = [(tf.ones([3]), -2 ** 40 - 3 * i) for i in range(14)]
    stats = assert_same(by_step, calls, _state)
    assert stats.internal_errors == 0 and stats.generations <= 2, stats
    assert stats.graph_calls >= 10, stats


def scaled(s, x, n):
    return tf.constant(n * 1000), tf.constant([n, 1]), x + n  # (int32 only while they fit)


def test_a_fed_int_grown_past_int32_converts_as_tf_converts_the_python_int():
    calls = [(tf.ones([2]), k) for k in (1, 2, 3, 5, 8, 2 ** 21, 2 ** 22 + 1, 13, 2 ** 30,
                                         21, -2 ** 31, 34)]
    stats = assert_same(scaled, calls, _state)
    assert stats.internal_errors == 0, stats


def test_ints_past_int64_stay_guarded_and_agree():
    calls = [(tf.ones([3]), 2 ** 64 + i % 3) for i in range(8)] + \
        [(tf.ones([3]), 2 ** 33 + i) for i in range(6)]
    stats = assert_same(by_step, calls, _state)
    assert stats.internal_errors == 0, stats
