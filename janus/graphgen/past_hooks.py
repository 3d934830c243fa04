"""Library code that would read the program's objects past janus's hooks.

    x, y = batch                     (a namedtuple: imported item by item, tracer.py)
    settings = dataclasses.asdict(cfg)        its fields read through the hooks instead
    "{0.lr}".format(cfg)                       (graphgen/plain_records.py, before this)
    pickle.dumps({"c": cfg})                   refused: reads `cfg`'s fields in C
    if trainer.stop.is_set():                  refused: `threading.Event`'s own method
    float(price)                               refused: a `Decimal` subclass's `__float__`
    isinstance(t, Scalable)                    refused: an ABC's registry may answer (F219)

An object of the program's that janus locates on the heap is guarded by its type; its
attributes are read, and guarded, through the hooks of converted code (`cfg.lr`). Library
code handed it reads them itself: the trace's values would be folded into the graph,
unguarded. So a library call refuses (that line runs in Python) when it is one that reads
an object's contents (`copy`, `dataclasses.asdict`, `pickle`, `operator`'s getters,
`str.format`, `inspect.getmembers`; also as a `key=`) handed such an object (also in a
list, tuple or dict it is handed; graphgen/plain_records.py first makes the calls that
read fields of a plain record holding numbers and text read them through the hooks), or
when the object's class has library code of its own (a `threading.Event`, a `UserList`
subclass, an `argparse.Namespace`) and the call is one of its methods or takes it as an argument
(`float(d)`, `repr(ns)`, `sum(buf)`), except calls that only look at its identity or type.
"""
from __future__ import annotations

import abc
import builtins
import types
import typing

from janus import user_attributes
from janus.errors import ConversionError
from janus.graphgen import layer_calls, plain_records
from janus.graphgen.value_kinds import is_opaque
from janus.tensors import is_tensor
from janus.transform.runtime import is_user_class

_NEUTRAL_BASES = (object, abc.ABC, typing.Generic, typing.Protocol)
"""Library bases without state-reading behaviour of their own."""

_IDENTITY_ONLY = (builtins.isinstance, builtins.issubclass, builtins.type, builtins.id,
                  builtins.callable, builtins.print, builtins.super, builtins.getattr,
                  builtins.hasattr)
"""Builtins that look at an object's identity or type only (print is deferred; `hash`
reads a tuple subclass's items, `setattr`/`delattr` are writes: graphgen/attributes.py)."""

_STORING = frozenset({"append", "insert", "__setitem__", "setdefault", "add", "extend"})
"""Container methods that store an argument without reading it."""

_CODE = (type, types.FunctionType, types.ModuleType, types.MethodType,
         types.BuiltinFunctionType)


def located_by_type(tracer, value) -> bool:
    """An object janus locates and guards by its type only (its contents through hooks)."""
    return tracer.source_of(value) is not None and id(value) not in tracer.imported and \
        type(value) not in (list, dict, tuple) and not isinstance(value, _CODE) and \
        not is_tensor(value) and not is_opaque(value)


def library_based(value) -> bool:
    """Whether the object's class has library code of its own (a base not the program's)."""
    return any(cls not in _NEUTRAL_BASES and not is_user_class(cls)
               for cls in type(value).__mro__)


def _reads_contents(fn) -> bool:
    import copy
    import dataclasses
    import inspect
    import json
    import operator
    import pickle

    if isinstance(fn, (operator.attrgetter, operator.itemgetter, operator.methodcaller)):
        return True
    if isinstance(user_attributes.get(fn, "__self__", None), str) and \
            user_attributes.get(fn, "__name__", "") in ("format", "format_map"):
        return True  # (`"{0.lr}".format(cfg)`)
    return any(fn is f for f in (copy.copy, copy.deepcopy, dataclasses.asdict,
                                 dataclasses.astuple, dataclasses.replace, json.dumps,
                                 pickle.dumps, inspect.getmembers, builtins.format,
                                 builtins.dir, inspect.getattr_static))


def _virtual_classes(fn, args: tuple) -> list:
    """The classes an `isinstance(obj, cls)` / `issubclass(c, cls)` answer depends on
    past the object's type (F219): an ABC of the program's whose registry or
    `__subclasshook__` may answer (`Scalable.register(Thing)` between calls), a
    runtime-checkable Protocol (the object's attributes answer); not where the class is
    among the type's bases (the answer is True whatever the registry holds)."""
    if not (fn is builtins.isinstance or fn is builtins.issubclass) or len(args) != 2:
        return []
    kind = args[0] if fn is builtins.issubclass else type(args[0])
    classes = args[1] if type(args[1]) is tuple else (args[1],)
    mro = getattr(kind, "__mro__", ())
    return [cls for cls in classes if isinstance(cls, abc.ABCMeta) and cls not in mro and
            (getattr(cls, "_is_protocol", False) or is_user_class(cls))]


def refuse(tracer, fn, args: tuple, kwargs: dict) -> None:
    """Raise where library call `fn(*args, **kwargs)` would read an object past the hooks
    (the module docstring)."""
    name = user_attributes.get(fn, "__qualname__", None) or type(fn).__name__
    values = list(args) + list(kwargs.values())
    if _reads_contents(fn) or any(_reads_contents(v) for v in kwargs.values()):
        for value in plain_records.held(values):  # (in a list, tuple or dict too: F290)
            if located_by_type(tracer, value):
                raise ConversionError(f"hands a {type(value).__name__} "
                                      f"({tracer.source_of(value).expr}) to {name}, which "
                                      "reads its contents past janus's hooks")
    owner = user_attributes.get(fn, "__self__", None)
    if owner is not None and not isinstance(owner, types.ModuleType) and \
            located_by_type(tracer, owner) and library_based(owner) and \
            not layer_calls.base_call(owner, fn):  # (`super().call(x)` of a layer)
        raise ConversionError(f"calls {name} of a {type(owner).__name__} "
                              f"({tracer.source_of(owner).expr}): library code reading its "
                              "state past janus's hooks")
    virtual = _virtual_classes(fn, args)
    if virtual:
        raise ConversionError(f"asks {name} of {virtual[0].__qualname__}, whose answer "
                              "its registry or the object's attributes give (they may "
                              "change between calls; janus has no guard on them)")
    if any(fn is f for f in _IDENTITY_ONLY) or \
            user_attributes.get(fn, "__name__", "") in _STORING and type(owner) in (list, dict, set):
        return
    for value in values:
        if located_by_type(tracer, value) and library_based(value):
            raise ConversionError(f"hands a {type(value).__name__} "
                                  f"({tracer.source_of(value).expr}) to {name}: library "
                                  "code of its class would read its state past janus's hooks")
