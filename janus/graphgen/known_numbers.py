"""The value a fed number has in the call being traced (F455): a `SymbolicScalar` read
from the heap carries it (`known`), and arithmetic and comparisons with Python numbers
and other known ones compute it as Python does, so that a tensor-valued test on a step
counter is specialized to this call's outcome, not to the last profiled call's.

    s.n += 1                  fed: the trace's `s.n` is 6 in this call (known 6, then 7)
    if s.n % 2 == 0:          known False: the graph asserts `s.n % 2 != 0`, traced for
        print(...)            this call, which it then runs (before: True, the profiled
                              call's outcome, one call behind a test of period 2)

A known value only chooses which outcome the trace asserts: the graph checks it in-graph
like any other (a wrong guess reruns the call), so it is a hint, never an assumption.
"""
from __future__ import annotations

import operator

import tensorflow as tf

UNKNOWN = object()
"""No value known for this call (computed with a tensor, merged from branches...)."""

_OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
        "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
        "pow": operator.pow, tf.equal: operator.eq, tf.not_equal: operator.ne,
        tf.less: operator.lt, tf.less_equal: operator.le, tf.greater: operator.gt,
        tf.greater_equal: operator.ge}

_MAX_EXPONENT = 64
"""A known `a ** b` with a larger int exponent stays unknown (Python would compute a
huge int for the hint)."""


def combine(op, left, right):
    """`left <op> right` as Python computes it (`op`: an arithmetic name or a TF
    comparison of `SymbolicScalar._binary`), UNKNOWN if either is unknown or Python
    raises (a zero divisor: the graph's own check decides)."""
    fn = _OPS.get(op)
    if fn is None or left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    if fn is operator.pow and type(right) is int and abs(right) > _MAX_EXPONENT:
        return UNKNOWN
    try:
        return fn(left, right)
    except (ArithmeticError, ValueError, TypeError):
        return UNKNOWN


def convert(value, kind):
    """`kind(value)` (bool/int/float of a known number, or its negation), UNKNOWN if
    Python raises (an int of a nan or an inf)."""
    if value is UNKNOWN:
        return UNKNOWN
    try:
        return kind(value)
    except (ArithmeticError, ValueError, TypeError):
        return UNKNOWN


def truth(known) -> bool | None:
    """The outcome a test on a value known to be `known` has in this call, or None."""
    return None if known is UNKNOWN else bool(known)
