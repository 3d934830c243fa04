"""Code that runs when an object dies: refused in a trace (F435).

    t = Scratch()          class Scratch: def __del__(self): FREED[0] += 1
    del t                  (or the call returns: `t` dies with its frame)
    r = weakref.ref(n, on_death)
    weakref.finalize(buf, release, handle)

Plain Python runs the finalizer once per call, when the call's object dies; a graph made
from a trace makes no object at all, and the trace's own object died once, while tracing
(or later, whenever janus let it go). A trace that makes an object of a class with a
`__del__` of the program's, or registers a callback on an object's death, is refused
before the object exists (the line runs in Python: a graph break).
"""
from __future__ import annotations

import types
import weakref

from janus import user_attributes
from janus.transform.runtime import is_user_code

_CALLBACK_AT = {weakref.ref: 1, weakref.proxy: 1, weakref.WeakMethod: 1}
"""Weak references taking a callback (its position): `weakref.ref(obj, callback)`."""


def _program_del(cls: type):
    """The program's own `__del__` of `cls` (None when it has none)."""
    try:
        finalizer = getattr(cls, "__del__", None)
    except Exception:  # (a metaclass's `__getattr__`)
        return None
    return finalizer if isinstance(finalizer, types.FunctionType) and \
        is_user_code(finalizer) else None


def reason(fn, args: tuple | None = None, kwargs: dict | None = None) -> str:
    """Why a call of `fn(*args, **kwargs)` is refused as running code when an object
    dies ("" when it is not): a class with a `__del__` of the program's, a weak reference
    with a callback, `weakref.finalize`."""
    if fn is weakref.finalize:
        return ("calls weakref.finalize: its function runs when the object dies, once per "
                "call in Python; a graph would register it once, while tracing")
    at = next((i for f, i in _CALLBACK_AT.items() if fn is f), None)
    if at is None:
        if not isinstance(fn, type) or _program_del(fn) is None:
            return ""
        return (f"makes a {fn.__name__}, whose `__del__` is the program's own: Python runs "
                "it when the object dies, once per call; a graph makes no object")
    args, kwargs = args or (), kwargs or {}
    callback = args[at] if len(args) > at else kwargs.get("callback")
    if callback is None:
        return ""
    name = user_attributes.get(fn, "__name__", None) or "ref"
    return (f"makes a weakref.{name} with a callback: it runs when the object dies, once "
            "per call in Python; a graph would make the reference once, while tracing")
