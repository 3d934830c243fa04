"""Comparable snapshots of values and heaps, and the difference between two of them.

`snapshot(value)` turns tensors, variables, arrays, Python values, containers and
objects (by their attributes) into nested tuples; `difference(a, b)` returns None
when they agree (floating tensors within rtol/atol 1e-5, Python types exact) or a
one-line description of the first difference.
"""
from __future__ import annotations

import collections
import logging
import re
import sys
import types

import numpy as np
import tensorflow as tf

from janus.tensors import is_tensor
from janus.user_attributes import has

TOL = 1e-5
_STATIC = (types.FunctionType, types.BuiltinFunctionType, type, types.ModuleType,
           types.MethodType)


def snapshot(value, seen=None):
    seen = set() if seen is None else seen
    if isinstance(value, tf.Variable):
        return ("variable", value.dtype.name, np.array(value.numpy()))
    if isinstance(value, tf.IndexedSlices):  # (a gradient of a gather: its parts)
        return ("namedtuple", "IndexedSlices", [snapshot(v, seen) for v in (
            value.values, value.indices, value.dense_shape)])
    if isinstance(value, tf.SparseTensor):  # (composite: its parts)
        return ("namedtuple", "SparseTensor", [snapshot(v, seen) for v in (
            value.indices, value.values, value.dense_shape)])
    if isinstance(value, tf.RaggedTensor):
        return ("namedtuple", "RaggedTensor", [snapshot(v, seen) for v in (
            value.flat_values, *value.nested_row_splits)])
    if is_tensor(value):
        return ("tensor", tf.as_dtype(value.dtype).name, np.array(value.numpy()))
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.name, value.copy())
    if isinstance(value, np.generic):
        return ("npscalar", type(value).__name__, value.item())
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return (type(value).__name__, value)
    if isinstance(value, _STATIC) or has(value, "__janus_function__") or \
            callable(value) and has(value, "__wrapped__"):  # (functools.lru_cache...)
        # (a function the program decorated with JIT is janus's wrapper on one side)
        return ("static", getattr(value, "__qualname__", "?"))
    if isinstance(value, logging.Logger):  # (the program's own records, not TF's)
        # (a logger named after the program's module: the two sides' modules differ)
        return ("logger", _SIDE.sub("<module>", value.name), _records(value))
    if id(value) in seen:
        return ("cycle",)
    seen.add(id(value))
    try:
        if type(value) in (list, tuple, collections.deque):
            return (type(value).__name__, [snapshot(v, seen) for v in value])
        if isinstance(value, tuple) and hasattr(type(value), "_fields"):  # a namedtuple
            return ("namedtuple", type(value).__qualname__, [snapshot(v, seen) for v in value])
        if type(value) in (dict, collections.defaultdict, collections.OrderedDict,
                           collections.Counter):
            return (type(value).__name__, [(repr(k), snapshot(v, seen))
                                           for k, v in value.items()])
        if _keras_layer(value):  # (a layer class of the program's: its public attributes)
            return ("layer", type(value).__qualname__,
                    [(k, snapshot(v, seen)) for k, v in sorted(vars(value).items())
                     if not k.startswith("_")])
        if isinstance(value, dict) and has(value, "__dict__") and \
                not type(value).__module__.startswith(("tensorflow", "keras", "numpy")):
            return ("container", type(value).__qualname__,  # (an AttrDict: items, attributes)
                    [(repr(k), snapshot(v, seen)) for k, v in value.items()] +
                    [("." + k, snapshot(v, seen)) for k, v in sorted(vars(value).items())])
        if has(value, "__dict__") and not type(value).__module__.startswith(
                ("tensorflow", "keras", "numpy")):
            return ("object", type(value).__qualname__,
                    [(k, snapshot(v, seen)) for k, v in sorted(vars(value).items())])
        if isinstance(value, (list, dict)):  # (a subclass: Keras's TrackedList, TrackedDict)
            items = value.items() if isinstance(value, dict) else enumerate(value)
            return ("container", type(value).__qualname__,
                    [(repr(k), snapshot(v, seen)) for k, v in items])
        return ("opaque", type(value).__qualname__)
    finally:
        seen.discard(id(value))


def _keras_layer(value) -> bool:
    layers = getattr(sys.modules.get("keras"), "layers", None)
    return layers is not None and isinstance(value, layers.Layer) and \
        not type(value).__module__.startswith("keras")


def _short(snap) -> str:
    text = repr(snap)
    return text if len(text) < 200 else text[:200] + "..."


def difference(expected, actual, where: str = "value", tol: float = TOL) -> str | None:
    if type(actual) is not type(expected) or actual[0] != expected[0]:
        return f"{where}: plain {_short(expected)}, janus {_short(actual)}"
    kind = expected[0]
    if kind == "variable":
        where += " (variable)"
    if kind in ("variable", "tensor", "ndarray"):
        if actual[1] != expected[1]:
            return f"{where}: dtype plain {expected[1]}, janus {actual[1]}"
        a, e = actual[2], expected[2]
        if a.shape != e.shape:
            return f"{where}: shape plain {e.shape}, janus {a.shape}"
        if e.dtype.kind in "fc":
            ok = np.allclose(a, e, rtol=tol, atol=tol, equal_nan=True)
        else:
            ok = np.array_equal(a, e)
        return None if ok else f"{where}: plain {e!r}, janus {a!r}"
    if kind in ("list", "tuple", "deque"):
        if len(actual[1]) != len(expected[1]):
            return f"{where}: length plain {len(expected[1])}, janus {len(actual[1])}"
        for i, (e, a) in enumerate(zip(expected[1], actual[1])):
            d = difference(e, a, f"{where}[{i}]", tol)
            if d:
                return d
        return None
    if kind == "namedtuple":
        if actual[1] != expected[1]:
            return f"{where}: plain {expected[1]}, janus {actual[1]}"
        return difference(("tuple", expected[2]), ("tuple", actual[2]), where, tol)
    if kind in ("dict", "defaultdict", "OrderedDict", "Counter"):
        ke, ka = [k for k, _ in expected[1]], [k for k, _ in actual[1]]
        if ke != ka:
            return f"{where}: keys plain {ke}, janus {ka}"
        for (k, e), (_, a) in zip(expected[1], actual[1]):
            d = difference(e, a, f"{where}[{k}]", tol)
            if d:
                return d
        return None
    if kind in ("object", "layer", "container"):
        ne, na = [k for k, _ in expected[2]], [k for k, _ in actual[2]]
        if actual[1] != expected[1] or ne != na:
            return f"{where}: plain {expected[1]}{ne}, janus {actual[1]}{na}"
        for (k, e), (_, a) in zip(expected[2], actual[2]):
            d = difference(e, a, f"{where}.{k}", tol)
            if d:
                return d
        return None
    if kind == "npscalar" and actual[1] == expected[1] and isinstance(expected[2], float):
        expected, actual = ("float", expected[2]), ("float", actual[2])  # (its type: equal)
        kind = "float"
    if kind == "float":
        e, a = expected[1], actual[1]
        if a == e or abs(a - e) <= tol + tol * abs(e) or (a != a and e != e):
            return None
        return f"{where}: plain {e!r}, janus {a!r}"
    if actual != expected:
        return f"{where}: plain {_short(expected)}, janus {_short(actual)}"
    return None


_SIDE = re.compile(r"^(fz_\d+_\d+_(plain|janus)|fzw_\d+)")  # (a warm run's file: fzw_<seed>)


def _records(logger) -> list:
    """What `logger` logged that its handlers and its ancestors' kept (a test's capture
    handler): TensorFlow's own messages (a traced write's "object was never used") are
    not the program's output."""
    records, current = [], logger
    while current is not None:
        for handler in current.handlers:
            records += [(r.levelname, r.getMessage()) for r in getattr(handler, "records", ())
                        if r.name == logger.name]
        current = current.parent if current.propagate else None
    return records


def module_heap(module) -> dict:
    """The module's data globals (containers, numbers, variables), not its code."""
    return {k: v for k, v in vars(module).items()
            if not k.startswith("__") and not isinstance(v, _STATIC) and
            not has(v, "__janus_function__")}


_NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+e[-+]?\d+")


def _skeleton(text: str) -> list[str]:
    """The text between decimal numbers, without the spaces next to a number (numpy pads
    printed arrays to the widest number)."""
    parts = _NUMBER.split(text)
    for i in range(len(parts)):
        if i > 0:
            parts[i] = parts[i].lstrip(" ")
        if i < len(parts) - 1:
            parts[i] = parts[i].rstrip(" ")
    return parts


def text_difference(expected: str, actual: str, tol: float = TOL) -> str | None:
    """Printed output must match exactly, except that decimal numbers (printed tensors and
    floats) may differ within the tensor tolerance, and so the spaces numpy pads them
    with: graphs may round the last bit differently from eager kernels, as in the
    return values."""
    if expected == actual:
        return None
    skeleton_e, skeleton_a = _skeleton(expected), _skeleton(actual)
    numbers_e, numbers_a = _NUMBER.findall(expected), _NUMBER.findall(actual)
    if skeleton_e != skeleton_a or len(numbers_e) != len(numbers_a):
        return f"plain {expected!r}; janus {actual!r}"[:400]
    for e, a in zip(numbers_e, numbers_a):
        fe, fa = float(e), float(a)
        if not (fe == fa or abs(fa - fe) <= tol + tol * abs(fe)):
            return f"plain {expected!r}; janus {actual!r}"[:400]
    return None
