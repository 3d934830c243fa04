"""A module's namespace read as a dict in a trace: its items are that module's globals.

    globals()['LR']                       ->  the global `LR` (guarded, fed: `G['LR']`)
    vars(cfg)['LR'], cfg.__dict__['LR']   ->  cfg's global `LR` (`MOD['cfg']['LR']`)
    sys.modules[__name__].__dict__.get('LR', 0.1)  ->  the same, where `LR` is there
    globals()['LR'] = v                   ->  stored as the global, after the graph ran

The namespace has no source of its own (the dict is a constant of its module), so an item
read from it went unguarded: the graph kept the value it traced after `LR = 0.5` (F232).
Any other use of a program module's namespace in a trace (its keys, `len`, a default for
a name that is absent, handing it to a call) would read the heap once, while tracing:
the trace refuses it.
"""
from __future__ import annotations

import sys
import types

from janus import user_attributes
from janus.errors import ConversionError
from janus.fallback.heap import MISSING
from janus.graphgen.sources import Source, global_
from janus.transform.runtime import is_user_module
from janus.operation_hooks import operation_hook

UNHANDLED = object()


def source_of(tracer, obj):
    """`name -> Source` of the globals of the program's module whose namespace `obj` is,
    or None (not a namespace; a library module's, whose items are its constants)."""
    if type(obj) is not dict:
        return None
    top = tracer.top_function
    if top is not None and obj is top.__globals__:
        return lambda key: global_(key)
    name = obj.get("__name__")
    module = sys.modules.get(name) if isinstance(name, str) else None
    if module is None or getattr(module, "__dict__", None) is not obj or \
            not is_user_module(module):
        return None
    return lambda key: global_(key, name, obj)


def _source(tracer, namespace: dict, key, make) -> Source:
    if type(key) is not str:
        raise ConversionError(f"reads a module's namespace with a {type(key).__name__} key")
    return make(key)


@operation_hook
def read(tracer, namespace: dict, key, make):
    """`namespace[key]`: the module's global, as the ledger or the heap holds it."""
    source = _source(tracer, namespace, key, make)
    stored = tracer.ledger.get_global(namespace, key)
    if stored is not MISSING:  # (`global LR; LR = ...` earlier in the call)
        return stored
    return tracer.import_value(namespace[key], source)


def write(tracer, namespace: dict, key, value, make) -> None:
    """`namespace[key] = value`: the module's global, stored after the graph ran."""
    tracer.ledger.set_global(namespace, key, _source(tracer, namespace, key, make), value)


@operation_hook
def call(tracer, fn, args: tuple, kwargs: dict):
    """`vars(module)` (its namespace), `ns.get(key[, default])` of a present key (a
    global read); any other call given a program module's namespace is refused."""
    if fn is vars and len(args) == 1 and not kwargs and isinstance(args[0], types.ModuleType):
        return vars(args[0])  # (read through `read` above, item by item)
    owner = user_attributes.get(fn, "__self__", None)
    make = source_of(tracer, owner) if type(owner) is dict else None
    if make is not None:
        name = user_attributes.get(fn, "__name__", "")
        if name == "get" and 1 <= len(args) <= 2 and not kwargs and \
                type(args[0]) is str and (args[0] in owner or tracer.ledger.get_global(owner, args[0]) is not MISSING):
            return read(tracer, owner, args[0], make)
        raise ConversionError(f"calls `{name}` of a module's namespace (janus guards only "
                              "its items that are there, read by name)")
    for value in (*args, *kwargs.values()):
        if type(value) is dict and source_of(tracer, value) is not None:
            raise ConversionError(f"hands a module's namespace to "
                                  f"{getattr(fn, '__qualname__', type(fn).__name__)}, which "
                                  "would read it once, while tracing")
    return UNHANDLED
