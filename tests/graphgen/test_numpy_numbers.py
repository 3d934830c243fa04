"""numpy scalars the function reads (an `np.float32` learning rate, an `np.int64` action
or label, `list(rng.randint(...))`): guarded by value, and fed to the graph as the numpy
scalar they are (graphgen/host_scalars.HostScalar) once their values change, by role
across a list's items too. They were guarded by identity: a new np.float32(0.1) on every
call failed the guard, a graph per call (zoo p29). Each test compares janus with plain
Python call by call."""
import warnings

import numpy as np
import tensorflow as tf

import janus
from tests.differential import assert_same


class State:
    def __init__(self):
        self.hist = []
        self.w = tf.Variable([1.0, -2.0])


def step(s, x, lr, action):
    s.w.assign_sub(lr * x)  # (numpy's float32 times a tensor)
    scaled = lr * 2.0 + 1.0  # (numpy arithmetic: an np.float32 after the run)
    s.hist.append((scaled, action))
    return tf.reduce_sum(s.w) * float(action), action  # (`action * 2`: numpy's int
    # arithmetic, which janus does not emulate, keeps it guarded)


def test_numpy_scalars_made_anew_every_call_with_the_same_values_are_one_graph():
    calls = [(tf.constant([0.5, 1.0]), np.float32(0.1), np.int64(2)) for _ in range(8)]
    stats = assert_same(step, calls, make_state=State)
    assert stats.internal_errors == 0 and stats.generations <= 2, stats  # (s.hist grows)


def test_numpy_scalars_whose_values_change_are_fed():
    jitted = janus.jit(step)
    calls = [(tf.constant([0.5, 1.0]), np.float32(0.1 * (i % 5 + 1)), np.int64(i)) for i in
             range(12)]
    stats = assert_same(step, calls, make_state=State, jitted=jitted)
    assert stats.internal_errors == 0 and stats.generations <= 3, stats
    fed = jitted.plan.describe()
    assert {"number args[2] is fed as a scalar tensor",
            "number args[3] is fed as a scalar tensor"} <= set(fed), fed


def total(x, labels):
    out = x
    for label in labels:  # (np.int64 items: `list(rng.randint(...))`)
        out = out + tf.cast(label, x.dtype) * 0.5
    return out, [float(label) + 1.0 for label in labels]


def test_a_list_of_numpy_ints_whose_items_change_is_fed_by_role():
    rng = np.random.RandomState(0)
    calls = [(tf.constant([1.0]), list(rng.randint(0, 9, 3))) for _ in range(10)]
    stats = assert_same(total, calls)
    assert stats.internal_errors == 0 and stats.generations <= 3, stats


def signed(x, z):
    return x / z if np.signbit(z) else x * 2.0


def test_a_numpy_zero_keeps_its_sign():
    calls = [(tf.constant([1.0]), z) for z in
             (np.float32(0.0), np.float32(-0.0), np.float32(0.0), np.float32(-0.0)) * 2]
    assert_same(signed, calls)


# -- np.float64 numbers are fed as float64 scalars (F359) --------------------------------

class Totals:
    def __init__(self):
        self.total = np.float64(0.0)
        self.seen = []


def np_float64_step(s, x, lr):
    s.total = s.total + 1.5 * lr  # (numpy's float64 arithmetic: an np.float64 after it)
    s.seen.append(lr * 2.0)
    return x * lr, lr, s.total  # (the tensor converts lr to float32, as TF does)


def test_np_float64_learning_rates_and_heap_totals_are_fed_not_guarded_per_value():
    calls = [(tf.constant([1.0, 2.0]), np.float64(0.1 * (i + 1))) for i in range(14)]
    stats = assert_same(np_float64_step, calls, make_state=Totals)
    assert stats.internal_errors == 0 and stats.generations <= 2, stats
    assert stats.graph_calls >= 10, stats


def np_float64_compare(s, x, lr):
    if lr > 0.5:  # (a test on the fed scalar: numpy's bool, in the graph)
        return x * 2.0, float(lr) + 1.0
    return x - lr, -lr


def test_np_float64_compared_and_converted_as_numpy_does():
    calls = [(tf.constant([1.0], tf.float64), np.float64(0.13 * i)) for i in range(14)]
    stats = assert_same(np_float64_compare, calls, make_state=Totals)
    assert stats.internal_errors == 0 and stats.generations <= 3, stats  # (a branch each)
    assert stats.graph_calls >= 8, stats


def np_int_step(x, step, d):
    warm = x * tf.minimum(1.0, (step + 1) / 5)       # a warm-up from an np.int64 step
    return warm, step + 1, step - 3, step * 2, step // 3, step % 3, 7 - step, 10 // (step + 1), \
        step * 0.5, step // d, step % d, d / 2


def test_np_int_arithmetic_is_fed_with_numpy_semantics():
    """(F392) numpy int scalars in arithmetic were guarded per value (a graph per step):
    now numpy's int64/int32 arithmetic in the graph (floor division and modulo, `/` as
    float64), checked not to wrap; a zero divisor or an overflow runs the call plainly."""
    x = tf.constant([1.0, 2.0])
    calls = [(x, np.int64(i - 4), np.int64(i % 4 + 1)) for i in range(12)] + [
        (x, np.int64(3), np.int64(0)),                     # a zero divisor: numpy warns
        (x, np.int64(2 ** 63 - 1), np.int64(2)),           # step + 1 wraps: numpy warns
        (x, np.int64(-2 ** 63), np.int64(-1))] + [          # step // -1 wraps too
        (x, np.int32(i), np.int32(i % 3 + 1)) for i in range(8)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        stats = assert_same(np_int_step, calls)
    assert stats.graph_calls >= 14
