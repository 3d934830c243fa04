"""A call whose arguments do not fit the function (`f(x)` for `f(s, x)`, an unknown
keyword) raises Python's TypeError, and janus does not take it for its own bug: it was
reported as a janus internal error ("Please report this janus bug") while profiling and
while tracing, where janus calls the converted copy. Compared with plain Python."""
import tensorflow as tf

from tests.differential import Call, assert_same


def scale(s, x):
    return x * 2.0


def test_arguments_that_do_not_fit_are_the_caller_s_type_error():
    x = tf.constant([1.0, 2.0])
    calls = [(x,), (x, x), Call(x, y=x), (x, x), (x,), (x, x), (x, x), (x,), (x, x)]
    stats = assert_same(scale, calls)
    assert stats.internal_errors == 0, stats
    assert stats.graph_calls >= 1, stats
