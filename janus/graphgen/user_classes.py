"""What Python runs implicitly for the program's own classes while janus traces.

Converted code hooks calls, attribute reads and writes; Python itself still runs a
class's `__init__` when the class is called, a descriptor's `__get__` when its attribute
is read, a `__setattr__` override when an attribute is written. Run as they are, their
heap writes happen once, while tracing, and never when the graph runs (F185, the probes'
round: a constructor's `made.append(1)`, `type(self).count += 1`, a descriptor counting
its reads). So:

    C(x)         ->  obj = object.__new__(C); C.__init__(obj, x), converted (its heap
                     writes deferred as the function's own); a class with a library base,
                     a `__new__` or a metaclass of the library's is made as it is
    o.w          ->  Counted.__get__(o.__class__.w, o, C), converted, where `w` is a
                     descriptor of the user's (not a function, property, classmethod or
                     staticmethod); C.__getattr__(o, "w"), converted, where `w` is found
                     nowhere else (a config object's fallback); refused where the class
                     overrides `__getattribute__`
    o.w = v      ->  the descriptor's `__set__`, converted; refused where the class
    del o.w          overrides `__setattr__` / `__delattr__`
    del o.w; o.w ->  the class's `w` (`after_delete`: the call's deletion is deferred)
    o.norm       ->  a `functools.cached_property` of the program's class: its cached
                     value read from `o.__dict__`; not cached yet, refused (computed as it
                     is, it ran the user's function unconverted and stored the trace's
                     value in the instance: F215)
    o.w          ->  a `property` of the program's class whose getter is library code
                     (`property(partial(f, ...))`): the getter called as converted code
                     calls a function

A refusal is a ConversionError at the line: that code runs in Python.
"""
from __future__ import annotations

import functools
import sys
import types

from janus.errors import ConversionError
from janus.fallback.heap import MISSING
from janus.graphgen import class_reads, finalizers
from janus.transform.runtime import is_user_code

UNHANDLED = object()

_PLAIN = (types.FunctionType, property, staticmethod, classmethod)
_OVERRIDES = {"get": "__getattribute__", "set": "__setattr__", "del": "__delattr__"}
_DESCRIPTOR = {"get": "__get__", "set": "__set__", "del": "__delete__"}


def _users(fn) -> bool:
    return isinstance(fn, types.FunctionType) and is_user_code(fn)


def _class_is_users(cls: type) -> bool:
    """A class the program defined: its module's file is the program's (not the
    standard library's, an installed package's or janus's)."""
    module = sys.modules.get(cls.__module__ or "")
    filename = getattr(module, "__file__", None)
    if filename is None:  # (`__main__` run from a string, a class made by `type(...)`)
        return all(is_user_code(v) for v in vars(cls).values()
                   if isinstance(v, types.FunctionType)) and cls.__module__ != "builtins"
    probe = types.FunctionType((lambda: None).__code__.replace(co_filename=filename), {})
    probe.__module__ = cls.__module__
    return is_user_code(probe)


def user_property(obj, name: str):
    """The `property` of `obj`'s class named `name` whose functions are the program's
    own, or None. Run as they are during a trace, their reads and writes of the heap
    would bypass the trace's ledger (stale reads, writes done once: fuzz v15)."""
    if isinstance(obj, (types.ModuleType, type)):
        return None
    for cls in type(obj).__mro__:
        attribute = cls.__dict__.get(name)
        if attribute is not None:
            if not isinstance(attribute, property):
                return None
            fns = [f for f in (attribute.fget, attribute.fset, attribute.fdel) if f is not None]
            if fns and all(isinstance(f, types.FunctionType) and is_user_code(f) for f in fns):
                return attribute
            return None
    return None


def construct(call, tracer, cls: type, args: tuple, kwargs: dict):
    """`cls(*args, **kwargs)` made in the trace with its `__init__` converted (`call`:
    the runtime's call hook; the object one of the trace's own, `tracer.local_objects`),
    UNHANDLED where Python's own call is kept, or refused."""
    dies = finalizers.reason(cls)
    if dies:  # (before the object exists: its `__del__` would run once, later)
        raise ConversionError(dies)
    meta_call = getattr(type(cls), "__call__", None)
    if _users(meta_call):
        raise ConversionError(f"makes a {cls.__name__}, whose metaclass's `__call__` is the "
                              "program's own (it would run unconverted)")
    init = getattr(cls, "__init__", None)
    library_base = any(base is not object and not _class_is_users(base)
                       for base in cls.__mro__)
    if library_base and (_users(init) or _users(getattr(cls, "__new__", None))) and \
            not issubclass(cls, BaseException):
        # (`class Record(dict)`, a tf.Module or Keras layer subclass: the library's
        # `__init__`/`__new__` runs the program's own unconverted, its writes made once)
        raise ConversionError(f"makes a {cls.__name__}, whose `__init__` is the program's "
                              "own under a library base class (it would run unconverted)")
    if type(cls) is not type or not _users(init) or library_base:
        return UNHANDLED
    if cls.__new__ is not object.__new__:
        raise ConversionError(f"makes a {cls.__name__}, whose `__new__` is the program's own "
                              "(it would run unconverted)")
    class_reads.guard_made_call(tracer, cls, "__init__")  # (`Huber.__init__ = ...`: F394)
    obj = object.__new__(cls)
    tracer.implicit_calls.watch(cls)  # (`v + w`: its `__add__` would run unconverted)
    tracer.local_objects.add(id(obj))
    tracer.keepalive.append(obj)
    returned = call(types.MethodType(init, obj), *args, **kwargs)
    if returned is not None:
        raise TypeError(f"__init__() should return None, not '{type(returned).__name__}'")
    return obj


def user_access(obj, name: str, how: str):
    """What Python would run of the program's own for an attribute access (`how`: "get",
    "set", "del"): (function, leading arguments) janus calls converted instead (a
    descriptor's `__get__`/`__set__`/`__delete__`, a `__getattr__` for a name found
    nowhere else), None for a plain access, or a refusal (a `__getattribute__`,
    `__setattr__` or `__delattr__` override: every access would run it)."""
    if isinstance(obj, (types.ModuleType, type)):
        return None
    cls = type(obj)
    override = getattr(cls, _OVERRIDES[how], None)
    if _users(override):
        raise ConversionError(f"{'reads' if how == 'get' else 'writes'} `{name}` of a "
                              f"{cls.__name__}, whose `{_OVERRIDES[how]}` is the program's "
                              "own (it would run unconverted)")
    for klass in cls.__mro__:
        attribute = klass.__dict__.get(name)
        if attribute is None:
            continue
        if not isinstance(attribute, _PLAIN):
            method = getattr(type(attribute), _DESCRIPTOR[how], None)
            if how == "get" and name in getattr(obj, "__dict__", ()) and not any(
                    hasattr(type(attribute), m) for m in ("__set__", "__delete__")):
                return None  # (a non-data descriptor: the instance's own value wins)
            if _users(method):
                return (method, (attribute, obj, cls) if how == "get" else (attribute, obj))
        return None
    getattr_ = getattr(cls, "__getattr__", None)
    if how == "get" and _users(getattr_) and name not in getattr(obj, "__dict__", {}):
        return (getattr_, (obj,))
    return None


def library_descriptor(obj, name: str):
    """The library descriptor a read of `obj.name` runs that would run the program's code
    or write the instance past the hooks (the module docstring), else None: a
    `functools.cached_property` (or a subclass) of any class, a `property` of one of the
    program's classes whose functions are not all the program's (`user_property`'s)."""
    if isinstance(obj, (types.ModuleType, type)):
        return None
    for cls in type(obj).__mro__:
        attribute = cls.__dict__.get(name)
        if attribute is None:
            continue
        if isinstance(attribute, functools.cached_property) or \
                isinstance(attribute, property) and _class_is_users(cls):
            return attribute
        return None
    return None


def after_delete(ledger, obj, name: str):
    """`obj.name` after the call deleted the instance's own (`del o.scale`): its class's
    (as the call may have written it, `ledger`), bound where it is a method or
    descriptor, as Python finds it; or AttributeError."""
    for cls in type(obj).__mro__:
        local = ledger.get_attr(cls, name)
        if local is MISSING and name in vars(cls):
            local = vars(cls)[name]
        if local is not MISSING:
            getter = getattr(type(local), "__get__", None)
            return local if getter is None else getter(local, obj, type(obj))
    raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
