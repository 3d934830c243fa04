"""Guards on how Python finds an attribute the trace dispatched on (F396).

Where a read of `o.name` runs the program's own code converted (a property's getter, a
descriptor's `__get__`, a `__getattr__` fallback: graphgen/user_classes.py), the trace
bakes in where Python found `name`; a later call may find it elsewhere (the config's key
set on the instance, the property replaced on the class). Each step of that lookup is a
guard on the host, read through the object's path (`o` located as `S`):

    each class before the one holding it     'name' not in S.__class__.__mro__[k].__dict__
    the class holding it                     S.__class__.__mro__[k].__dict__['name'] is <it>
    not a data descriptor (or found nowhere) 'name' not in S.__dict__
    found nowhere                            S.__class__.__getattr__ is <the fallback>

`object` is not guarded (its attributes cannot be set). An object made in the call has
no path: its class's (`S` the class's own path) is guarded, the instance's own `__dict__`
is the trace's. Where neither is located nothing is guarded (see FINDINGS F396).
"""
from __future__ import annotations

import types

from janus.graphgen.class_reads import object_class_source
from janus.graphgen.guards import Guard
from janus.graphgen.sources import Source


def _is_data_descriptor(attribute) -> bool:
    kind = type(attribute)
    return hasattr(kind, "__set__") or hasattr(kind, "__delete__")


def guard_lookup(tracer, obj, name: str) -> None:
    """Guard that `obj.name` is found where it is now (the module docstring)."""
    if isinstance(obj, (types.ModuleType, type)):
        return
    source = tracer.source_of(obj)
    if id(obj) in tracer.local_objects:
        source = None  # (made in the call: its `__dict__` is the trace's own)
    # (a class the trace did not locate is not looked up as its module's global: F396's
    # Left)
    classes = object_class_source(tracer, obj, source, by_module=False)
    if classes is None:
        return
    where = f"how `.{name}` of a {type(obj).__name__} is found"
    found = _ABSENT
    for k, klass in enumerate(type(obj).__mro__):
        if klass is object:
            break
        path = (classes if k == 0 else classes.attr("__mro__").item(k)).attr("__dict__")
        attribute = klass.__dict__.get(name, _ABSENT)
        if attribute is _ABSENT:
            _guard_lacks(tracer, path, name, where)
            continue
        tracer.guard("id", path.item(name), attribute, where)
        found = attribute
        break
    if found is not _ABSENT and _is_data_descriptor(found):
        return
    if source is not None and name not in getattr(obj, "__dict__", {name: None}):
        _guard_lacks(tracer, source.attr("__dict__"), name, where)
    if found is _ABSENT:
        fallback = getattr(type(obj), "__getattr__", None)
        if fallback is not None:
            tracer.guard("id", classes.attr("__getattr__"), fallback, where)


def _guard_lacks(tracer, path: Source, name: str, where: str) -> None:
    """One `lacks` guard per mapping, on all the names the trace found absent there."""
    key = ("lacks", path.expr)
    held = tracer.guards.get(key)
    names = held.expected if held is not None else ()
    if name not in names:
        tracer.guards[key] = Guard("lacks", path, (*names, name), where)


_ABSENT = object()
