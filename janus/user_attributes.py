"""janus's own looks at attributes of the user's objects, which the user's `__getattr__`
answers.

`hasattr` and `getattr(obj, name, default)` catch AttributeError only, but a user's
`__getattr__` may raise anything for a name it does not know:

    class AttrDict(dict):                 # the "AttrDict" config recipe
        __getattr__ = dict.__getitem__    # KeyError for a missing key

    hasattr(config, "is_tensor_like")     # KeyError (tf.is_tensor asks it): raised
                                          # inside janus, an internal error
    has(config, "is_tensor_like")         # False

Where janus asks for an attribute of its own choosing (`is_tensor_like`,
`__janus_function__`, `_fields`, `numpy`...), any exception means the object has no
such attribute: janus goes on as for any object without it (the user's code reading
its attributes stays the user's, with the user's errors).
"""
from __future__ import annotations

_MISSING = object()


def get(value, name: str, default=None):
    """`getattr(value, name, default)`, `default` also where `value.__getattr__` raises
    an error other than AttributeError."""
    try:
        return getattr(value, name, default)
    except Exception:
        return default


def has(value, name: str) -> bool:
    """`hasattr(value, name)`, False also where `value.__getattr__` raises an error other
    than AttributeError."""
    return get(value, name, _MISSING) is not _MISSING
