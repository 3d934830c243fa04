"""A user's `tf.function` that assigns a variable, called inside a janus graph: its call
op wrote the variable at once, before the graph's guards held, and the failed guard's
plain rerun applied the update again (graphgen/handle_writes.py, F187, the probes'
round). Now a variable the function writes through is saved before the graph and put
back if it fails (one it captures without being handed refuses: that call runs in
Python). Compared with plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same


@tf.function
def bump(v, x):
    v.assign_add(x)
    return v * 2.0


class Counter:
    def __init__(self):
        self.v = tf.Variable(tf.zeros(2))


def step(s, x):
    a = bump(s.v, x)
    if tf.reduce_sum(a) > 0:
        a = a + 1.0
    return a


def test_a_tf_function_s_assign_before_a_failing_guard_is_applied_once():
    values = [1.0, 1.0, 1.0, 1.0, -10.0, 1.0, 1.0]
    stats = assert_same(step, [(tf.constant([v, v]),) for v in values], Counter)
    assert stats.graph_calls > 0
