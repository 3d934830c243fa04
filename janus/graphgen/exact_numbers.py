"""Python's and numpy's arithmetic on fed values, where TensorFlow's kernels differ.

A Python number janus feeds to a graph (`values.SymbolicScalar`) is a 0-d int64 or
float64 tensor. TF's ops agree with Python's arithmetic except at the edges; there the
graph must not give another answer, so it fails instead (one `CheckNumerics` op per
graph, loop body or branch raises: the call reruns plainly, where Python raises or
computes its own result):

    a + b, a * b, -a ...     (ints)     int64 wraps, Python ints grow: overflow checked
                                        unless the operands' static bounds rule it out
    a / b, a // b, a % b                Python raises ZeroDivisionError (TF: inf, nan):
                                        divisor checked != 0
    a + b, a * b, a / b ...  (floats)   TF flushes subnormal numbers to zero, Python
                                        keeps them: a zero result checked to be exact
                                        (`a == -b` for `a + b`...), fed floats checked
                                        normal (from their bits: TF's comparisons read a
                                        subnormal as zero); so, by induction, every
                                        operand is normal or zero
    x / 7.0, x * c1 * c2                Grappler folds a constant divisor into a reciprocal
                                        and regroups constant factors: constants hidden
    a // b, a % b            (floats)   computed as Python does (fmod, then floor):
                                        1 // 0.1 == 9.0, -2.0 % 1.0 == 0.0 (TF: 10.0, -0.0)
    a ** b                   (floats)   Python raises or returns a complex number where TF
                                        gives nan/inf: checked; refused in a batched loop
                                        (a vectorized pow rounds otherwise)
    int and float mixed                 exact only below 2**53: the int checked

numpy arithmetic on fed float arrays (graphgen/host_arrays.py) is checked the same way
(`array_arithmetic`), also where numpy would warn (overflow, invalid, a zero divisor).

Scalars and arrays' items are first checked by range instead, far fewer ops: where every
operand of +, -, *, / is zero or of magnitude in [2**-500, 2**500] (float32: [2**-60,
2**60]) and every divisor nonzero, no result can be subnormal, overflow or divide by zero,
so each is what Python and numpy compute (elementwise, the same for arrays). One check per
graph, loop body or branch (`in_range` over all scalar operands stacked, one per array);
a value outside the range fails it with `RANGE_MESSAGE`, the call reruns plainly and
janus regenerates with the op-by-op checks (`Plan.precise_floats`). Sums of items in the
range need no check per add either (`items_by_range`, graphgen/float_sums.py).

Each check is a boolean the trace keeps until the graph being built ends (graphgen/
checks.py: `require`, `require_each`, `require_range`...). `bound` is a static upper bound
of an int's magnitude (None: unknown); a fed int is guarded to fit int32, a `range` item
is within its range's ends.
"""
from __future__ import annotations

import math
from fractions import Fraction

import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen import active
from janus.graphgen.checks import (FAST_RANGE, FLOAT_BITS, cached, in_range,
                                    nonzero_in_range, require, require_each, require_range,
                                    scalar)

INT_LIMIT = 2 ** 62  # an int product checked below it (as a float64 estimate) is exact
EXACT_FLOAT_INT = 2 ** 53  # ints a float64 holds exactly
FED_INT_BOUND = 2 ** 31  # a fed int is guarded to fit int32
INT64_MIN = -2 ** 63
_TINY = 2.2250738585072014e-308  # the smallest normal float64
_SMALL_DIVISOR = 2.0 ** -900  # fmod by a larger divisor never has a subnormal remainder
def by_range(op: str, operands: tuple, dtype: tf.DType) -> bool:
    """Check `op`'s operands (tensors of `dtype` or Python numbers) by range instead of
    its result (see the module docstring); False where that cannot be: the plan asks for
    op-by-op checks, another op, a constant out of the range, or no trace."""
    tracer = active.get()
    if tracer is None or tracer.plan.precise_floats or dtype not in FAST_RANGE or \
            op not in _FLOAT_OPS:
        return False
    low, high = FAST_RANGE[dtype]
    divisor = 1 if op == "truediv" else None
    for i, v in enumerate(operands):
        if isinstance(v, (int, float)) and not (
                low <= abs(v) <= high or v == 0 and i != divisor):
            return False
    for i, v in enumerate(operands):
        if not isinstance(v, (int, float)):  # (an array's items: elementwise, the same)
            require_range(nonzero_in_range if i == divisor else in_range, v)
    return True


def items_by_range(x: tf.Tensor, of: tf.DType | None = None) -> bool:
    """Check every item of the float tensor `x` by range (the range of dtype `of`, x's
    own by default; with the graph's other range checks: a failure regenerates with
    op-by-op checks); False where that cannot be (the plan asks for op-by-op checks, no
    trace gathers the checks, another dtype). Sums of such items need no check of their
    own (graphgen/float_sums.py): each is a multiple of 2**-552 (float32: 2**-83), so a
    nonzero sum is normal, and below 2**31 of them cannot overflow; float64 items in
    float32's range cast to normal, finite float32s."""
    tracer = active.get()
    of = x.dtype if of is None else of
    if tracer is None or tracer.plan.precise_floats or x.dtype not in FAST_RANGE or \
            of not in FAST_RANGE:
        return False
    require_range(in_range, x, None if of == x.dtype else of)
    return True


def power_by_range(base, exponent) -> bool:
    """Check `base ** exponent` (a float scalar tensor, the Python number 1 or 2) by the
    range of base (see `by_range`): in range, base * base is far from the subnormals and
    from overflow, so C's pow (TF's kernel and Python's alike) gives a normal, finite
    result and nothing to refuse; False where that cannot be."""
    return type(exponent) in (int, float) and exponent in (1, 2) and \
        tf.is_tensor(base) and base.shape.rank == 0 and items_by_range(base)


def opaque_constant(value: float, dtype: tf.DType = tf.float64) -> tf.Tensor:
    """A Python float operand Grappler cannot fold: its constant folding turns `x / c`
    into `x * (1 / c)` and regroups `(x * c1) * c2`, which round otherwise
    (2.5 / 7 gave 0.3571428571428571, Python 0.35714285714285715)."""
    return cached(value, dtype, lambda: tf.raw_ops.PlaceholderWithDefault(
        input=tf.constant(value, dtype), shape=[]), "opaque")


def in_batched_loop() -> bool:
    """Inside `tf.vectorized_map`'s body (graphgen/general.py's batched loops)."""
    return "loop_body" in tf.compat.v1.get_default_graph().get_name_scope().split("/")


# -- Python numbers ----------------------------------------------------------------------

def arithmetic(op: str, a, b, a_bound, b_bound, work: type, whole_divisor: bool = False):
    """`a <op> b` as Python computes it, both operands already of `work`'s dtype (int64
    or float64; a Python number operand as it is; `whole_divisor`: `b` is a Python int).
    Returns (tensor, bound)."""
    if work is int:
        return _int_arithmetic(op, a, b, _bound_of(a, a_bound), _bound_of(b, b_bound))
    return _float_arithmetic(op, a, b), float_bound(
        op, _float_bound_of(a, a_bound), _float_bound_of(b, b_bound), b, whole_divisor)


def float_bound(op: str, a_bound, b_bound, b, whole_divisor: bool = False) -> int | None:
    """A bound of the magnitude of the float `a <op> b` (None: unknown) from its
    operands' (`n / 4` of a dimension n: `range(math.ceil(n / 4))` has a bound, F370),
    with a margin for the rounding: a quotient's by a constant `b` or an int (at least 1
    in magnitude: a zero raises)."""
    if a_bound is None or op == "pow":
        return None
    if op in ("truediv", "floordiv"):
        # (the least magnitude of the divisor: a constant's own, a fed int's 1)
        least = b_bound if isinstance(b, (int, float)) else 1 if whole_divisor else None
        if not least:
            return None
        exact = a_bound / least + (op == "floordiv")
    elif b_bound is None:
        return None
    else:
        exact = {"add": a_bound + b_bound, "sub": a_bound + b_bound,
                 "mul": a_bound * b_bound, "mod": b_bound}[op]
    return math.ceil(exact * (1 + Fraction(1, 2 ** 50))) + 1


def rounded_bound(bound) -> int:
    """The bound of an int rounded from a float of magnitude bound `bound` (floor, ceil,
    trunc, round: one more), or INT_LIMIT (the rounding is checked below it)."""
    return INT_LIMIT if bound is None else min(bound + 1, INT_LIMIT)


def _float_bound_of(value, bound):
    """A float operand's magnitude bound, exact (a Fraction; a constant's: itself)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (bool, int, float)):
        return Fraction(abs(value))
    return None if bound is None else Fraction(bound)


def _bound_of(value, bound):
    if isinstance(value, (bool, int)):
        return abs(int(value))
    return bound


def _int_bound(op: str, a_bound, b_bound):
    if a_bound is None or b_bound is None:
        return None
    return {"add": a_bound + b_bound, "sub": a_bound + b_bound, "mul": a_bound * b_bound,
            "floordiv": a_bound + 1, "mod": b_bound}[op]


def _int_arithmetic(op, a, b, a_bound, b_bound):
    if any(isinstance(v, int) and abs(v) >= INT_LIMIT for v in (a, b)):
        raise ConversionError("arithmetic of a Python int janus feeds with an int constant "
                              "beyond 2**62")
    if op == "pow":
        return _int_pow(a, b, a_bound)
    ta, tb = (tf.constant(v, tf.int64) if isinstance(v, int) else v for v in (a, b))
    bound = _int_bound(op, a_bound, b_bound)
    if bound is not None and bound < 2 ** 63:
        return _INT_OPS[op](ta, tb), bound
    if op in ("floordiv", "mod"):  # (TF raises for a zero divisor itself; INT64_MIN // -1
        ok = tf.logical_not(tf.logical_and(tf.equal(ta, INT64_MIN), tf.equal(tb, -1)))
        require(ok)  # must not run: it traps)
        return _INT_OPS[op](tf.where(ok, ta, tf.zeros_like(ta)), tb), None
    result = _INT_OPS[op](ta, tb)
    constant = b if isinstance(b, int) else a if isinstance(a, int) and op == "add" else None
    if constant is not None and op in ("add", "sub"):  # `n + 1`: one comparison
        other = ta if constant is b else tb
        grows = constant > 0 if op == "add" else constant < 0
        if constant:
            require(result > other if grows else result < other)
        return result, None
    if op == "add":  # overflow: both operands' signs differ from the result's
        wrapped = tf.bitwise.bitwise_and(tf.bitwise.bitwise_xor(ta, result),
                                         tf.bitwise.bitwise_xor(tb, result)) < 0
    elif op == "sub":
        wrapped = tf.bitwise.bitwise_and(tf.bitwise.bitwise_xor(ta, tb),
                                         tf.bitwise.bitwise_xor(ta, result)) < 0
    else:  # a product: exact when its float64 estimate is below 2**62
        estimate = tf.cast(ta, tf.float64) * tf.cast(tb, tf.float64)
        require(tf.abs(estimate) < INT_LIMIT)
        return result, INT_LIMIT
    require(tf.logical_not(wrapped))
    return result, None


_INT_OPS = {"add": tf.add, "sub": tf.subtract, "mul": tf.multiply,
            "floordiv": tf.math.floordiv, "mod": tf.math.floormod}


def _int_pow(a, b, a_bound):
    if not (type(b) is int and 0 <= b <= 64) or isinstance(a, int):
        raise ConversionError("a power of a Python int that changes per call other than "
                              "`n ** c` with a constant c from 0 to 64 (its result may be a "
                              "float or any size)")
    result = tf.pow(a, tf.constant(b, tf.int64))
    bound = None if a_bound is None else a_bound ** b
    if bound is None or bound >= INT_LIMIT:
        require(tf.abs(tf.cast(a, tf.float64)) ** b < INT_LIMIT)
        bound = INT_LIMIT
    return result, bound


def negate(tensor: tf.Tensor, kind: type, bound):
    """`-a` (an int: checked unless its bound rules out -INT64_MIN)."""
    if kind is int and (bound is None or bound >= 2 ** 63):
        require(tf.not_equal(tensor, INT64_MIN))
    return -tensor, bound


def _float_arithmetic(op, a, b):
    for v in (a, b):
        if isinstance(v, float) and v != 0.0 and abs(v) < _TINY:
            raise ConversionError("arithmetic of a Python float janus feeds with a "
                                  "subnormal constant (TensorFlow reads it as zero)")
    if op in ("truediv", "floordiv", "mod") and isinstance(b, (int, float)) and b == 0:
        raise ConversionError("a division by a zero constant (Python raises "
                              "ZeroDivisionError on every call)")
    ta, tb = (opaque_constant(v) if isinstance(v, (int, float)) else v for v in (a, b))
    if op == "pow":
        return _float_pow(ta, tb, b)
    if op in ("floordiv", "mod"):
        if not isinstance(b, (int, float)):
            require(tf.logical_or(tf.abs(tb) >= _SMALL_DIVISOR, tf.math.is_inf(tb)))
        elif abs(b) < _SMALL_DIVISOR:
            raise ConversionError("a float // or % by a tiny constant")
        return _python_divmod(ta, tb, divisor_known=isinstance(b, (int, float)))[
            0 if op == "floordiv" else 1]
    result = _FLOAT_OPS[op](ta, tb)
    if by_range(op, (a, b), result.dtype):
        return result
    exact = _exact(op, ta, tb, result, _constant(a), _constant(b))
    if exact is not None:
        require_each(*exact)
    return result


def _constant(value):
    return float(value) if isinstance(value, (int, float)) else None


_FLOAT_OPS = {"add": tf.add, "sub": tf.subtract, "mul": tf.multiply,
              "truediv": tf.math.truediv}


def _exact(op: str, a, b, result, a_constant=None, b_constant=None):
    """(check, *operands): elementwise, `result` (of normal or zero operands) is what
    IEEE arithmetic without flushing gives: a zero is exact (a flushed subnormal reads as
    zero too), and a divisor is not zero (Python raises; numpy warns). None: nothing to
    check (a Python constant operand decides it: `x * 0.0`, `x + 0.0`)."""
    constant = b_constant if b_constant is not None else a_constant
    other = a if b_constant is not None else b
    if constant is not None and op in ("add", "mul") or \
            op == "sub" and b_constant is not None:
        if constant == 0.0:
            return None  # (x + 0.0, x * 0.0: exact, IEEE's signed zeros alike)
        if op == "mul":
            return _zero_where_zero, result, other
        negated = -constant if op == "add" else constant
        return _zero_where_equal, result, other, scalar(negated, other.dtype)
    if op == "truediv" and b_constant is not None:  # a division by a nonzero constant
        return _zero_where_zero, result, a
    return _ZERO_CHECKS[op], result, a, b


def _zero(x: tf.Tensor) -> tf.Tensor:
    return scalar(0.0, x.dtype)


def _zero_where_zero(result, x):
    """`x * c`, `x / c` (a nonzero constant c): a zero result only where x is zero."""
    return tf.logical_or(tf.not_equal(result, _zero(result)), tf.equal(x, _zero(x)))


def _zero_where_equal(result, x, c):
    """`x + c` or `x - c`: a zero result only where x is -c (or c)."""
    return tf.logical_or(tf.not_equal(result, _zero(result)), tf.equal(x, c))


def _add_exact(result, a, b):
    return tf.logical_or(tf.not_equal(result, _zero(result)), tf.equal(a, -b))


def _sub_exact(result, a, b):
    return tf.logical_or(tf.not_equal(result, _zero(result)), tf.equal(a, b))


def _mul_exact(result, a, b):
    zero = _zero(a)
    return tf.logical_or(tf.not_equal(result, _zero(result)),
                         tf.logical_or(tf.equal(a, zero), tf.equal(b, zero)))


def _div_exact(result, a, b):
    zero = _zero(a)
    return tf.logical_and(
        tf.logical_or(tf.not_equal(result, zero),
                      tf.logical_or(tf.equal(a, zero), tf.math.is_inf(b))),
        tf.not_equal(b, zero))


_ZERO_CHECKS = {"add": _add_exact, "sub": _sub_exact, "mul": _mul_exact,
                "truediv": _div_exact}


def _float_pow(a, b, exponent=None):
    """Python's `a ** b` (C pow): raises for 0.0 ** negative, overflows with an error, a
    negative base with a non-integer exponent gives a complex number. `exponent`: b as
    the Python number it is, if it is one."""
    if in_batched_loop():
        raise ConversionError("a power of a Python float in a loop janus batches (a "
                              "vectorized pow rounds differently from Python's)")
    result = tf.pow(a, b)
    if power_by_range(a, exponent):
        return result
    finite_in = tf.logical_and(tf.math.is_finite(a), tf.math.is_finite(b))
    require(tf.reduce_all(tf.stack([
        tf.logical_not(tf.logical_and(tf.equal(a, 0.0), b < 0.0)),
        tf.logical_not(tf.logical_and(a < 0.0, tf.not_equal(b, tf.floor(b)))),
        tf.logical_or(tf.math.is_finite(result), tf.logical_not(finite_in)),
        tf.logical_or(tf.not_equal(result, 0.0), tf.equal(a, 0.0)),
    ])))
    return result


def _python_divmod(x, y, divisor_known: bool = False):
    """Python's float floor division and modulo (CPython's `_float_div_mod`): the
    remainder by fmod with the divisor's sign, the quotient rounded from (x - mod) / y."""
    if not divisor_known:
        require(tf.not_equal(y, 0.0))
    mod = tf.truncatemod(x, y)
    div = (x - mod) / y
    adjust = tf.logical_and(tf.not_equal(mod, 0.0), tf.not_equal(y < 0.0, mod < 0.0))
    mod = tf.where(adjust, mod + y, mod)
    div = tf.where(adjust, div - 1.0, div)
    mod = tf.where(tf.equal(mod, 0.0), copysign(tf.zeros_like(mod), y), mod)
    floor = tf.floor(div)
    floor = tf.where(div - floor > 0.5, floor + 1.0, floor)
    floor = tf.where(tf.equal(div, 0.0), copysign(tf.zeros_like(div), x / y), floor)
    return floor, mod


def copysign(magnitude, sign):
    """`math.copysign` (the sign of a zero or nan included)."""
    negative = tf.bitcast(sign, tf.int64) < 0
    return tf.where(negative, -tf.abs(magnitude), tf.abs(magnitude))


def mixed_int(tensor: tf.Tensor, bound) -> tf.Tensor:
    """An int operand of a mixed int/float operation or comparison, as float64: Python
    compares and converts it exactly, TF rounds it above 2**53 (checked)."""
    as_float = tf.cast(tensor, tf.float64)
    if bound is None or bound > EXACT_FLOAT_INT:
        require(tf.abs(as_float) <= EXACT_FLOAT_INT)
    return as_float


def beyond_int64(compare, left, right) -> bool:
    """`left <compare> right` where one side is a Python int past int64 and the other an
    int64 tensor (whose value is exact: every op that could have left int64 is checked):
    the constant is the larger (or smaller) of the two, whatever the tensor holds."""
    big = right if isinstance(right, int) else left
    less = (big > 0) == (big is right)  # `left < right`
    return {tf.less: less, tf.less_equal: less, tf.greater: not less,
            tf.greater_equal: not less, tf.equal: False, tf.not_equal: True}[compare]


# -- numpy arrays ------------------------------------------------------------------------

def array_arithmetic(op: str, x, y, dtype: tf.DType) -> tf.Tensor:
    """numpy's `x <op> y` on float arrays (graphgen/host_arrays.py: each a tensor of
    `dtype` or a Python number numpy casts to it), or the graph fails where numpy's result
    differs from TF's (subnormals: TF flushes them) or where numpy warns or, under
    `np.seterr(all="raise")`, raises (overflow, invalid, a zero divisor). Fed arrays are
    checked normal when fed (graphgen/fed_floats.py), so every operand is."""
    if dtype not in FLOAT_BITS:
        raise ConversionError(f"arithmetic on a {dtype.name} array")
    operands = (x, y)
    x, y = (opaque_constant(v, dtype) if isinstance(v, (int, float)) else v for v in (x, y))
    result = _FLOAT_OPS[op](x, y)
    if by_range(op, operands, dtype):
        return result
    require_each(_NUMPY_CHECKS[op], result, x, y)
    return result


def _numpy_check(zero_check):
    """numpy's `x <op> y` checked: exact as `zero_check` says, and no overflow (an
    infinite result of finite operands: numpy warns)."""
    def check(result, x, y):
        finite_in = tf.logical_and(tf.math.is_finite(x), tf.math.is_finite(y))
        finite = tf.logical_or(tf.math.is_finite(result), tf.logical_not(finite_in))
        return tf.logical_and(zero_check(result, x, y), finite)
    return check


_NUMPY_CHECKS = {op: _numpy_check(check) for op, check in _ZERO_CHECKS.items()}
