"""An error the iterator of a loop of the user's raises (`zip(..., strict=True)` of
unequal lengths) is the user's (transform/runtime.user_items, F186, the probes' round: it
was raised in janus's loop hook and taken for janus's bug); closing janus's wrapper after
a `break` leaves the user's generator open, as Python does. Compared with plain Python."""
import tensorflow as tf

from tests.differential import assert_same


class Log:
    def __init__(self):
        self.steps = []


def strict_pairs(s, xs, ys):
    out = tf.constant(0.0)
    for a, b in zip(xs, ys, strict=True):
        s.steps.append(1)
        out = out + a * b
    return out


def test_zip_strict_raises_its_value_error_in_a_trace_as_in_python():
    two = [tf.constant(2.0)] * 2
    calls = [(lambda s, n=n: (s, [tf.constant(1.0)] * n, two)) for n in (2, 2, 2, 2, 3, 2)]
    assert_same(strict_pairs, calls, Log)


def _numbers(n):
    for i in range(n):
        yield tf.constant(float(i))


def first_item(s, x):
    it = _numbers(3)
    for v in it:
        x = x + v
        break
    return x, float(next(it))


def test_a_loop_that_breaks_leaves_the_user_s_generator_open():
    assert_same(first_item, [(tf.constant(float(i)),) for i in range(5)], Log)
