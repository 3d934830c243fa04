"""Tensor conversion functions of the program's, which TensorFlow runs unconverted while
janus traces.

    tf.register_tensor_conversion_function(Scaled, to_tensor)
    def to_tensor(value, dtype=None, name=None, as_ref=False):
        return tf.constant(value.v * value.k * GAIN, dtype=dtype)

    tf.add(x, s.p)   /   x * s.p   /   tf.convert_to_tensor(s.p)

TensorFlow calls `to_tensor` inside the op that converts `s.p`: its reads of `value.v`
and of `GAIN` were folded into the graph unguarded (plain gave 3.0, then 5.0 as `s.p.v`
changed; the graph 2.0 for good). The registered functions of the program's are wrapped
(`install`, on each trace, for the ones registered since): called while a trace runs,
their reads are checked like any function janus runs unconverted
(graphgen/unconverted_reads.py): an immutable field of the converted object
(`value.v`, its first parameter standing for the object, found through its source) or a
global is guarded by value, a variable read when the graph runs; a field the call wrote
before, other data, a Python write refuse the call. An object the call made itself holds
the trace's own values: only its function's other reads are checked. Outside a trace the
wrapper calls the function as it is.
"""
from __future__ import annotations

import functools
import threading
import types

from tensorflow.python.framework import tensor_conversion_registry as _registry

from janus.errors import ConversionError
from janus.graphgen import active, unconverted_reads
from janus.transform.runtime import is_user_code

_lock = threading.Lock()
_seen = 0  # entries of the registry looked at so far (it only grows)


def install() -> None:
    """Wrap the program's conversion functions registered since the last look (cheap when
    none was: one count)."""
    global _seen
    table = getattr(_registry, "_tensor_conversion_func_registry", None)
    if not isinstance(table, dict):
        return  # (another TF layout)
    if sum(len(entries) for entries in table.values()) == _seen:
        return
    with getattr(_registry, "_tensor_conversion_func_lock", _lock):
        changed = False
        for entries in table.values():
            for i, (base_type, function) in enumerate(entries):
                if _program_s(function) and not getattr(function, "__janus_guarded__", False):
                    entries[i] = (base_type, _guarded(function))
                    changed = True
        _seen = sum(len(entries) for entries in table.values())
        if changed:
            _registry._tensor_conversion_func_cache.clear()


def _program_s(function) -> bool:
    """A function (a method, a partial, a callable object) of the program's."""
    target = getattr(function, "__func__", None) or getattr(function, "func", None) or \
        function
    if isinstance(target, types.FunctionType):
        return is_user_code(target)
    call = getattr(type(function), "__call__", None)
    return isinstance(call, types.FunctionType) and is_user_code(call)


def _guarded(function):
    @functools.wraps(function)
    def conversion(value, *args, **kwargs):
        tracer = active.get()
        if tracer is not None:
            checked(tracer, function, value)
        return function(value, *args, **kwargs)
    conversion.__janus_guarded__ = True
    return conversion


def checked(tracer, function, value) -> None:
    """Guard what `function` (converting `value`) reads, or refuse (ConversionError)."""
    name = getattr(function, "__qualname__", type(function).__name__)
    if not isinstance(function, types.FunctionType):
        raise ConversionError(f"converts a {type(value).__name__} to a tensor with "
                              f"{name}, which janus cannot read through")
    code = function.__code__
    local = id(value) in tracer.local_objects
    self_names = None if local or not code.co_argcount else \
        {id(function): code.co_varnames[0]}
    reason = unconverted_reads.reason([function], tracer, owner=value, self_names=self_names)
    if reason:
        raise ConversionError(f"converts a {type(value).__name__} to a tensor with a "
                              f"function of the program's: {reason}")
