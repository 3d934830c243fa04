"""A failing `tf.debugging.assert_*` stops the call before the variable updates after it,
as in eager code (fuzz generator v17, seed 490599: the graph committed `V0.assign_sub`
although the assertion before it failed; the commit now waits for the trace's checks)."""
import numpy as np
import tensorflow as tf

from tests.differential import assert_same


class State:
    def __init__(self):
        self.v = tf.Variable(0.5)
        self.w = tf.Variable(np.ones(3, np.float32))
        self.total = 0.0


def checked_update(s, x):
    s.v.assign_add(tf.reduce_mean(x) * 0.1)     # before the check: kept when it fails
    try:
        tf.debugging.assert_less(tf.reduce_max(x), 3.0, message="too big")
        s.w.assign_sub(x * 0.01)                # after it: not when it fails
    finally:
        s.total = s.total + 0.25
    return s.w * 2.0


def test_a_failing_user_assertion_leaves_the_later_updates_undone():
    small, big = tf.constant([1.0, 2.0, 0.5]), tf.constant([1.0, 4.0, 0.5])
    stats = assert_same(checked_update, [(small,)] * 4 + [(big,), (small,), (big,), (small,)],
                        make_state=State)
    assert stats.graph_calls >= 3
