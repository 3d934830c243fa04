"""Python numbers janus feeds to a graph compute as Python computes them, also at the
edges where TF's kernels answer otherwise (graphgen/exact_numbers.py): a zero divisor
raises ZeroDivisionError, ints grow past int64, subnormal floats are not flushed to
zero, float `//` and `%` round as Python's, `**` raises or turns complex as Python's.
Each test compares janus with plain Python call by call; results are compared by
`repr` too (a -0.0 equals 0.0)."""
import math

import numpy as np
import pytest
import tensorflow as tf

import janus
from tests.differential import assert_same


def _calls(*values):
    return [tuple(v) if isinstance(v, tuple) else (v,) for v in values]


def _by_repr(state):
    return repr(state.get("out"))


def _state():
    return {}


def float_ops(s, x, y):
    s["out"] = (x * 0.5, x / y, x - y * 0.5, x + y, -x)
    return s["out"]


def test_subnormal_floats_are_not_flushed_to_zero():
    calls = _calls(*[(0.5 * k, 0.25) for k in range(1, 7)],
                   (1e-310, 2.0), (1e-308, 4.0), (3e-308, 3e-308), (0.5, 3.0))
    stats = assert_same(float_ops, [(c[0], c[1]) for c in calls], _state, observe=_by_repr)
    assert stats.graph_calls >= 4, stats


def divisions(s, x, n):
    s["out"] = (x / n, x // n, x % n)
    return s["out"]


@pytest.mark.parametrize("zero", [0, 0.0])
def test_a_zero_divisor_raises_zero_division_error(zero):
    calls = [(7.5, 2), (3.25, 5), (1.5, 3), (2.5, 7), (9.0, 4), (1.0, zero), (2.0, 3)]
    if isinstance(zero, float):
        calls = [(x, float(n)) for x, n in calls]
    stats = assert_same(divisions, calls, _state, observe=_by_repr)
    assert stats.graph_calls >= 3, stats


def test_float_floor_division_and_modulo_round_as_python():
    calls = [(7.5, 2.0), (3.25, 5.0), (1.0, 0.1), (-2.0, 1.0), (2.0, -1.0), (-7.5, 2.0),
             (0.0, -3.0), (-0.0, 3.0), (5.0, -0.3), (1e308, 1e-308)]
    stats = assert_same(divisions, calls, _state, observe=_by_repr)
    assert stats.graph_calls >= 5, stats


def int_growth(s, n, k):
    big = n * n * n * n * n
    s["out"] = (big, big - k * n, -big, big // k, big % k, (n * n) ** 3, big + 0.5,
                k > 2 ** 64, -2 ** 70 < n, 2 ** 63 == k, k != -2 ** 63 - 1)
    return s["out"]


def test_ints_grow_past_int64_as_in_python():
    calls = [(3, 2), (5, 3), (7, 4), (11, 5), (100000, 7), (2 ** 30, 3), (-2 ** 31, 5), (9, 2)]
    stats = assert_same(int_growth, calls, _state, observe=_by_repr)
    assert stats.graph_calls >= 3, stats


def powers(s, x, y):
    s["out"] = (x ** y, x ** 2, 2.0 ** y)
    return s["out"]


def test_float_powers_raise_and_turn_complex_as_in_python():
    calls = [(1.5, 2.0), (2.5, 0.5), (3.0, 1.5), (0.5, 3.0), (-8.0, 1.0 / 3.0), (0.0, -1.0),
             (10.0, 400.0), (-2.0, 3.0), (1e-200, 2.0), (4.0, 0.5)]
    stats = assert_same(powers, calls, _state, observe=_by_repr)
    assert stats.graph_calls >= 3, stats


def growing_loop(s, x, n, m):
    acc = n
    total = x
    for i in range(m):
        acc = acc * n + i
        total = total * 0.5
    s["out"] = (acc, total)
    return s["out"]


def test_loop_carried_numbers_keep_python_semantics():
    calls = [(1.0, 3, 4), (2.0, 5, 4), (1.5, 7, 4), (3.0, 2, 4), (0.5, 4, 4),
             (1.0, 1000, 4), (1.0, 100000, 5), (1e-300, 3, 40), (2.0, 3, 4)]
    stats = assert_same(growing_loop, calls, _state, observe=_by_repr)
    assert stats.graph_calls >= 3, stats


def test_tensor_operands_keep_tensorflow_semantics():
    """A fed number with a tensor: TF's op, as eagerly (a tensor divided by zero is inf).
    (It passes without exact_numbers too: it guards against checking too much.)"""
    def f(s, x, t):
        s["out"] = float((t / x).numpy())
        return t / x

    calls = [(2.0, tf.constant(1.0)), (4.0, tf.constant(3.0)), (8.0, tf.constant(5.0)),
             (0.5, tf.constant(2.0)), (0.0, tf.constant(1.0)), (3.0, tf.constant(-1.0))]
    assert_same(f, calls, _state, observe=_by_repr)


def sign_of(s, x):
    s["out"] = math.copysign(1.0, x) * 2.0
    return s["out"]


def test_a_float_specialized_to_zero_is_not_taken_for_minus_zero():
    """-0.0 == 0.0: a value guard on 0.0 also checks the sign (graphgen/guards.py); fed,
    -0.0 stays -0.0 (TF's scalar cache returns a cached 0.0 tensor for it)."""
    calls = [(0.0,)] * 6 + [(-0.0,), (0.0,), (1.5,), (-0.0,), (0.0,), (-2.5,), (-0.0,)]
    assert_same(sign_of, calls, _state, observe=_by_repr)


def array_math(s, a, b):
    s["out"] = (a * 0.5 / 3.0 - b, -a, a / b)
    return a * 2.0 + b


def _arrays_by_repr(state):
    return repr([x.tolist() for x in state.get("out", ())])


def test_numpy_array_arithmetic_in_a_graph_is_numpy_s():
    """Fed numpy arrays (graphgen/host_arrays.py): numpy keeps subnormals and divides by
    a constant exactly (TF's graph flushes them and multiplies by the reciprocal)."""
    import numpy as np

    def arrays(*rows):
        return tuple(np.array(r, np.float64) for r in rows)

    calls = [arrays([1.0, 2.5, 7.0], [0.5, 0.25, 4.0])] * 5 + [
        arrays([2.5, 1e-310, -3.0], [1.0, 2.0, 3.0]), arrays([1e-300, 2.0, 1.0], [1e10, 3.0, 7.0]),
        arrays([1.0, -0.0, 2.0], [0.5, 2.0, 0.0]), arrays([7.0, 5.0, 3.0], [1.0, 1.5, 2.5])]
    stats = assert_same(array_math, calls, _state, observe=_arrays_by_repr)
    assert stats.graph_calls >= 3, stats


def episode_physics(s, x, v, steps):
    """Float arithmetic in a loop body, checked at once by range (exact_numbers.by_range)
    until a value leaves the range; then op by op (Plan.precise_floats)."""
    for _ in range(steps):
        v = v + 0.02 * (x * x - v / 3.0)
        x = x * 1.5 - v
    s["out"] = (x, v)
    return x, v


def test_floats_leaving_the_fast_check_range_regenerate_with_precise_checks():
    from tests.differential import Call
    calls = [Call(0.5 + 0.1 * k, 0.25, 3) for k in range(5)]
    calls += [Call(1e-160, 1e-170, 3), Call(1e160, 3.0, 2), Call(1e-300, 1e-310, 2)]
    calls += [Call(0.5 + 0.1 * k, 0.25, 3) for k in range(4)]
    stats = assert_same(episode_physics, calls, _state, observe=_by_repr)
    assert stats.graph_calls >= 5, stats


def each_operation(s, a, b, c):
    s["out"] = (a * b, a / c, b * c + a, a + b, a - b * 0.5)
    return s["out"]


def test_operands_at_the_ends_of_the_fast_check_range():
    """Inside [2**-500, 2**500] every result is Python's; outside it, where a product or
    quotient turns subnormal (TF flushes it to zero), the range check fails and the
    op-by-op checks take over: each result compared by repr with plain Python."""
    calls = [(0.5 + k, 0.25, 3.0) for k in range(4)]
    calls += [(2.0 ** -499, 2.0 ** -499, 2.0 ** 499), (2.0 ** 499, -(2.0 ** 499), 2.0 ** -499),
              (2.0 ** -520, 2.0 ** -530, 2.0 ** 520), (1.5, 2.0, 3.0),
              (2.0 ** -600, 3.0, 2.0 ** 500), (2.0 ** 520, 2.0 ** 520, 1.0),
              (-(2.0 ** -510), 2.0 ** -515, 2.0 ** 530), (0.75, -0.0, 4.0)]
    stats = assert_same(each_operation, calls, _state, observe=_by_repr)
    assert stats.graph_calls >= 3, stats


def squares(s, x, y):
    s["out"] = (x ** 2, (y * 0.5) ** 2.0, x ** 1, y * y)
    return s["out"]


def test_squares_checked_by_their_base_s_range():
    """`x ** 2` of a base in [2**-500, 2**500] is checked with the body's range check
    only (exact_numbers.power_by_range); outside it a square underflows (Python: a
    subnormal, or 0.0) or overflows (OverflowError), and the op-by-op checks decide."""
    calls = [(0.5 + k, 3.0 - k) for k in range(4)]
    calls += [(2.0 ** -499, 2.0 ** 499), (2.0 ** -520, 1.0), (1e-200, 2.0), (1.5, -0.0),
              (1.5e154, 1.0), (2.0, 2.0 ** 600), (-(2.0 ** 499), -(2.0 ** -498)), (0.25, 4.0)]
    stats = assert_same(squares, calls, _state, observe=_by_repr)
    assert stats.graph_calls >= 4, stats


def numpy_squares(s, x):
    v = x.numpy()
    s["out"] = (v ** 2, (v * 0.5) ** 2, v ** 1)
    return float(s["out"][0])


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
def test_numpy_scalar_squares_at_the_ends_of_the_range(dtype):
    import numpy as np
    low = 2.0 ** -60 if dtype == tf.float32 else 2.0 ** -500
    values = [1.5, -2.0, 3.0, 0.5, low, low / 4, 1.0 / low, 1e-30, 1e19, -0.0, 2.5]
    calls = [(tf.constant(v, dtype),) for v in values]
    with np.errstate(all="ignore"):
        stats = assert_same(numpy_squares, calls, _state, observe=_by_repr)
    assert stats.graph_calls >= 4, stats


def array_ranges(s, a, b):
    s["out"] = (a * b - a / 3.0, a * a, (a + b) / b)
    return a - b * 0.5


def test_array_arithmetic_checked_by_its_items_range():
    """Arrays' items checked by range (one check per array, exact_numbers.by_range): at
    the ends of the range the results are numpy's; past them (a product turning
    subnormal, an overflow numpy warns of) the op-by-op checks take over."""
    import numpy as np

    def arrays(*rows):
        return tuple(np.array(r, np.float64) for r in rows)

    calls = [arrays([1.0 + k, 2.5, 7.0], [0.5, 0.25, 4.0 + k]) for k in range(4)] + [
        arrays([2.0 ** -499, 2.0 ** 499, 1.0], [2.0 ** 499, 2.0 ** -499, -1.0]),
        arrays([2.0 ** -520, 1.0, 3.0], [2.0 ** -520, 2.0, 5.0]),
        arrays([1e200, 2.0, 3.0], [1e200, 1.0, 1.0]), arrays([0.0, -0.0, 1.0], [1.0, 2.0, 3.0]),
        arrays([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])]
    with np.errstate(all="ignore"):
        stats = assert_same(array_ranges, calls, _state, observe=_arrays_by_repr)
    assert stats.graph_calls >= 4, stats


def mixed_ranges(s, a, x, d):
    s["out"] = (a * 3.0, a.astype(np.float32), x * 0.5 + 1.0, 2.0 / d)
    return x - d


def test_range_checks_of_every_kind_joined_in_one_check():
    """Array items, a cast to float32 (float32's range), scalar operands and a divisor
    (nonzero) of one dtype: one joined check, each item against its own bounds; each
    kind past its end alone regenerates with op-by-op checks, results numpy's/Python's."""
    def call(a, x, d):
        return (np.array(a, np.float64), x, d)

    calls = [call([1.0 + k, -2.0], 0.5 + k, 4.0) for k in range(4)] + [
        call([2.0 ** 59, -2.0 ** -59], 3.0, 2.0),      # inside float32's range
        call([2.0 ** 61, 1.0], 3.0, 2.0),              # a cast item past it
        call([1.0, 0.0], 2.0 ** -499, 2.0 ** 499),     # scalars at float64's ends
        call([1.0, -0.0], 2.0 ** -505, 3.0),           # a scalar operand past them
        call([1.0, 2.0], 1.0, 0.0),                    # a zero divisor: Python raises
        call([1.0, 2.0], 0.0, 2.0 ** -600),            # a divisor past the range
        call([3.0, 4.0], 1.5, 5.0)]
    with np.errstate(all="ignore"):
        stats = assert_same(mixed_ranges, calls, _state, observe=lambda state: repr(
            [v.tolist() if isinstance(v, np.ndarray) else v for v in state.get("out", ())]))
    assert stats.graph_calls >= 4, stats


def short_circuit(s, t, a):
    x, y = a                                     # numpy float64 scalars, fed
    done = abs(x) > 1.0 or abs(y) > 0.5          # `y`: range-checked outside the branch
    return tf.where(bool(done), t * 2.0, t * 0.5)


def test_a_range_check_of_an_operand_python_may_skip_runs_outside_the_branch():
    """The range check of an outer value read in an `or`'s later operand joins the
    enclosing graph's (it only regenerates with op-by-op checks where it fails, also where
    Python would not have read the value): results Python's either way, and no check is
    left in the branch."""
    values = [(8.0, 0.25), (9.0, 0.75), (0.5, 0.25), (0.25, 0.75), (16.0, 1e-200),
              (0.5, 1e-200), (3.0, 2.0 ** -499), (0.1, 0.6), (0.0, -0.0), (5.0, 0.3)]
    calls = [(tf.constant([1.0, 2.0]), np.array(v)) for v in values]
    stats = assert_same(short_circuit, calls, _state, observe=_by_repr)
    assert stats.graph_calls >= 4, stats
    fn = janus.jit(short_circuit)  # (values in the range: one graph, fast checks)
    assert_same(short_circuit, calls[:4] * 2, _state, observe=_by_repr, jitted=fn)
    graph = fn.specializations[-1].concrete.graph
    branches = [f for f in graph.as_graph_def().library.function
                if "cond" in f.signature.name and ("false" in f.signature.name or
                                                   "true" in f.signature.name)]
    assert branches and not any(node.op == "CheckNumerics" for f in branches
                                for node in f.node_def), [f.signature.name for f in branches]
