"""What kind of value a trace meets, decided by its type and module: a symbolic tensor, a
Python scalar or numpy number, an opaque library object (guarded by identity), an
immutable library value (by value), a builtin view or a mutable container janus does not
copy, a list or dict Keras or TF wraps for tracking, a tf.distribute PerReplica.

graphgen/tracer.py imports values by these kinds; the graphgen modules ask `is_symbolic`
of the values their operations meet.
"""
from __future__ import annotations

import collections
import datetime
import decimal
import enum
import fractions
import types

import numpy as np
import tensorflow as tf

from janus.graphgen.guards import EAGER_TENSOR

_SCALARS = (bool, int, float, str, bytes, complex, type(None))
NUMPY_NUMBERS = (np.integer, np.floating, np.bool_)
"""numpy scalars guarded by value (by identity before: a new np.int64 per call failed)."""


def is_symbolic(value) -> bool:
    """A tensor of a graph being traced (not an eager one)."""
    return isinstance(value, tf.Tensor) and not isinstance(value, EAGER_TENSOR)


def variable_read(value):
    """A tf.Variable whose Python truth or number a trace asks (`if s.on:`, `not s.count`,
    `bool(s.on)`, `int(s.step)`) as its value, read in the graph (the trace's own update
    of it included), as `bool(variable)` reads it eagerly (F403: the variable's own
    `__bool__` refused the graph for good); anything else as it is."""
    return value.value() if isinstance(value, tf.Variable) else value


def is_opaque(value) -> bool:
    """Objects whose methods janus does not convert (library objects): guarded by identity
    (an enum's member too: each is one object; an `operator.itemgetter`, a compiled `re`
    pattern: another of the same type would pass a type guard, F225)."""
    if isinstance(value, (tf.Module, tf.Variable, enum.Enum)):
        return True
    module = type(value).__module__ or ""
    return module.split(".")[0] in ("tensorflow", "keras", "tf_keras", "numpy", "builtins",
                                    "operator", "re")


_VALUE_OBJECTS = (decimal.Decimal, fractions.Fraction, datetime.date, datetime.time,
                  datetime.timedelta)
"""Immutable library values whose methods read their value: guarded by value (another
of the same type swapped in would pass a type guard)."""

_CONTAINERS = (set, bytearray, collections.deque, list, dict)
_VIEWS = (type({}.keys()), type({}.values()), type({}.items()), types.MappingProxyType,
          memoryview)
"""Builtin views of a mutable container (what they read changes with it)."""


def uncopied_container(value) -> bool:
    """A mutable container janus neither copies (only exact lists and dicts are copied,
    their changes written back after the graph) nor guards item by item: a set, a deque,
    a bytearray, a dict or list subclass (`defaultdict`, `Counter`, `OrderedDict`, a user
    `class Config(dict)`). A graph would fix its items at trace time and make its changes
    once (fuzz v20, F41). TensorFlow's own tracking wrappers (a Keras layer's list of
    sublayers) stay guarded by identity, as the library objects they are."""
    if type(value) in (list, dict) or not isinstance(value, _CONTAINERS):
        return False
    module = type(value).__module__ or ""
    return module.split(".")[0] not in ("tensorflow", "keras", "tf_keras")


def tracked_container(value) -> bool:
    """A list or dict Keras or TF wraps to track a layer's attributes (TrackedList,
    ListWrapper, TrackedDict, _DictWrapper)."""
    if type(value) in (list, dict) or not isinstance(value, (list, dict)):
        return False
    module = type(value).__module__ or ""
    return module.split(".")[0] in ("tensorflow", "keras", "tf_keras")


def _trackable(value) -> bool:
    """A layer, module or variable (what a tracked container's tracker follows)."""
    if isinstance(value, (tf.Module, tf.Variable)):
        return True
    if tracked_container(value):  # (a TrackedDict of data is data: `log.extend([{...}])`)
        return any(_trackable(v) for v in (value.values() if isinstance(value, dict)
                                           else value))
    module = type(value).__module__ or ""
    return module.split(".")[0] in ("keras", "tf_keras") and hasattr(value, "__dict__")


def _is_per_replica(value) -> bool:
    """A tf.distribute PerReplica value (from a distributed dataset or `strategy.run`)."""
    return type(value).__name__ == "PerReplica" and \
        type(value).__module__.startswith("tensorflow.python.distribute") and \
        isinstance(getattr(value, "values", None), tuple)
