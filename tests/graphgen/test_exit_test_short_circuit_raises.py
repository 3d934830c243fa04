"""An exit test's later operand runs where Python evaluates it, with the ops in it that
may raise (F74, v31 seed 609179): `xs[3]` of a list whose length varies, in `a or not
(xs[3] is None and b)`, raised IndexError in plain Python and nothing in janus's graph
(the slice's result is unused: `is None` is decided at trace time, and TF pruned it from
the `tf.cond` branch of the short-circuit). Compared with plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same


def stops(x, xs):
    h = x
    for item in xs:
        h = h * 0.7 + item
        if tf.reduce_max(h) < 0.5 or not (xs[3] is None and tf.reduce_max(h) < 0.5):
            break
    return h


def test_a_later_operand_s_slice_raises_as_python_s_index_error():
    def call(values, n):
        return (tf.constant([values, 1.0, 2.0]), [tf.constant([0.1, 0.2, 0.3])] * n)

    calls = [call(1.0, 5)] * 4 + [call(1.0, 2), call(-3.0, 2), call(1.0, 1), call(2.0, 5)]
    assert_same(stops, calls)
