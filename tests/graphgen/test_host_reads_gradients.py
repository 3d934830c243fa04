"""A tensor's value read as a Python or numpy number (`float(y.numpy())`, `y.numpy()`,
`int(t)`) is a constant in eager code: no gradient flows through it. Kept in the graph
(graphgen/host_scalars.py), it must not carry one either (fuzz v36 seed 770074, on
session 10's code too: `y * float(y.numpy())` under a tape gave another gradient, and
the variable updated from it another value). Compared with plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same

class Params:
    def __init__(self):
        self.v = tf.Variable(0.5)
        self.w = tf.Variable([0.3, -0.2])


def _scaled(p, x):
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x * p.v)
        z = float(y.numpy())
        loss = y * z * 0.1 + tf.reduce_sum(p.w * x)
    gv, gw = tape.gradient(loss, [p.v, p.w])
    p.v.assign_sub(0.01 * gv)
    return loss, gv, gw


def _times_numpy(p, x):
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x * p.w)
        s = y.numpy()
        loss = y * s + p.v * tf.reduce_sum(x)
    gv, gw = tape.gradient(loss, [p.v, p.w])
    p.w.assign_sub(0.01 * gw)
    return gv, gw


def scaled_by_its_own_value(p, x):  # (read in a callee: traced into the caller's graph)
    return _scaled(p, x)


def times_numpy_scalar(p, x):
    return _times_numpy(p, x)


CALLS = [(tf.constant([1.0, 2.0]) * (k + 1),) for k in range(6)]


def test_a_value_read_as_a_python_float_is_a_constant_for_the_tape():
    stats = assert_same(scaled_by_its_own_value, CALLS, make_state=Params)
    assert stats.graph_calls >= 3, stats


def test_a_numpy_scalar_read_is_a_constant_for_the_tape():
    stats = assert_same(times_numpy_scalar, CALLS, make_state=Params)
    assert stats.graph_calls >= 3, stats
