"""A Python number janus feeds to a graph, formatted after its trace ended (F35: fuzz
generator v18, seed 520073). A trace raised `AssertionError(('bad n', n))` with `n` fed;
janus formatted that exception after the trace (to word its fallback) and the stand-in's
repr needed an active trace: an internal error instead of the plain call."""
import tensorflow as tf

import janus
from janus.graphgen.values import SymbolicScalar


class State:
    @janus.jit
    def run(self, x, n):
        return checked(x, n)


def checked(x, n):
    acc = x * 0.5
    assert n != 0, ("bad n", n)
    return tf.reshape(acc, [-1])


def test_a_fed_number_formats_outside_a_trace():
    value = SymbolicScalar(tf.constant(3, tf.int64), int, "n")
    assert "int" in repr(value) and "n" in str(value) and f"{value}" == repr(value)


def test_an_exception_holding_a_fed_number_falls_back_to_the_plain_call():
    x = tf.constant([1.0, 2.0])
    for n in [0, 0, 0, 0, 0, 0, 2, 4, 1, 0, 3]:  # (conftest: internal errors raise)
        try:
            expected = checked(x, n)
        except AssertionError as exc:
            expected = ("raised", exc.args)
        try:
            actual = State().run(x, n)
        except AssertionError as exc:
            actual = ("raised", exc.args)
        if isinstance(expected, tuple):
            assert actual == expected
        else:
            assert actual.numpy().tolist() == expected.numpy().tolist()
