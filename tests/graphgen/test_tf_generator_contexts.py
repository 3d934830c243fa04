"""TensorFlow's own context managers made by `@contextlib.contextmanager` generators
(`tape.stop_recording()`) are traced like its classes (tapes, name scopes): before, the
trace refused them as user Python and the function ran plainly (zoo10-F63)."""
import tensorflow as tf

from tests.differential import assert_same


class State:
    def __init__(self):
        self.w = tf.Variable([1.0, -2.0])
        self.logged = []


def step(s, x):
    with tf.GradientTape() as tape:
        y = s.w * x
        with tape.stop_recording():
            s.logged.append(tf.reduce_sum(y * y))  # not differentiated
            shift = tf.reduce_mean(y)
        loss = tf.reduce_sum(tf.square(y - shift))
    g = tape.gradient(loss, s.w)
    s.w.assign_sub(0.1 * g)
    return loss, g


def test_stop_recording_is_traced():
    calls = [(tf.constant([float(i), 1.0]),) for i in range(8)]
    stats = assert_same(step, calls, make_state=State)
    assert stats.graph_calls >= 5, stats
