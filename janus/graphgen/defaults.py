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

The jitted function's own defaults are guarded alike on every graph call (F273: `def
f(x, scale=2.0)`, `f.__defaults__ = (10.0,)` between calls kept 2.0), where its name
finds it (a global, a method of a global class; else a cell of this process), by value
where a record on disk can hold it (a graph loaded in another process checks the
defaults there: `def f(x, lr=LR)` may differ):

    f(x)           ->  guard G['f'] is <function f>; len(G['f'].__defaults__) == 1;
                       G['f'].__defaults__[0] == 2.0
    f(x)  (kw-only) -> guard G['f'].__kwdefaults__['scale'] == 2.0
"""
from __future__ import annotations

import types

import numpy as np
import tensorflow as tf

from janus.errors import ConversionError
from janus.fallback.heap import MISSING
from janus.graphgen.sources import Source, closure, global_, is_name
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


_RECORDABLE = (bool, int, float, str, type(None))  # (a guard on disk holds their values)


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


def own_source(fn) -> tuple[Source, object]:
    """Where the jitted function `fn` is found on each call, and what is there: its name
    in its module (`G['f']`, `G['Model'].step`, or the JitFunction made of it, which
    forwards `__defaults__`) when that holds `fn` with its very defaults, else a cell of
    this process holding `fn` (a function made in another function)."""
    found = _by_name(fn)
    if found is not None:
        return found
    cell = _CELLS.get(fn)
    if cell is None:
        cell = _CELLS[fn] = types.CellType(fn)
    return closure(0, cell), None


_CELLS: dict = {}  # fn -> the cell its guards read it from (see own_source)


def _by_name(fn):
    parts = getattr(fn, "__qualname__", "").split(".")
    globals_ = getattr(fn, "__globals__", None)
    if not all(is_name(p) for p in parts) or globals_ is None or parts[0] not in globals_:
        return None
    source, value = global_(parts[0]), globals_[parts[0]]
    try:
        for part in parts[1:]:
            source, value = source.attr(part), getattr(value, part)
    except Exception:  # noqa: BLE001 - not found by its name
        return None
    if value is not fn and (getattr(value, "__janus_function__", None) is not fn or
                            getattr(value, "__defaults__", MISSING) is not fn.__defaults__ or
                            getattr(value, "__kwdefaults__", MISSING) is not fn.__kwdefaults__):
        return None
    return source, value


def guard_own_defaults(tracer, fn, args: tuple, kwargs: dict) -> None:
    """Guard the defaults a call of the jitted function `fn` uses (its trace folds them
    in): by value where a record can hold them, else by identity (immutable: see
    `check_defaults`); the count of positional ones too (it places them)."""
    used = list(used_defaults(fn, args, kwargs))
    if not used:
        return
    source, found = own_source(fn)
    if found is not None:
        tracer.guard("id", source, found)
    positional = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    defaults = fn.__defaults__ or ()
    first = len(positional) - len(defaults)
    for name, value in used:
        if name in positional:
            tracer.guard("len", source.attr("__defaults__"), len(defaults))
            item = source.attr("__defaults__").item(positional.index(name) - first)
        else:
            item = source.attr("__kwdefaults__").item(name)
        if type(value) in _RECORDABLE and not (type(value) is float and value != value):
            tracer.guard("value", item, value)
        else:  # (NaN is not equal to itself)
            tracer.guard("id", item, value)


def follow_defaults(copy, fn) -> None:
    """`copy` (a function made from `fn` once: a split's outer code, a mixed runner's
    converted instance) takes `fn`'s defaults as they are now, rebound since (F273; a
    dict changed in place is the same dict)."""
    if copy is not None and (copy.__defaults__ is not fn.__defaults__ or
                             copy.__kwdefaults__ is not fn.__kwdefaults__):
        copy.__defaults__, copy.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__
