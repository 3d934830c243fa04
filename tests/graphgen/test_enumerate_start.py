"""`enumerate(xs, start)` over a list whose length varies (held as one stacked tensor):
janus bound only `enumerate(xs)` and `enumerate(xs, start=s)`, so `enumerate(xs, 1)`
failed inside janus (F36: fuzz generator v18, seed 520584). The arguments are now bound
as Python binds them; a start that is not an int makes the trace refuse."""
import tensorflow as tf

from tests.differential import assert_same


def c(*values):
    return tf.constant(list(values), tf.float32)


def weighted(x, xs, n):
    acc = x
    for i, v in enumerate(xs, 1):
        acc = acc + v * tf.cast(i, acc.dtype)
    for i, v in enumerate(xs, start=n):
        acc = acc - v * tf.cast(i, acc.dtype) * 0.5
    for i, v in enumerate(iterable=xs):
        acc = acc + tf.cast(i, acc.dtype)
    return acc


def float_start(x, xs):
    acc = x
    for i, v in enumerate(xs, 0.5):   # TypeError in Python
        acc = acc + v
    return acc


CALLS = [(c(1.0, 2.0), [c(0.5, 1.0)] * m, n) for m, n in
         [(1, 0), (2, 0), (3, 1), (2, 2), (1, 3), (3, 0), (2, 1), (0, 2), (3, 3)]]


def test_enumerate_with_a_positional_or_keyword_start_over_a_varying_list():
    stats = assert_same(weighted, CALLS)
    assert stats.graph_calls >= 3


def test_enumerate_with_a_float_start_raises_as_in_python():
    assert_same(float_start, [(x, xs) for x, xs, _ in CALLS])
