"""janus's functions that do the user's own operation: an exception raised there is the
user's, not janus's (fallback/safety.py `raised_by_janus`).

    @operation_hook
    def ld_attr(self, obj, name):     # `obj.name` of converted code: the user's
        return getattr(obj, name)     # `__getattr__` may raise

Marked by code object, not by name: a hook renamed, or another function of the same
name, does not change what counts as janus's error. No janus imports (every layer marks
its hooks).
"""
from __future__ import annotations

import types

_CODES: dict = {}  # id -> code (held): by identity, as code objects of the same text
# compare equal


def operation_hook(fn):
    """Mark `fn` (a function or lambda) as doing the user's own operation."""
    _CODES[id(fn.__code__)] = fn.__code__
    return fn


def is_operation_hook(code: types.CodeType) -> bool:
    """Whether `code` is a marked function's."""
    return _CODES.get(id(code)) is code


def marked() -> tuple:
    """The code objects of every marked function."""
    return tuple(_CODES.values())
