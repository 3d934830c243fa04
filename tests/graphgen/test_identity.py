"""Tensor identity through a graph's tf.cond / tf.while_loop (graphgen/identity.py).

Eagerly, `y = acc if n % 2 else x` makes `y` the very object `x` when n is even; a
tf.cond janus builds once the test varies gives a new tensor on both paths. Found by the
fuzzer (npsum12-F110, generator v37 seed 101: a tape watching `x` after the tf.cond gave
the gradient without the path through `y`, a silent wrong answer); `is`, `id()` and a
loop that leaves a tensor untouched are the same class. Each test compares janus with
plain Python call by call; all but the last fail on the code before the fix.
"""
import tensorflow as tf

from tests.differential import assert_same

X = tf.constant([[-1.0, 0.5, 2.0], [0.25, -0.75, 1.5]])
# the test's outcome changes often enough that janus makes it a tf.cond
NS = [3, 3, 3, 2, 2, 2, 3, 2, 3, 2, 2, 3]


def _pair_tape(a, b):
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = tf.reduce_sum(tf.tanh(a) * tf.cast(b, a.dtype))
    return tape.gradient(y, a)


def gradient_through_a_merged_value(x, n):
    acc = x * 0.5
    return _pair_tape(x, acc if n % 2 else x)


def is_after_a_merge(x, n):
    acc = x * 0.5
    b = acc if n % 2 else x
    return b is x, b is not x, b + 1.0


def is_after_a_loop(x, n):
    y = x
    for _ in range(n):
        if tf.reduce_sum(x) > 100.0:
            y = y * 2.0
    return y is x, y


def watch_a_merged_value(x, n):
    b = x * 0.5 if n % 2 else x
    with tf.GradientTape() as tape:
        tape.watch(b)
        loss = tf.reduce_sum(x * x) + tf.reduce_sum(b)
    return tape.gradient(loss, b)


def id_of_a_merged_value(x, n):
    b = x * 0.5 if n % 2 else x
    return id(b) == id(x), b


def gradient_through_a_recorded_loop(x, n):
    """The tf.while_loop is built inside the tape, watching `x`: recorded, so the graph's
    gradient is Python's (the identity check must not refuse it)."""
    with tf.GradientTape() as tape:
        tape.watch(x)
        h = x
        for _ in range(n):
            h = tf.tanh(h) * 0.9
        loss = tf.reduce_sum(h * h)
    return tape.gradient(loss, x)


def _calls(dtypes=(tf.float32,)):
    return [(tf.cast(X, dtypes[i * len(dtypes) // len(NS)]), n) for i, n in enumerate(NS)]


def test_a_gradient_through_a_value_built_before_the_tape():
    assert_same(gradient_through_a_merged_value, _calls((tf.float32, tf.float64)))


def test_is_after_a_conditional_expression():
    assert_same(is_after_a_merge, _calls())


def test_is_after_a_loop_that_may_not_change_the_value():
    assert_same(is_after_a_loop, [(X, n) for n in (1, 2, 3, 0, 4, 0, 5, 0, 2, 0)])


def test_watching_a_merged_value():
    assert_same(watch_a_merged_value, _calls())


def test_id_of_a_merged_value():
    assert_same(id_of_a_merged_value, _calls())


def test_a_loop_recorded_by_the_tape_stays_one_graph():
    stats = assert_same(gradient_through_a_recorded_loop,
                        [(X, n) for n in (1, 2, 3, 4, 5, 6, 7, 8, 3, 2)])
    assert stats.graph_calls >= 4, stats


def _is_true_tests(x, a, n):
    b = a > 1.0
    y = x * 2.0 if b is True else x
    if b is not False:
        y = y + 1.0
    if (n > 2) is True:
        y = y * 3.0
    return y, b is True, (a * 2) is True, b is None


def test_is_true_of_a_fed_bool_compares_its_value():
    """F240: `b is True` of a bool janus feeds (a Python number compared) compared janus's
    stand-in object, never the value: always False in the graph."""
    calls = [(tf.constant([1.0, 2.0]), 0.5 + i * 0.7, i % 5) for i in range(12)]
    stats = assert_same(_is_true_tests, calls)
    assert stats.graph_calls >= 4
