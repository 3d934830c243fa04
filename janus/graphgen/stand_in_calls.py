"""Python builtins asked about janus's stand-ins, answered as for the values they stand for.

During a trace a Python number janus feeds is a `SymbolicScalar`, a list whose length
varies a `DynamicList`, an `.numpy()` read a `HostScalar`... Builtins asked about them
answer for the Python value, not the stand-in:

    isinstance(n, int)      True (n fed: a SymbolicScalar of kind int)
    type(n)                 int (type(s.log) of a list only appended to: list)
    float(n)                the fed number converted in the graph
    len(xs)                 the length tensor of a DynamicList
    range(n)                a SymbolicRange (graphgen/dynamic_sizes.py)
    round(x, 4)             x rounded after the run (graphgen/rounded.py)
    zip(xs, ys)             a zip over the graph's lists (tensor_lists.dynamic_zip)

A stand-in lacking an attribute the Python value has is janus's limit, not the user's
error (`missing_attribute`), and so is Python's TypeError about one (`misused`).
"""
from __future__ import annotations

import numpy as np
import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen import host_scalars
from janus.graphgen.dynamic_sizes import SymbolicRange, symbolic_range
from janus.graphgen.host_arrays import HostArray
from janus.graphgen.host_scalars import HostScalar
from janus.graphgen.keyed_writes import WriteOnlyDict
from janus.graphgen.rounded import RoundedLater
from janus.graphgen.rounded import answer as round_answer
from janus.graphgen.tensor_lists import dynamic_zip, grown_length
from janus.graphgen.value_kinds import is_symbolic, variable_read
from janus.graphgen.append_only import AppendOnlyList
from janus.graphgen.values import (Accumulator, DynamicList, MixedBool, SymbolicScalar,
                                   dynamic_length)

STAND_INS = (DynamicList, Accumulator, AppendOnlyList, SymbolicScalar, MixedBool,
             WriteOnlyDict)
"""janus's graph values standing in for Python lists and numbers."""

UNANSWERED = object()
"""`answer`'s result for a call it does not answer."""


def stands_for(value):
    """The Python type a trace-time stand-in stands for (a fed number is its int/float/
    bool, a list held as a tensor is a list, a fed array an ndarray), or None."""
    if isinstance(value, (SymbolicScalar, HostScalar)):
        return value.kind
    if isinstance(value, SymbolicRange):
        return range
    if isinstance(value, (DynamicList, AppendOnlyList, Accumulator)):
        return list
    if isinstance(value, WriteOnlyDict):
        return dict
    if isinstance(value, RoundedLater):
        return value.kind
    if isinstance(value, HostArray):
        return np.ndarray
    if isinstance(value, MixedBool):
        value._refuse()
    return None


def answer(fn, args: tuple, kwargs: dict):
    """`fn(*args, **kwargs)` if it is a builtin asked about a stand-in, else UNANSWERED."""
    if fn is isinstance and len(args) == 2 and not kwargs:
        kind = stands_for(args[0])
        if kind is not None:  # (fuzz v15: a fed int was not an int)
            return issubclass(kind, args[1])
        return UNANSWERED
    if fn is type and len(args) == 1 and not kwargs:
        kind = stands_for(args[0])  # (`type(s.log) is list`, s.log only appended to)
        if kind is not None:
            return kind
        return UNANSWERED
    if (fn is int or fn is float or fn is bool) and len(args) == 1 and not kwargs:
        value = variable_read(args[0])  # (`bool(s.on)`, `int(s.step)`: its value, F403)
        if isinstance(value, HostScalar) or is_symbolic(value) and \
                host_scalars.readable(value):  # (transform/breaks.in_graph_reads)
            scalar = value if isinstance(value, HostScalar) else \
                HostScalar(tf.stop_gradient(value))  # (a constant to a tape, as in eager)
            return scalar.number(fn)
        if isinstance(value, (SymbolicScalar, MixedBool)):
            number = value.truth() if isinstance(value, MixedBool) else value
            return number.convert(fn)
        return UNANSWERED
    if fn is round:  # (graphgen/rounded.py)
        rounded = round_answer(args, kwargs)
        if rounded is not None:
            return rounded
    if fn is range and not kwargs:
        ranged = symbolic_range(args)
        if ranged is not None:
            return ranged
    if fn is len and args and isinstance(args[0], DynamicList):
        return dynamic_length(args[0])
    if fn is len and len(args) == 1 and not kwargs and isinstance(args[0], Accumulator):
        return grown_length(args[0])
    if fn is len and len(args) == 1 and not kwargs and isinstance(args[0], AppendOnlyList) \
            and args[0].base is not None:  # (`len(s.history)`: plan.fed_lengths)
        return args[0].length()
    if (fn is zip or fn is enumerate) and any(isinstance(a, DynamicList) for a in args):
        return dynamic_zip(fn, args, kwargs)
    return UNANSWERED


def misused(exc: BaseException) -> ConversionError | None:
    """Python's own TypeError about a stand-in itself (`object of type 'AppendOnlyList' has
    no len()`, `'<' not supported between instances of 'DynamicList' and 'int'`), said as
    janus's limit (a ConversionError), or None: the Python value may well support what
    the stand-in lacks, so it is never the user's error (F381)."""
    if not isinstance(exc, TypeError):
        return None
    text = str(exc)
    kinds = STAND_INS + (HostScalar, HostArray, SymbolicRange, RoundedLater)
    named = next((kind.__name__ for kind in kinds if f"'{kind.__name__}'" in text), None)
    if named is None:
        return None
    error = ConversionError(f"an operation janus's stand-in ({named}: a value it "
                            f"generalized) does not support: {text}")
    error.__cause__, error.__traceback__ = exc, exc.__traceback__
    return error


def missing_attribute(obj, name: str) -> None:
    """Refuse `obj.name` of a stand-in that lacks it (the Python value may have it): the
    trace fails as janus's limit and the plan retreats from the generalization."""
    if isinstance(obj, WriteOnlyDict):  # (the trace is redone with the dict copied)
        obj._refuse(f"`.{name}`")
    if isinstance(obj, STAND_INS) and not hasattr(obj, name):
        raise ConversionError(f"`.{name}` of a value janus stands in for in the graph "
                              f"({type(obj).__name__}: a list or number it generalized)")
