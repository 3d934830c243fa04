"""`tf.print` in a graph prints what eager `tf.print` prints: a Python int janus feeds
prints its digits (it printed janus's text marker for it, `janus0r`), a fed float or bool
(which TensorFlow formats otherwise than Python's `str`) keeps the trace from feeding it,
and the call's value is None, as eager's (a graph's was the print op)."""
import tensorflow as tf

import janus


class Counter:
    def __init__(self):
        self.calls = 0
        self.rate = 0.5


def logs(s, x):
    s.calls += 1
    s.rate = s.rate / 3.0
    tf.print("step", s.calls, "rate", s.rate, "sum", tf.reduce_sum(x))
    return tf.print("done"), x * 2.0


def _printed(fn, capfd) -> tuple[list, str]:
    s, values = Counter(), []
    for i in range(6):
        values.append(fn(s, tf.constant([1.0, float(i)]))[0])
    return values, capfd.readouterr().err


def test_tf_print_of_fed_numbers_prints_as_eager(capfd):
    want_values, want = _printed(logs, capfd)
    jitted = janus.jit(logs)
    got_values, got = _printed(jitted, capfd)
    assert got == want and got_values == want_values == [None] * 6
    assert janus.stats(jitted).graph_calls > 0
