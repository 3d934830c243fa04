"""`math` functions and numpy scalar arithmetic on values janus feeds to a graph compute
as Python and numpy do (graphgen/number_functions.py, host_scalars.py): the same floats,
the same numpy scalar types, the same errors (ValueError, OverflowError) and where
numpy warns, the same result after a plain rerun. Each test compares janus with plain
Python call by call, results by `repr` too."""
import math

import numpy as np
import tensorflow as tf

from tests.differential import assert_same


def _state():
    return {}


def _by_repr(state):
    return repr(state.get("out"))


def pendulum(s, t, force):
    theta = tf.reduce_sum(t).numpy()           # a numpy float64 scalar, in the graph
    cos, sin = math.cos(theta), math.sin(theta)
    temp = (force + 0.05 * theta * theta * sin) / 1.1
    acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos * cos / 1.1))
    s["out"] = (temp, acc, abs(theta), -theta, math.sqrt(abs(temp)), math.exp(temp),
                math.tanh(acc), math.log1p(abs(acc)), type(temp).__name__)
    return t * float(acc)


def _pendulum_calls(*thetas):
    return [(tf.constant([th, 0.0], tf.float64), f) for th, f in thetas]


def test_math_of_numpy_scalars_as_python_computes_it():
    calls = _pendulum_calls(*[(0.01 * k, 10.0) for k in range(6)], (0.3, -10.0),
                            (1e-310, 10.0), (-0.2, 1e308), (0.0, 10.0), (0.1, 5.0))
    stats = assert_same(pendulum, calls, _state, observe=_by_repr)
    assert stats.graph_calls >= 4, stats


def domain(s, x, y):
    s["out"] = (math.sqrt(x), math.log(y), math.exp(x), math.cos(y), math.atan(x))
    return s["out"]


def test_math_domain_and_range_errors_are_python_s():
    """(Before number_functions.py janus ran these calls plainly, so this passed too; it
    guards the errors of the graph path now taken.)"""
    calls = [(2.0, 3.0), (4.0, 5.0), (9.0, 0.5), (1.5, 2.5), (0.25, 1.0), (-1.0, 2.0),
             (2.0, 0.0), (800.0, 2.0), (float("inf"), 2.0), (3.0, float("nan")), (1.0, 7.0)]
    stats = assert_same(domain, calls, _state, observe=_by_repr)
    assert stats.graph_calls >= 3, stats


def scalars32(s, t, u):
    a = tf.reduce_max(t).numpy()    # np.float32
    b = tf.reduce_min(u).numpy()    # np.float64
    s["out"] = (a * 0.1, a + 3, 0.5 - a, a / 7.0, a * a, a + b, b / a, -a, abs(a),
                type(a * 0.1).__name__, type(a + b).__name__, a ** 2, b ** 0.5, 2.0 ** b,
                type(b ** 3).__name__)
    return s["out"]


def test_numpy_scalar_arithmetic_keeps_numpy_s_types_and_values():
    def call(x, y):
        return (tf.constant([x, 0.5], tf.float32), tf.constant([y, 9.0], tf.float64))
    calls = [call(1.5 + k, 2.0 + k) for k in range(6)] + [
        call(1e-39, 2.0), call(3e38, 2.0), call(2.5, 1e-310), call(0.0, 1.0), call(2.0, 3.0),
        call(1e20, 1100.0), call(-2.0, 4.0)]  # (no nan: the snapshot compares by ==)
    stats = assert_same(scalars32, calls, _state, observe=_by_repr)
    assert stats.graph_calls >= 3, stats


def test_numpy_warnings_rerun_plainly_with_the_same_results():
    """(Passes without the feature too, where janus ran the function plainly.)"""
    def overflow(s, t):
        big = tf.reduce_max(t).numpy()
        s["out"] = (big * 1e300, big / 0.5)
        return s["out"]

    calls = [(tf.constant([2.0, 1.0], tf.float64),)] * 5 + [
        (tf.constant([1e300, 1.0], tf.float64),), (tf.constant([3.0, 1.0], tf.float64),)]
    with np.errstate(over="ignore"):
        assert_same(overflow, calls, _state, observe=_by_repr)
    with np.errstate(over="raise"):  # FloatingPointError, as numpy raises it
        assert_same(overflow, calls, _state, observe=_by_repr)


class Cart:
    def __init__(self):
        self.state = np.array([0.01, -0.02, 0.03, 0.04])
        self.steps = 0


def cart_step(s, action):
    """A CartPole step as numpy environments write it (models/envs.py), `action` fed."""
    x, x_dot, theta, theta_dot = s.state
    force = 10.0 if action == 1 else -10.0
    cos, sin = math.cos(theta), math.sin(theta)
    temp = (force + 0.05 * theta_dot * theta_dot * sin) / 1.1
    theta_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos * cos / 1.1))
    x_acc = temp - 0.05 * theta_acc * cos / 1.1
    s.state = np.array([x + 0.02 * x_dot, x_dot + 0.02 * x_acc, theta + 0.02 * theta_dot,
                        theta_dot + 0.02 * theta_acc])
    s.steps += 1
    return np.array([x, theta, 0.5]).astype(np.float32), s.state[2], type(s.state[0]).__name__


def test_a_numpy_environment_step_runs_in_the_graph_as_numpy_computes_it():
    calls = [(1,)] * 7 + [(0,)] * 7
    stats = assert_same(cart_step, calls, Cart, observe=lambda c: repr(c.state.tolist()))
    assert stats.graph_calls >= 8, stats


def bounded(s, x):
    s["out"] = (math.cos(x), math.sin(x), math.tan(x), math.atan(x), math.tanh(x),
                math.fabs(x))
    return s["out"]


def test_bounded_functions_of_arguments_at_the_ends_of_the_range():
    """cos, sin, tan, atan, tanh, fabs of an argument in [2**-500, 2**500] are checked by
    its range only (number_functions._NORMAL_IN_RANGE); past the ends (a subnormal sin,
    an inf: ValueError) the op-by-op checks decide."""
    calls = [(0.5 + k,) for k in range(4)] + [
        (2.0 ** -499,), (-(2.0 ** 499),), (1e-310,), (2.0 ** -520,), (1e300,), (-0.0,),
        (float("inf"),), (6381956970095103.0 * 2.0 ** 797,), (math.pi / 2,), (1.25,)]
    stats = assert_same(bounded, calls, _state, observe=_by_repr)
    assert stats.graph_calls >= 4, stats


class Schedule:
    def __init__(self):
        self.eps, self.lr, self.step = 1.0, 0.5, 0
        self.out = None


def schedules(s, x, floor):
    s.step += 1
    s.eps = max(0.05, s.eps * 0.7)                 # an epsilon schedule
    s.lr = min([s.lr * 1.5, 2.0, s.lr + 0.25])     # a list, first of equals wins
    s.out = (max(floor, -0.0, s.eps - 0.5), min(s.step, 4, 7), max(s.step, 3),
             type(s.eps).__name__)
    return x * s.eps + s.lr


def test_max_and_min_of_fed_numbers_keep_one_graph_for_a_schedule():
    """`eps = max(0.05, eps * 0.7)`: the number is fed, not a graph per value (zoo: a
    weight-EMA schedule generated up to the limit); Python's fold, signed zeros and
    nans included, by repr."""
    calls = [(tf.constant([1.0, 2.0]), f) for f in
             (0.0, 0.0, 0.0, 0.0, -0.0, 0.0, float("nan"), 0.0, 0.0, 0.0, 0.0, 0.0)]
    stats = assert_same(schedules, calls, Schedule, observe=lambda s: repr(s.out))
    assert stats.graph_calls >= 6 and stats.generations <= 4, stats


def mixed_types(s, x, n):
    s.out = max(n, 0.5)   # an int or a float, whichever wins: not fed as one type
    return x * 2.0


def test_max_of_an_int_and_a_float_keeps_python_s_type():
    calls = [(tf.constant(1.0), n) for n in (0, 1, 2, 0, 3, 0)]
    assert_same(mixed_types, calls, Schedule, observe=lambda s: repr(s.out))


NEG_INF = -math.inf


class Tracker:
    def __init__(self):
        self.best = float("inf")
        self.out = None


def extremes_past_the_ints(s, x, val, epoch_start):
    """A best-loss tracker reset to inf, a logsumexp's running max from -inf, nans: items
    with no int value (their int bound was computed, int(inf) raised inside janus)."""
    if epoch_start:
        s.best = float("inf")
    s.best = min(s.best, val)
    m = max(NEG_INF, val, val / 2)
    s.out = (max(val, -float("inf")), min(val, math.inf, 3.0), max([val, 2 * val, NEG_INF]),
             max(val, float("nan")), min(float("nan"), val), min(val, float("nan"), 0.1),
             m + math.log(math.exp(val - m) + math.exp(val / 2 - m)), s.best)
    return x * m


def test_max_and_min_with_an_inf_or_a_nan_item_fold_as_python_does():
    calls = [(tf.constant([1.0, 2.0]), 1.0 / (k + 1), k % 4 == 0) for k in range(12)]
    stats = assert_same(extremes_past_the_ints, calls, Tracker, observe=lambda s: repr(s.out))
    assert stats.graph_calls >= 6, stats


def bool_extremes(s, x, n):
    hi, lo = max(n > 3, n > 5), min([n > 1, True, n > 2])
    s.out = (hi, lo, type(hi).__name__, max(n > 6, False, n > 4), lo == 1)
    return x * max(n > 3, n > 5)


def test_max_and_min_of_fed_bools_are_python_s_bools():
    """TF compares no bool tensors (its greater/less raised TypeError inside janus);
    Python compares them as 0/1 and returns the winning bool."""
    calls = [(tf.constant([1.0, 2.0]), n) for n in (0, 4, 2, 6, 7, 3, 5, 1, 8, 0)]
    stats = assert_same(bool_extremes, calls, Schedule, observe=lambda s: repr(s.out))
    assert stats.graph_calls >= 5, stats


# -- math tests, rounding to ints, copysign, fmod and divmod of fed numbers (F358) -------

def lr_tests(s, x, lr):
    s["out"] = (math.isnan(lr), math.isinf(lr), math.isfinite(lr), math.copysign(2.0, lr),
                math.fmod(lr, 0.3), divmod(lr, 0.25))
    return x * (0.0 if math.isnan(lr) else lr)


def test_math_tests_copysign_fmod_divmod_of_a_fed_float_keep_one_graph():
    calls = [(tf.constant([1.0, 2.0]), 0.1 * (i + 1) * (-1) ** i) for i in range(14)]
    stats = assert_same(lr_tests, calls, _state, observe=_by_repr)
    assert stats.internal_errors == 0 and stats.generations <= 2, stats
    assert stats.graph_calls >= 12, stats
    edges = [(tf.constant([1.0, 2.0]), v) for v in (-0.0, float("nan"), float("inf"), 0.5)]
    stats = assert_same(lr_tests, calls[:6] + edges, _state, observe=_by_repr)
    assert stats.internal_errors == 0, stats


def to_ints(s, x, k):
    s["out"] = (math.floor(k), math.ceil(k), math.trunc(k), math.fmod(1.0, k))
    return x * math.floor(k)


def test_floor_ceil_trunc_and_their_errors_are_python_s():
    calls = [(tf.constant([1.0]), 0.7 * i - 4.3) for i in range(13)]
    stats = assert_same(to_ints, calls, _state, observe=_by_repr)
    assert stats.internal_errors == 0 and stats.generations <= 2, stats
    assert stats.graph_calls >= 10, stats
    edges = [(tf.constant([1.0]), v) for v in (float("nan"), float("inf"), 1e300, 0.0, 2.5)]
    stats = assert_same(to_ints, calls[:5] + edges, _state, observe=_by_repr)  # (errors:
    assert stats.internal_errors == 0, stats  # ValueError, OverflowError, fmod by 0.0)


def int_divmod(s, x, n):
    q, r = divmod(n, 7)
    s["out"] = (q, r, divmod(100, n) if n else None, math.floor(n), math.isnan(n))
    return x * r


def test_divmod_of_fed_ints_is_python_s():
    calls = [(tf.constant([1.0]), 5 * i - 31) for i in range(14)]
    stats = assert_same(int_divmod, calls, _state, observe=_by_repr)
    assert stats.internal_errors == 0 and stats.generations <= 3, stats
    assert stats.graph_calls >= 10, stats
