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


# -- a fed Python int indexing a fed array (probe h2 g05b: one graph per t before, F345)

SCHEDULE = np.linspace(0.1, 0.9, 10).astype(np.float32)


class Schedules:
    def __init__(self):
        self.abar = np.cumprod(1 - np.linspace(1e-4, 0.2, 20)).astype(np.float32)
        self.betas = np.linspace(1e-4, 0.2, 20)           # float64
        self.table = np.arange(30, dtype=np.float32).reshape(10, 3)
        self.ids = np.arange(10, dtype=np.int64) * 3


def noised(s, x0, noise, t):
    """A diffusion training step's schedule read: `abar[t]` for a random t per call."""
    ab = s.abar[t]
    xt = tf.sqrt(ab) * x0 + tf.sqrt(1.0 - ab) * noise
    return xt, float(ab), ab * 2.0, 1.0 - ab, s.betas[t] * 0.5


def rows(s, x, t):
    return x * s.table[t], s.table[t, 1] + x, s.table[-t, 2], s.ids[t]


def global_schedule(s, x, t):
    return x * SCHEDULE[-t]


def _indexed_calls(ts, writes=False):
    def call(t, k):
        def make(s):
            if writes:  # the arrays change in place between calls: read afresh
                s.abar[5] = 0.5 * k
                s.table[2, 1] = k
            return (s, tf.constant([1.0, 2.0, 3.0]), tf.constant([0.5, -0.5, 1.0]), t)
        return make
    return [call(t, k) for k, t in enumerate(ts)]


def _two_args(calls):
    return [lambda s, c=c: c(s)[:2] + c(s)[3:] for c in calls]


_TS = [3, 7, -2, 5, 19, 0, 11, -20, 4, 13, 1, 8, 17, 6, 2, 15, 9, 14]


def test_a_per_call_int_index_of_a_fed_array_keeps_one_graph():
    for writes in (False, True):
        stats = assert_same(noised, _indexed_calls(_TS, writes), make_state=Schedules)
        assert stats.generations <= 3 and stats.graph_calls >= len(_TS) - 4, stats


def test_rows_and_items_of_a_2d_array_by_a_per_call_int():
    ts = [t % 10 for t in _TS]
    for writes in (False, True):
        stats = assert_same(rows, _two_args(_indexed_calls(ts, writes)),
                            make_state=Schedules)
        assert stats.generations <= 3 and stats.graph_calls >= len(ts) - 4, stats


def test_a_module_array_indexed_by_a_per_call_int():
    ts = [t % 10 for t in _TS]
    stats = assert_same(global_schedule, _two_args(_indexed_calls(ts)), make_state=Schedules)
    assert stats.generations <= 3 and stats.graph_calls >= len(ts) - 4, stats


def test_an_out_of_range_per_call_index_raises_as_numpy_does():
    ts = [3, 7, 5, 20, 9, -21, 4, 100, 2, 6]  # IndexError at 20, -21 and 100
    stats = assert_same(noised, _indexed_calls(ts), make_state=Schedules)
    assert stats.generations <= 3 and stats.graph_calls >= 4, stats


def grows_past_the_schedule(s, x):
    """`abar[len(s.hist)]`: an index janus keeps as a guarded constant, out of range
    once the list has grown (numpy's IndexError, not janus's own error: fuzz v76 31033)."""
    s.hist.append(1)
    return x * s.abar[len(s.hist) + 14], s.table[len(s.hist) + 5, 0] * 2.0


def test_an_index_out_of_range_at_trace_time_raises_as_numpy_does():
    def make():
        state = Schedules()
        state.hist = []
        return state
    stats = assert_same(grows_past_the_schedule, [(tf.constant([1.0, 2.0]),)] * 9,
                        make_state=make)
    assert stats.internal_errors == 0, stats
