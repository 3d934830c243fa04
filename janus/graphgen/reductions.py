"""Sums of the values janus keeps in a graph, as numpy and Python compute them.

    np.sum(a), np.mean(a), np.var(a), np.std(a)    a: a fed 1-D float array (HostArray):
                                                   its method (host_arrays.py), numpy's
                                                   pairwise order (float_sums.py)
    np.array(rewards), np.array(rewards, dtype=np.float32)
                                                   rewards: Python floats a loop appended
                                                   (a DynamicList, its length known only
                                                   when the graph runs): a float64 array,
                                                   or each float rounded to float32
    sum(rewards)                                   Python's left fold from 0: float64 adds
                                                   in order (a tf.while_loop), ints exact

A static list of fed numbers needs nothing here: Python's `sum` adds the stand-ins one
after another, as CPython 3.11 adds them (from Python 3.12 on, `sum` of floats
compensates its rounding errors: refused there). Where numpy warns (an empty array's
mean) or the graph's result would differ (subnormals, an overflow, an empty list whose
sum would be the int 0), the graph fails and the call reruns plainly.
"""
from __future__ import annotations

import sys

import numpy as np
import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen import checks, exact_numbers, float_sums
from janus.graphgen.host_arrays import HostArray
from janus.graphgen.host_scalars import HostScalar
from janus.graphgen.value_kinds import is_symbolic
from janus.graphgen.values import DynamicList, SymbolicScalar

_METHOD_IDS = {id(np.sum): "sum", id(np.mean): "mean", id(np.var): "var", id(np.std): "std"}
_COMPENSATED = sys.version_info >= (3, 12)  # sum() of floats: Neumaier's summation


def handles(fn, args: tuple, kwargs: dict) -> bool:
    """Whether `fn(*args, **kwargs)` is one of the module docstring's calls."""
    if not args:
        return False
    first = args[0]
    if id(fn) in _METHOD_IDS or fn is np.array or fn is np.asarray:
        return isinstance(first, (HostArray, DynamicList)) or _in_graph(first)
    if fn is sum:
        return isinstance(first, DynamicList) or _COMPENSATED and \
            type(first) in (list, tuple) and any(isinstance(v, SymbolicScalar) for v in first)
    return False


def dispatch(fn, args: tuple, kwargs: dict):
    """`fn(*args, **kwargs)` (see `handles`)."""
    name = _METHOD_IDS.get(id(fn))
    if name is not None and isinstance(args[0], HostArray):
        return getattr(args[0], name)(*args[1:], **kwargs)
    if fn is not sum and (len(args) != 1 or not isinstance(args[0], DynamicList)):
        raise ConversionError(f"hands a graph's value to numpy.{fn.__name__} (only a fed "
                              "1-D float array's sum, mean, var, std and a list of Python "
                              "floats grown in the graph stay in it)")
    if fn is sum:
        if not isinstance(args[0], DynamicList):  # (a static list, from Python 3.12 on)
            raise ConversionError("sum() of fed Python floats (from Python 3.12 on it "
                                  "compensates its rounding errors)")
        return python_sum(args[0], *args[1:], **kwargs)
    if set(kwargs) - {"dtype"}:
        raise ConversionError(f"np.{fn.__name__} of a list whose length varies, with "
                              f"{sorted(kwargs)}")
    return array_of(args[0], kwargs.get("dtype"))


def _in_graph(value) -> bool:
    """Whether `value` (or an item of a list or tuple of it) exists only in the graph:
    numpy would fail on it (a symbolic tensor) or see a stand-in as an object."""
    if type(value) in (list, tuple):
        return any(_in_graph(v) for v in value)
    return is_symbolic(value) or \
        isinstance(value, (SymbolicScalar, HostScalar, HostArray, DynamicList))


def array_of(items: DynamicList, dtype=None) -> HostArray:
    """`np.array(items)` of Python floats (float64, or `dtype` float32: each float rounded
    to nearest, as TF's cast rounds; where numpy's is subnormal or overflows with a
    warning, the graph fails)."""
    if items.kind is not float or not tf.is_tensor(items.stacked) or \
            items.stacked.shape.rank != 1 or items.stacked.dtype != tf.float64:
        raise ConversionError("np.array of a list whose length varies, other than of "
                              "Python floats")
    target = np.dtype(np.float64 if dtype is None else dtype)
    if target == np.float64:
        return HostArray(tf.identity(items.stacked), target)
    if target != np.float32:
        raise ConversionError(f"np.array of Python floats as {target}")
    values = items.stacked
    cast = tf.cast(values, tf.float32)
    checks.require(tf.reduce_all(tf.logical_and(
        tf.logical_and(checks.normal_or_zero(cast),
                       tf.logical_or(tf.not_equal(cast, 0.0), tf.equal(values, 0.0))),
        tf.logical_or(tf.math.is_finite(cast), tf.logical_not(tf.math.is_finite(values))))))
    return HostArray(cast, target)


def python_sum(items: DynamicList, start=0):
    """`sum(items, start)` of a list of Python numbers whose length varies: a fed number
    (the type Python's sum gives: an int for ints and bools, a float for floats)."""
    if items.kind not in (int, float, bool) or not tf.is_tensor(items.stacked) or \
            items.stacked.shape.rank != 1 or items.stacked.dtype != \
            {int: tf.int64, float: tf.float64, bool: tf.bool}[items.kind]:
        raise ConversionError("sum() of a list whose length varies, other than of Python "
                              "numbers")
    if type(start) not in (int, float) or abs(start) > exact_numbers.EXACT_FLOAT_INT:
        raise ConversionError("sum() of a list whose length varies with a start other than "
                              "a Python number")
    if type(start) is float and start != 0.0 and abs(start) < sys.float_info.min:
        raise ConversionError("sum() from a subnormal start (TensorFlow reads it as zero)")
    values = items.stacked
    if items.kind is not float:
        if type(start) is float:
            raise ConversionError("sum() of Python ints from a float start")
        total, ok = float_sums.python_int_sum(tf.concat([[start], tf.cast(values, tf.int64)],
                                                        0))
        checks.require(ok)
        return SymbolicScalar(total, int)
    if _COMPENSATED:
        raise ConversionError("sum() of Python floats (from Python 3.12 on it compensates "
                              "its rounding errors)")
    if type(start) is int:  # an empty list's sum is the int start: not a float
        checks.require(tf.greater(tf.shape(values)[0], 0))
    low, high = checks.FAST_RANGE[tf.float64]
    checked = not (start == 0 or low <= abs(start) <= high) or \
        not exact_numbers.items_by_range(values)
    total, ok = float_sums.python_float_sum(values, float(start), checked)
    checks.require(ok)
    return SymbolicScalar(total, float)
