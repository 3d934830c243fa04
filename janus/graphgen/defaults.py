"""Default argument values a trace would use: only immutable ones may be folded in.

A default is one object evaluated once, when the `def` ran: `def h(a, seen=[])` keeps
its list across calls. A trace that used such a default would treat it as an object of
the call (a mutation happens once, while tracing) or fold what it read as a constant,
though the heap object lives on. janus cannot locate a default on each call, so a trace
that would use a mutable default refuses (the call runs plainly); immutable defaults
(None, numbers, strings, dtypes, functions, tuples of those, eager tensors) are
constants of the function, as in Python, guarded where janus locates the function
(F217: `scaled.__defaults__ = (3.0,)` rebound between calls kept the old default):

    scaled(x)      ->  guard G['scaled'].__defaults__ is <tuple>  (it cannot change in place)
    scaled(x)      ->  guard G['scaled'].__kwdefaults__['b'] is <float>  (a dict: per item)
"""
from __future__ import annotations

import types

import numpy as np
import tensorflow as tf

from janus.errors import ConversionError
from janus.fallback.heap import MISSING
from janus.tensors import is_tensor

_SCALARS = (type(None), bool, int, float, complex, str, bytes, np.generic, tf.DType,
            tf.TensorShape, types.FunctionType, types.BuiltinFunctionType, type,
            types.ModuleType, type(Ellipsis))


def immutable(value) -> bool:
    """Whether `value` can be folded into a graph as the constant it is (it never changes)."""
    if isinstance(value, _SCALARS):
        return True
    if type(value) in (tuple, frozenset):
        return all(immutable(v) for v in value)
    return is_tensor(value) and not isinstance(value, tf.Variable) and hasattr(value, "numpy")


def used_defaults(fn, args: tuple, kwargs: dict):
    """(name, value) of each default `fn(*args, **kwargs)` would use."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return
    names = code.co_varnames
    positional = names[:code.co_argcount]
    defaults = fn.__defaults__ or ()
    first = len(positional) - len(defaults)
    for i in range(max(first, len(args)), len(positional)):
        if positional[i] not in kwargs:
            yield positional[i], defaults[i - first]
    kwdefaults = fn.__kwdefaults__ or {}
    for name in names[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]:
        if name not in kwargs and name in kwdefaults:
            yield name, kwdefaults[name]


def check_defaults(fn, args: tuple, kwargs: dict) -> None:
    """Refuse (ConversionError) a call of `fn` that would use a mutable default."""
    for name, value in used_defaults(fn, args, kwargs):
        if not immutable(value):
            raise ConversionError(
                f"{getattr(fn, '__qualname__', fn)} uses the default value of `{name}`, a "
                f"{type(value).__name__} created once when the function was defined (its state "
                "lives on across calls; janus cannot locate it on each call)")


def guard_defaults(tracer, fn, args: tuple, kwargs: dict) -> None:
    """Guard the defaults a call of `fn` uses by identity where janus locates `fn` (a
    function made in the trace has its defaults of this call; one janus cannot locate is
    folded in as before)."""
    source = tracer.source_of(fn)
    used = [name for name, _ in used_defaults(fn, args, kwargs)]
    if source is None or not used:
        return
    for name in ("__defaults__", "__kwdefaults__"):
        try:
            written = tracer.ledger.get_attr(fn, name) is not MISSING
        except AttributeError:  # (deleted earlier in this call)
            written = True
        if written:  # (Python binds the new ones now; janus would write them after)
            raise ConversionError(f"calls {getattr(fn, '__qualname__', fn)}, whose `{name}` "
                                  "this call rebound")
    kwdefaults = fn.__kwdefaults__ or {}
    if any(name not in kwdefaults for name in used):
        tracer.guard("id", source.attr("__defaults__"), fn.__defaults__)
    for name in used:
        if name in kwdefaults:
            tracer.guard("id", source.attr("__kwdefaults__").item(name), kwdefaults[name])
