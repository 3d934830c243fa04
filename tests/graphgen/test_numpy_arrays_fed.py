"""numpy arrays a graph reads are fed on every call, never folded in as constants.

A graph that took an array's values at trace time (guarded only by the array's
identity) returned stale results once the array changed in place between calls
(finding F16: `W[0] = i` on a global, `s.a[1] = i` on an attribute, `arr[2] = i` on
an argument). Every test compares janus with plain Python after every call.
"""
import numpy as np
import tensorflow as tf

import janus
from tests.differential import assert_same

W = np.ones(3, np.float32)
ARR = np.full(3, 2.0, np.float32)


class State:
    def __init__(self):
        self.a = np.ones(3, np.float32)
        self.step = 0


def reads_arrays(s, x, arr):
    return x * W + tf.reduce_sum(s.a) + x * arr


def _call(i):
    def call(s):
        W[0] = i          # a global, changed in place
        s.a[1] = i        # an attribute's array, changed in place
        ARR[2] = i        # the argument (the same array on every call)
        return (s, tf.constant([1.0, 2.0, 3.0]), ARR)
    return call


def test_arrays_changed_in_place_between_calls_are_read_afresh():
    W[:] = 1.0
    jitted = janus.jit(reads_arrays, profile_calls=2)
    stats = assert_same(reads_arrays, [_call(i) for i in range(7)], make_state=State,
                        jitted=jitted)
    assert stats.graph_calls >= 3  # the steady state ran as graphs, with fresh values


def test_the_same_argument_array_mutated_between_calls():
    arr = np.zeros(4, np.float32)

    def scaled(x, a):
        return x * a + 1.0

    jitted = janus.jit(scaled, profile_calls=2)
    x = tf.ones(4)
    for i in range(6):
        arr[i % 4] = float(i + 1)
        np.testing.assert_allclose(jitted(x, arr).numpy(), scaled(x, arr).numpy())
    assert janus.stats(jitted).graph_calls >= 3


def test_an_array_janus_cannot_feed_runs_the_call_plainly():
    box = np.array(2.0, np.float32)  # 0-d: its value is read, not fed

    def uses_zero_d(x):
        return x * box

    jitted = janus.jit(uses_zero_d, profile_calls=2)
    x = tf.ones(2)
    for i in range(5):
        box[()] = float(i)
        np.testing.assert_allclose(jitted(x).numpy(), uses_zero_d(x).numpy())
