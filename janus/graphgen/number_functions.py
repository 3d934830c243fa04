"""`math` functions and numpy arrays of the numbers janus feeds to a graph, as Python's
`math` and numpy compute them.

    y = math.cos(theta)        theta: a fed Python float or a numpy float scalar
                               (`.numpy()` of a tensor) -> y: a fed Python float, the
                               graph's `tf.cos` of its float64 value
    s = np.array([x, v, 0.5])  numpy scalars (all float32: float32; with Python or fed
                               numbers: float64, as numpy packs them) -> a fed array
                               (graphgen/host_arrays.py), the graph's `tf.stack`
    eps = max(0.05, eps * 0.9) fed numbers and Python numbers of one type -> a fed number:
                               Python's fold (the first extreme wins: `max(0.0, -0.0)`
                               is 0.0, a nan after the first item is skipped, a nan
                               first is kept; an inf is an item like any other; bools
                               compare as 0/1 and give a bool), one `tf.where` per
                               item (an epsilon schedule is fed, not a graph per value)

TF's kernels of these functions call the C library's on a single value, as Python's
`math` does (checked equal over 10**5 values each; their vectorized forms, in a loop
janus batches, round otherwise: refused there). Where `math` raises (ValueError for a
domain error, OverflowError for an overflow: a nan from a number, an inf from a finite
number) or a result would be subnormal (TF flushes it to zero), the graph fails and the
call reruns plainly (graphgen/exact_numbers.py).
"""
from __future__ import annotations

import math

import numpy as np
import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen import checks, exact_numbers, host_scalars
from janus.graphgen.host_arrays import HostArray
from janus.graphgen.host_scalars import HostScalar
from janus.graphgen.value_kinds import is_symbolic
from janus.graphgen.values import SymbolicScalar
from janus.operation_hooks import operation_hook

_FUNCTIONS = {  # math function: (TF op, the input where its result is exactly zero)
    math.cos: (tf.cos, None), math.sin: (tf.sin, 0.0), math.tan: (tf.tan, 0.0),
    math.sqrt: (tf.sqrt, 0.0), math.exp: (tf.exp, None), math.log: (tf.math.log, 1.0),
    math.tanh: (tf.tanh, 0.0), math.atan: (tf.atan, 0.0), math.log1p: (tf.math.log1p, 0.0),
    math.expm1: (tf.math.expm1, 0.0), math.fabs: (tf.abs, 0.0),
}


# Of an argument in the fast check's range (exact_numbers.items_by_range: zero or a
# magnitude in [2**-500, 2**500]), their result is normal, finite and no domain error: |sin x|, |tan x|
# are at least ~2**-62 away from a multiple of pi (no double is nearer) and ~|x| near 0,
# |cos x| is at least ~2**-62, |atan x| and |tanh x| are ~|x| near 0 and bounded.
_NORMAL_IN_RANGE = frozenset({math.cos, math.sin, math.tan, math.atan, math.tanh, math.fabs})


_TESTS = {math.isnan: tf.math.is_nan, math.isinf: tf.math.is_inf,
          math.isfinite: tf.math.is_finite}
"""`math` tests of a float: a Python bool (of an int: False, False, True; F358)."""

_TO_INT = {math.floor: tf.floor, math.ceil: tf.math.ceil, math.trunc: None}
"""`math` functions giving a Python int of a float (ValueError of a nan, OverflowError
of an inf: checked, the call reruns plainly; a magnitude past 2**62 too; F358)."""

_OF_TWO = (math.copysign, math.fmod)
"""`math` functions of two numbers computed exactly (F358)."""


def _is_fed(value) -> bool:
    return isinstance(value, (SymbolicScalar, HostScalar))


def _plain_number(value) -> bool:
    return type(value) in (int, float, bool) and (type(value) is not int or
                                                   abs(value) <= exact_numbers.EXACT_FLOAT_INT)


def handles(fn, args: tuple, kwargs: dict) -> bool:
    """Whether `fn(*args, **kwargs)` is a `math` function of one fed number, a numpy
    array made of fed numbers or `max`/`min` of fed numbers."""
    if fn is max or fn is min:
        return _extreme_items(args, kwargs) is not None
    if any(fn is f for f in _OF_TWO):
        return not kwargs and len(args) == 2 and any(_is_fed(a) for a in args) and \
            all(_is_fed(a) or _plain_number(a) for a in args)
    if not kwargs and len(args) == 1 and isinstance(args[0], SymbolicScalar) and \
            (any(fn is f for f in _TESTS) or any(fn is f for f in _TO_INT)):
        return args[0].kind in (int, float, bool)
    if len(args) != 1:
        return False
    if fn is np.array or fn is np.asarray:
        return type(args[0]) in (list, tuple) and set(kwargs) <= {"dtype"} and \
            any(isinstance(v, (SymbolicScalar, HostScalar)) for v in args[0])
    return not kwargs and any(fn is f for f in _FUNCTIONS) and \
        isinstance(args[0], (SymbolicScalar, HostScalar))


def reads_tensor(fn, args: tuple, kwargs: dict) -> bool:
    """Whether `fn(*args)` is a `math` function of one number (or a test, floor/ceil/trunc)
    of a scalar float tensor of the trace: Python calls `float(t)` first (F484)."""
    if kwargs or len(args) != 1 or not is_symbolic(args[0]) or \
            not any(fn is f for f in (*_FUNCTIONS, *_TESTS, *_TO_INT)):
        return False
    return args[0].shape.rank == 0 and args[0].dtype.is_floating and \
        host_scalars.readable(args[0])


def read_tensor(tensor: tf.Tensor) -> SymbolicScalar:
    """`float(t)` of a scalar float tensor a `math` function converts (no gradient: a
    Python float)."""
    return HostScalar(tf.stop_gradient(tensor)).number(float)


def dispatch(fn, args: tuple, kwargs: dict):
    """`fn(*args, **kwargs)` (see `handles`)."""
    if fn is np.array or fn is np.asarray:
        return pack_array(args[0], kwargs.get("dtype"))
    if fn is max or fn is min:
        return extreme(fn, _extreme_items(args, kwargs))
    if any(fn is f for f in _OF_TWO):
        return of_two(fn, *args)
    if any(fn is f for f in _TESTS):
        return test(fn, args[0])
    if any(fn is f for f in _TO_INT):
        return to_int(fn, args[0])
    return call(fn, args[0])


@operation_hook
def test(fn, x: SymbolicScalar):
    """`math.isnan(x)` / `isinf` / `isfinite`: a Python bool (an int's is known)."""
    if x.kind is not float:
        return fn is math.isfinite
    return SymbolicScalar(_TESTS[fn](x.tensor), bool)


def to_int(fn, x: SymbolicScalar) -> SymbolicScalar:
    """`math.floor(x)` / `ceil` / `trunc`: Python's int (an int's: itself)."""
    if x.kind is not float:
        return x.convert(int)
    rounded = _TO_INT[fn](x.tensor) if _TO_INT[fn] is not None else \
        tf.where(x.tensor < 0.0, tf.math.ceil(x.tensor), tf.floor(x.tensor))
    # (a nan or an inf fails the check: Python raises; past 2**62, a big int)
    checks.require(tf.abs(rounded) < float(exact_numbers.INT_LIMIT))
    return SymbolicScalar(tf.cast(rounded, tf.int64), int,
                          bound=exact_numbers.rounded_bound(x.bound))


def of_two(fn, a, b) -> SymbolicScalar:
    """`math.copysign(a, b)` / `math.fmod(a, b)`: the Python float `math` returns (fmod:
    ValueError of a zero divisor or an infinite dividend: checked, the call reruns
    plainly; a divisor below 2**-900, whose remainder could be subnormal, too)."""
    x, y = (_as_python_float(v) if _is_fed(v) else tf.constant(float(v), tf.float64)
            for v in (a, b))
    if fn is math.copysign:
        return SymbolicScalar(exact_numbers.copysign(x, y), float)
    checks.require(tf.logical_and(
        tf.logical_or(tf.abs(y) >= 2.0 ** -900, tf.math.is_nan(y)),
        tf.logical_or(tf.logical_not(tf.math.is_inf(x)), tf.math.is_nan(y))))
    return SymbolicScalar(tf.truncatemod(x, y), float)


def _extreme_items(args: tuple, kwargs: dict) -> list | None:
    """The items of `max(a, b, ...)` / `max([a, b, ...])` if at least one is a fed number
    and all are numbers of one Python type (a mix's result type would depend on which
    wins), else None."""
    items = list(args[0]) if len(args) == 1 and type(args[0]) in (list, tuple) else \
        list(args) if len(args) >= 2 else None
    if kwargs or not items or not any(isinstance(v, SymbolicScalar) for v in items):
        return None
    kinds = {v.kind if isinstance(v, SymbolicScalar) else type(v) for v in items}
    if len(kinds) != 1 or not kinds <= {int, float, bool}:
        return None
    if any(type(v) is int and not -2 ** 63 <= v < 2 ** 63 for v in items):
        return None
    return items


def extreme(fn, items: list) -> SymbolicScalar:
    """`max(items)` / `min(items)` as Python folds it: an item replaces the one kept if
    it compares greater (less), so the first of equal items wins."""
    kind = items[0].kind if isinstance(items[0], SymbolicScalar) else type(items[0])
    dtype = SymbolicScalar._dtype(kind)
    beats = tf.greater if fn is max else tf.less
    # (TF compares no bools: as Python does, False < True as 0 < 1)
    compared = (lambda t: tf.cast(t, tf.int8)) if kind is bool else (lambda t: t)
    kept = None
    for item in items:
        tensor = item.tensor if isinstance(item, SymbolicScalar) else tf.constant(item, dtype)
        kept = tensor if kept is None else \
            tf.where(beats(compared(tensor), compared(kept)), tensor, kept)
    if kind is not int:  # (a float's inf or nan has no int bound; a bool's is 1)
        return SymbolicScalar(kept, kind)
    bounds = [v.bound if isinstance(v, SymbolicScalar) else abs(v) for v in items]
    return SymbolicScalar(kept, kind, bound=None if None in bounds else max(bounds))


def pack_array(items, dtype=None) -> HostArray:
    """`np.array(items)` of numpy float scalars, fed Python numbers and Python numbers: a
    1-D float array of the dtype numpy gives (all float32 scalars: float32; else
    float64), cast to `dtype` if asked."""
    scalars = [v for v in items if isinstance(v, HostScalar)]
    kinds = {v.tensor.dtype for v in scalars}
    if not kinds <= {tf.float32, tf.float64} or any(type(v) is bool for v in items):
        raise ConversionError("a numpy array of other than float scalars and numbers")
    packed = tf.float32 if kinds == {tf.float32} and len(scalars) == len(items) else \
        tf.float64
    tensors = []
    for v in items:
        if isinstance(v, HostScalar):
            tensors.append(tf.cast(v.checked_tensor(), packed))
        elif isinstance(v, SymbolicScalar) and v.kind in (int, float):
            tensors.append(v.tensor if v.kind is float else
                           exact_numbers.mixed_int(v.tensor, v.bound))
        elif type(v) in (int, float) and abs(v) <= exact_numbers.EXACT_FLOAT_INT:
            tensors.append(tf.constant(float(v), packed))
        else:
            raise ConversionError(f"a numpy array holding a {type(v).__name__}")
    array = HostArray(tf.stack(tensors), np.dtype(packed.as_numpy_dtype))
    return array if dtype is None else array.astype(dtype)


@operation_hook
def call(fn, x) -> SymbolicScalar:
    """`fn(x)` (see `handles`): the Python float `math` returns."""
    op, zero_at = _FUNCTIONS[fn]
    if exact_numbers.in_batched_loop():
        raise ConversionError(f"math.{fn.__name__} of a fed number in a loop janus batches "
                              "(its vectorized kernel rounds otherwise)")
    value = _as_python_float(x)
    result = op(value)
    if any(fn is f for f in _NORMAL_IN_RANGE) and exact_numbers.items_by_range(value):
        return SymbolicScalar(result, float)
    if fn is math.fabs:
        checks.require_each(_no_overflow, result, value)
    elif zero_at is None:
        checks.require_each(_never_zero, result, value)
    else:
        checks.require_each(_zero_at, result, value,
                                   tf.constant(zero_at, tf.float64))
    return SymbolicScalar(result, float)


def _no_overflow(result, value):
    """No overflow (an infinite result of a finite value) nor nan of a number."""
    return tf.logical_and(
        tf.logical_or(tf.math.is_finite(result), tf.logical_not(tf.math.is_finite(value))),
        tf.logical_or(tf.logical_not(tf.math.is_nan(result)), tf.math.is_nan(value)))


def _never_zero(result, value):
    """... and no zero result (it could only be a flushed subnormal)."""
    return tf.logical_and(_no_overflow(result, value), tf.not_equal(result, 0.0))


def _zero_at(result, value, zero_at):
    """... and a zero result only where the value is the function's zero."""
    return tf.logical_and(_no_overflow(result, value), tf.logical_or(
        tf.not_equal(result, 0.0), tf.equal(value, zero_at)))


def _as_python_float(x) -> tf.Tensor:
    """`float(x)`'s value as a float64 tensor (Python converts its argument so)."""
    if isinstance(x, HostScalar):
        if not (x.tensor.dtype.is_floating or x.tensor.dtype.is_integer):
            raise ConversionError(f"a math function of a {x.tensor.dtype.name} scalar")
        tensor = x.checked_tensor() if x.tensor.dtype.is_floating else x.tensor
        return tf.cast(tensor, tf.float64)
    if x.kind is float:
        return x.tensor
    if x.kind is bool:
        return tf.cast(x.tensor, tf.float64)
    return exact_numbers.mixed_int(x.tensor, x.bound)
