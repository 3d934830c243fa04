"""Library objects a trace made that its graph hands out (returned, stored on the heap).

Plain Python makes such an object anew on every call; a graph's run does not run the
Python that made it. Handed back as a constant of the graph, every run would hand out
the trace's object, with what earlier calls did to it (F150: a Keras model made in a
segment of a split function came back from each graph run, its BatchNormalization
statistics moving on from the earlier call's instead of starting afresh). So an
object the trace read from nowhere janus can locate (`Tracer.source_of` is None) is,
when the graph hands it out:

- handed back as it is if it cannot change: a TensorShape, a dtype, a TypeSpec, a numpy
  scalar, a frozenset, a range, an enum member; a function, a class or a module;
- copied afresh on every run if it is a container of such values whose contents the
  trace fixed from what it guarded (a numpy array, a set, a bytearray): one copy per
  object and run, so two places handed one object still hold one object;
- refused otherwise (a Keras layer or model, an optimizer, a tf.Module, a numpy random
  generator...): how Python makes it is no function of its arguments (initial weights
  drawn, a name from a global counter), so the graph cannot stand for it.
"""
from __future__ import annotations

import enum
import types

import numpy as np
import tensorflow as tf

from janus import user_attributes
from janus.errors import ConversionError

_VALUES = (tf.TensorShape, tf.dtypes.DType, tf.TypeSpec, np.dtype, np.generic, np.ufunc,
           frozenset, range, slice, enum.Enum, type(Ellipsis), type(NotImplemented))
"""Library objects no method changes: a graph hands out the trace's object."""
_STATIC = (types.ModuleType, types.FunctionType, type)
_COPIED = (np.ndarray, set, bytearray)
"""Containers of values, copied afresh on every run."""
_BOUND = (types.MethodType, types.BuiltinMethodType)


def skeleton(value, tracer) -> tuple:
    """The skeleton (see fallback/heap.py) of `value`, an object the trace made or read
    from nowhere it can locate, handed out of its graph: ("const", value) or
    ("fresh", value); raises ConversionError for an object the graph cannot stand for."""
    if _unchanging(value, tracer):
        return ("const", value)
    if isinstance(value, _COPIED) and _copyable(value, tracer):
        return ("fresh", value)
    raise ConversionError(f"a {type(value).__name__} made while janus traces the function "
                          "escapes it (returned or stored on the heap): a graph would hand "
                          "out the trace's object on every call, not a new one")


def fresh(value, copies: dict | None):
    """A new copy of `value` (a "fresh" skeleton's object) for this run; the same copy
    for every place of one run that held it (`copies`: id -> copy, per run)."""
    if copies is not None and id(value) in copies:
        return copies[id(value)]
    if isinstance(value, np.ndarray):
        made = value.copy()
        made.flags.writeable = value.flags.writeable
    else:
        made = type(value)(value)
    if copies is not None:
        copies[id(value)] = made
    return made


def _unchanging(value, tracer) -> bool:
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes) + _VALUES):
        return True
    if isinstance(value, _STATIC) or isinstance(value, types.BuiltinFunctionType) and \
            _unbound(value):
        return True
    if isinstance(value, _BOUND):  # a method of the object it is bound to: that object's
        owner = value.__self__    # own case (the method of a new model is not a constant)
        return tracer.source_of(owner) is not None or _unchanging(owner, tracer)
    if isinstance(value, tuple):
        return all(_unchanging(v, tracer) for v in value)
    return False


def _unbound(fn) -> bool:
    """A builtin function (`len`, `np.add.reduce`), not a method bound to an object."""
    owner = user_attributes.get(fn, "__self__")
    return owner is None or isinstance(owner, (types.ModuleType, type)) or \
        isinstance(owner, _VALUES)


def _copyable(value, tracer) -> bool:
    """Whether a new copy on every run is what plain Python's call makes: items that
    cannot change, and an array not a view of an array on the heap or of one the graph
    hands out in another place (its copy would no longer share their memory)."""
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return False
        base = value
        while isinstance(base.base, np.ndarray):
            base = base.base
        if base is not value and tracer.source_of(base) is not None:
            return False
        handed = tracer.handed_arrays
        if any(other is not value and np.may_share_memory(other, value)
               for other in handed.values()):
            return False
        handed[id(value)] = value
        return True
    return all(_unchanging(v, tracer) for v in value)
