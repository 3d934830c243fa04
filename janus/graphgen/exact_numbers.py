"""Python's and numpy's arithmetic on fed values, where TensorFlow's kernels differ.

A Python number janus feeds to a graph (`values.SymbolicScalar`) is a 0-d int64 or
float64 tensor. TF's ops agree with Python's arithmetic except at the edges; there the
graph must not give another answer, so it fails instead (a `CheckNumerics` op raises:
the call reruns plainly, where Python raises or computes its own result):

    a + b, a * b, -a ...     (ints)     int64 wraps, Python ints grow: |result| < 2**62
                                        checked unless the operands' bounds rule it out
    a / b, a // b, a % b                Python raises ZeroDivisionError (TF: inf, nan):
                                        divisor checked != 0
    a + b, a * b, a / b ...  (floats)   TF flushes subnormal numbers to zero, Python
                                        keeps them: operands and result checked normal
                                        (or an exact zero)
    a // b, a % b            (floats)   computed as Python does (fmod, then floor):
                                        1 // 0.1 == 9.0, -2.0 % 1.0 == 0.0 (TF: 10.0, -0.0)
    x / 7.0, x * c1 * c2                Grappler folds a constant divisor into a reciprocal
                                        and regroups constant factors: constants hidden
    a ** b                   (floats)   Python raises or returns a complex number where TF
                                        gives nan/inf: checked; refused in a batched loop
                                        (a vectorized pow rounds otherwise)
    int and float mixed                 exact only below 2**53: the int checked

numpy arithmetic on fed float arrays (graphgen/host_arrays.py) is checked the same way
(`array_arithmetic`: subnormals, hidden constants, and where numpy would warn).

`bound` is a static upper bound of an int's magnitude (None: unknown); a fed int is
guarded to fit int32, a `range` item is within its range's ends.
"""
from __future__ import annotations

import tensorflow as tf

from janus.errors import ConversionError

INT_LIMIT = 2 ** 62  # an int result checked below it cannot have wrapped (float64 estimate)
EXACT_FLOAT_INT = 2 ** 53  # ints a float64 holds exactly
FED_INT_BOUND = 2 ** 31  # a fed int is guarded to fit int32
_MESSAGE = "janus: Python's arithmetic differs here from TensorFlow's"


def checked(value: tf.Tensor, ok: tf.Tensor) -> tf.Tensor:
    """`value`, computed only when `ok` holds; otherwise the graph fails (a `CheckNumerics`
    op, which janus keeps even when nothing reads `value`: graphgen/dead_ends.py)."""
    flag = tf.debugging.check_numerics(
        tf.where(ok, tf.constant(0.0, tf.float64), tf.constant(float("nan"), tf.float64)),
        _MESSAGE)
    with tf.control_dependencies([flag]):
        return tf.identity(value)


def _normal_or_zero(x: tf.Tensor) -> tf.Tensor:
    """Not a subnormal float (which TF reads as zero); inf and nan pass. Read from the
    bits: TF's own float comparisons see a subnormal as zero."""
    ints, magnitude, smallest = _BITS[x.dtype]
    bits = tf.bitwise.bitwise_and(tf.bitcast(x, ints), tf.constant(magnitude, ints))
    return tf.logical_or(tf.equal(bits, 0), bits >= smallest)


_BITS = {  # dtype: (its bits as ints, the mask of all but the sign, the smallest normal)
    tf.float64: (tf.int64, 0x7FFFFFFFFFFFFFFF, 0x0010000000000000),
    tf.float32: (tf.int32, 0x7FFFFFFF, 0x00800000),
}


def _static_ok(value) -> bool:
    """A Python number operand: checked at trace time (no op)."""
    return not isinstance(value, float) or value == 0.0 or not abs(value) < 2.2250738585072014e-308


def _in_batched_loop() -> bool:
    """Inside `tf.vectorized_map`'s body (graphgen/general.py's batched loops)."""
    return "loop_body" in tf.compat.v1.get_default_graph().get_name_scope().split("/")


def _int_bound(op: str, a_bound, b_bound):
    if a_bound is None or b_bound is None:
        return None
    if op in ("add", "sub"):
        return a_bound + b_bound
    if op == "mul":
        return a_bound * b_bound
    if op == "floordiv":
        return a_bound + 1
    if op == "mod":
        return b_bound
    return None


def _bound_of(value, bound):
    if isinstance(value, (bool, int)):
        return abs(int(value))
    return bound


def arithmetic(op: str, a, b, a_bound, b_bound, work: type):
    """`a <op> b` as Python computes it, both operands already of `work`'s dtype (int64
    or float64; a Python number operand as it is). Returns (tensor, bound)."""
    if work is int:
        return _int_arithmetic(op, a, b, _bound_of(a, a_bound), _bound_of(b, b_bound))
    return _float_arithmetic(op, a, b), None


def _int_arithmetic(op, a, b, a_bound, b_bound):
    if any(isinstance(v, int) and abs(v) >= INT_LIMIT for v in (a, b)):
        raise ConversionError("arithmetic of a Python int janus feeds with an int constant "
                              "beyond 2**62")
    if op == "pow":
        if not (type(b) is int and 0 <= b <= 64):
            raise ConversionError("a power of a Python int that changes per call with an "
                                  "exponent that is not a constant from 0 to 64 (its result "
                                  "may be a float or any size)")
        result = tf.pow(a, tf.constant(b, tf.int64))
        bound = None if a_bound is None else a_bound ** b
        if bound is None or bound >= INT_LIMIT:
            fa = tf.cast(a, tf.float64)
            result = checked(result, tf.abs(fa) ** b < INT_LIMIT)
            bound = INT_LIMIT
        return result, bound
    ta, tb = (tf.constant(v, tf.int64) if isinstance(v, int) else v for v in (a, b))
    operation = {"add": tf.add, "sub": tf.subtract, "mul": tf.multiply,
                 "floordiv": tf.math.floordiv, "mod": tf.math.floormod}[op]
    bound = _int_bound(op, a_bound, b_bound)
    if bound is not None and bound < INT_LIMIT:
        return operation(ta, tb), bound
    fa, fb = tf.cast(ta, tf.float64), tf.cast(tb, tf.float64)
    if op in ("floordiv", "mod"):  # (TF raises for a zero divisor; INT64_MIN // -1 must
        ok = tf.logical_and(tf.abs(fa) < INT_LIMIT, tf.abs(fb) < INT_LIMIT)  # never run)
        zero = tf.zeros([], tf.int64)
        return checked(operation(tf.where(ok, ta, zero), tb), ok), INT_LIMIT
    estimate = {"add": tf.add, "sub": tf.subtract, "mul": tf.multiply}[op](fa, fb)
    return checked(operation(ta, tb), tf.abs(estimate) < INT_LIMIT), INT_LIMIT


def negate(tensor: tf.Tensor, kind: type, bound):
    """`-a` (an int: checked unless its bound rules out -INT64_MIN)."""
    if kind is float or bound is not None and bound < INT_LIMIT:
        return -tensor, bound
    ok = tf.abs(tf.cast(tensor, tf.float64)) < INT_LIMIT
    return checked(-tensor, ok), INT_LIMIT


def _float_arithmetic(op, a, b):
    ta, tb = (_opaque_constant(v) if isinstance(v, (int, float)) else v for v in (a, b))
    conditions = [_normal_or_zero(t) for t, v in ((ta, a), (tb, b))
                  if not isinstance(v, (int, float))]
    if not all(_static_ok(v) for v in (a, b)):
        raise ConversionError("arithmetic of a Python float janus feeds with a subnormal "
                              "constant (TensorFlow reads it as zero)")
    if op in ("truediv", "floordiv", "mod"):
        conditions.append(tf.not_equal(tb, 0.0))
    if op == "pow":
        result = _float_pow(ta, tb, conditions)
    elif op in ("floordiv", "mod"):
        result = _python_divmod(ta, tb)[0 if op == "floordiv" else 1]
    else:
        result = {"add": tf.add, "sub": tf.subtract, "mul": tf.multiply,
                  "truediv": tf.math.truediv}[op](ta, tb)
        exact_zero = {"add": lambda: tf.equal(ta, -tb), "sub": lambda: tf.equal(ta, tb),
                      "mul": lambda: tf.logical_or(tf.equal(ta, 0.0), tf.equal(tb, 0.0)),
                      "truediv": lambda: tf.logical_or(tf.equal(ta, 0.0),
                                                       tf.math.is_inf(tb))}[op]()
        flushed = tf.logical_and(tf.equal(result, 0.0), tf.logical_not(exact_zero))
        conditions += [_normal_or_zero(result), tf.logical_not(flushed)]
    return checked(result, tf.reduce_all(tf.stack(conditions)))


def _opaque_constant(value: float, dtype: tf.DType = tf.float64) -> tf.Tensor:
    """A Python float operand Grappler cannot fold: its constant folding turns `x / c`
    into `x * (1 / c)` and regroups `(x * c1) * c2`, which round otherwise
    (2.5 / 7 gave 0.3571428571428571, Python 0.35714285714285715)."""
    return tf.raw_ops.PlaceholderWithDefault(input=tf.constant(value, dtype), shape=[])


def _float_pow(a, b, conditions):
    """Python's `a ** b` (C pow): raises for 0.0 ** negative, overflows with an error, a
    negative base with a non-integer exponent gives a complex number."""
    if _in_batched_loop():
        raise ConversionError("a power of a Python float in a loop janus batches (a "
                              "vectorized pow rounds differently from Python's)")
    result = tf.pow(a, b)
    finite_in = tf.logical_and(tf.math.is_finite(a), tf.math.is_finite(b))
    conditions += [
        tf.logical_not(tf.logical_and(tf.equal(a, 0.0), b < 0.0)),
        tf.logical_not(tf.logical_and(a < 0.0, tf.not_equal(b, tf.floor(b)))),
        tf.logical_or(tf.math.is_finite(result), tf.logical_not(finite_in)),
        _normal_or_zero(result),
        tf.logical_not(tf.logical_and(tf.equal(result, 0.0), tf.not_equal(a, 0.0))),
    ]
    return result


def _python_divmod(x, y):
    """Python's float floor division and modulo (CPython's `_float_div_mod`): the
    remainder by fmod with the divisor's sign, the quotient rounded from (x - mod) / y."""
    mod = tf.truncatemod(x, y)
    div = (x - mod) / y
    adjust = tf.logical_and(tf.not_equal(mod, 0.0), tf.not_equal(y < 0.0, mod < 0.0))
    mod = tf.where(adjust, mod + y, mod)
    div = tf.where(adjust, div - 1.0, div)
    zero_mod = tf.equal(mod, 0.0)
    mod = tf.where(zero_mod, _copysign(tf.zeros_like(mod), y), mod)
    floor = tf.floor(div)
    floor = tf.where(div - floor > 0.5, floor + 1.0, floor)
    floor = tf.where(tf.equal(div, 0.0), _copysign(tf.zeros_like(div), x / y), floor)
    return floor, mod


def _copysign(magnitude, sign):
    """`math.copysign` (the sign of a zero or nan included)."""
    negative = tf.bitcast(sign, tf.int64) < 0
    return tf.where(negative, -tf.abs(magnitude), tf.abs(magnitude))


def beyond_int64(compare, left, right) -> bool:
    """`left <compare> right` where one side is a Python int past int64 and the other an
    int64 tensor (whose value is exact: every op that could have left int64 is checked):
    the constant is the larger (or smaller) of the two, whatever the tensor holds."""
    big = right if isinstance(right, int) else left
    sign = 1 if big > 0 else -1  # the int's side, as `big - tensor`'s sign
    if big is left:
        sign = -sign  # (`left - right` has the opposite sign when the int is on the left)
    less, equal = sign > 0, False  # `left < right` when left - right < 0
    return {tf.less: less, tf.less_equal: less or equal, tf.greater: not less and not equal,
            tf.greater_equal: not less, tf.equal: equal, tf.not_equal: not equal}[compare]


def mixed_int(tensor: tf.Tensor, bound) -> tf.Tensor:
    """An int operand of a mixed int/float operation or comparison, as float64: Python
    compares and converts it exactly, TF rounds it above 2**53 (checked)."""
    as_float = tf.cast(tensor, tf.float64)
    if bound is not None and bound <= EXACT_FLOAT_INT:
        return as_float
    return checked(as_float, tf.abs(as_float) < EXACT_FLOAT_INT)


def array_arithmetic(op: str, x, y, dtype: tf.DType) -> tf.Tensor:
    """numpy's `x <op> y` on float arrays (graphgen/host_arrays.py: each a tensor of
    `dtype` or a Python number numpy casts to it), or the graph fails where numpy's result
    differs from TF's (subnormals: TF flushes them) or where numpy warns or, under
    `np.seterr(all="raise")`, raises (overflow, invalid, a zero divisor)."""
    if dtype not in _BITS:
        raise ConversionError(f"arithmetic on a {dtype.name} array")
    x, y = (_opaque_constant(v, dtype) if isinstance(v, (int, float)) else v for v in (x, y))
    result = {"add": tf.add, "sub": tf.subtract, "mul": tf.multiply,
              "truediv": tf.math.truediv}[op](x, y)
    exact_zero = {"add": lambda: tf.equal(x, -y), "sub": lambda: tf.equal(x, y),
                  "mul": lambda: tf.logical_or(tf.equal(x, 0.0), tf.equal(y, 0.0)),
                  "truediv": lambda: tf.logical_or(tf.equal(x, 0.0), tf.math.is_inf(y))}[op]()
    finite_in = tf.logical_and(tf.math.is_finite(x), tf.math.is_finite(y))
    ok = [_normal_or_zero(x), _normal_or_zero(y), _normal_or_zero(result),
          tf.logical_not(tf.logical_and(tf.equal(result, 0.0), tf.logical_not(exact_zero))),
          tf.logical_or(tf.math.is_finite(result), tf.logical_not(finite_in))]
    if op == "truediv":
        ok.append(tf.not_equal(y, 0.0))
    every = tf.reduce_all(tf.stack([tf.reduce_all(c) for c in ok]))
    return checked(result, every)


def negate_array(x: tf.Tensor) -> tf.Tensor:
    """numpy's `-x` (a subnormal flips its sign in numpy; TF flushes it)."""
    if x.dtype not in _BITS:
        raise ConversionError(f"negating a {x.dtype.name} array")
    return checked(-x, tf.reduce_all(_normal_or_zero(x)))
