"""Class: a loop the profiled calls never left normally (they raised inside it) must not
be unrolled from that profile (fuzz finding F6).

Its test was only ever seen true, so the graph generator assumed "true" at every
iteration and unrolled the loop for ever (and a test `j < 2 and <tensor>` that ends on
its Python operand was still asserted true). Now a Python outcome is used as it is, and a
loop test never seen false is not unrolled beyond what the profile saw.
"""
import contextlib
import signal

import tensorflow as tf

from tests.differential import assert_same


class _Hang(BaseException):
    """A BaseException: janus's own fallbacks must not swallow it."""


@contextlib.contextmanager
def _deadline(seconds: int):
    """Turns a hang (the old behaviour) into a failure."""
    def expired(signum, frame):
        raise _Hang(f"still running after {seconds}s: the trace does not end")
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def mixed_test_loop(x, xs):
    acc = x * 0.5
    j = 0
    while j < 2 and tf.reduce_mean(acc) > -0.5:
        j += 1
        if len(xs) == 0:
            raise ValueError("list length")
        acc = acc * 0.5 + x
    return acc


def tensor_test_loop(x, xs):
    acc = x
    while tf.reduce_mean(acc) > -0.5:
        if len(xs) == 0:
            raise ValueError("list length")
        acc = acc - 0.25
    return acc


def test_loops_whose_profiled_runs_raised_inside():
    x = tf.constant([0.3, -0.2, 0.1])
    with _deadline(90):
        assert_same(mixed_test_loop, [(x, [])] * 4 + [(x, [1])] * 3)
        assert_same(tensor_test_loop, [(x, [])] * 4 + [(x, [1])] * 3)
