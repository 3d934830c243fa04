"""The user's own function, not the converted copy's, for TensorFlow code that runs
AutoGraph on it while a call runs with plain semantics (profiling, a mixed run).

A lambda or nested def the converted code makes is the converted copy's function: its
code reads through `janus__` hooks, its closure holds a `janus__` cell. Handed to
`ds.map`, `tf.function`, `tf.map_fn` or `tf.vectorized_map`, AutoGraph would parse its
source (the user's, without `janus__`) and fail to bind that closure, then run it as it is
(or, marked as AutoGraph's own, at once). Plain Python's function is converted by
AutoGraph: a tensor `if` in it becomes a `tf.cond`, its errors read "in user code: ...".

    DS.map(lambda b: b * tf.reduce_mean(acc))     (converted: hooks, `janus__` cell)
    ->  DS.map(<the user's lambda code, closing over the converted copy's `acc` cell>)

The user's code is found among the original function's nested code objects by name,
first line and argument names (only where that is one code in both functions); it closes
over the same cells of the converted copy, which binds the user's variables as the
user's function does.
"""
from __future__ import annotations

import inspect
import types
import weakref

from janus import user_attributes

_originals: dict = {}  # id(converted code) -> (a weak reference to it, the user's code):
# by identity, as two programs' code objects of the same text compare equal (F376)


def _forget(key: int) -> None:
    _originals.pop(key, None)


def _original_of(code: types.CodeType) -> types.CodeType | None:
    entry = _originals.get(id(code))
    return entry[1] if entry is not None and entry[0]() is code else None

_AUTOGRAPH_CALLERS = frozenset({"map_fn", "map_fn_v2", "vectorized_map", "pfor"})
_AUTOGRAPH_MODULES = ("tensorflow.python.data.", "tensorflow.python.eager.polymorphic_function.")


def _key(code: types.CodeType) -> tuple:
    count = code.co_argcount + code.co_kwonlyargcount + \
        bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return code.co_name, code.co_firstlineno, code.co_varnames[:count]


def _nested(code: types.CodeType, found: dict) -> dict:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found.setdefault(_key(const), []).append(const)
            _nested(const, found)
    return found


def remember(original: types.CodeType, converted: types.CodeType) -> None:
    """Pair the nested code objects of `converted` (a function's converted code) with the
    user's in `original` that are the only ones of their name, line and arguments in
    both (janus's own lambdas, `lambda: g`, never pair: the user has none there, or the
    count differs)."""
    users = _nested(original, {})
    for key, codes in _nested(converted, {}).items():
        mine = users.get(key)
        if len(codes) == 1 and mine is not None and len(mine) == 1:
            converted_code = codes[0]
            _originals[id(converted_code)] = (
                weakref.ref(converted_code, lambda _, key=id(converted_code): _forget(key)),
                mine[0])


def autograph_converts(library) -> bool:
    """TensorFlow calls that run AutoGraph on the functions handed to them, also eagerly:
    `tf.data`'s (`map`, `filter`, `reduce`...), `tf.function`, `tf.map_fn`,
    `tf.vectorized_map`."""
    module = user_attributes.get(library, "__module__", None) or ""
    if not module.startswith("tensorflow"):
        return False
    return module.startswith(_AUTOGRAPH_MODULES) or \
        user_attributes.get(library, "__name__", None) in _AUTOGRAPH_CALLERS


def users_function(fn):
    """`fn` (made by converted code) as the user's own function over the same cells, or
    `fn` itself where its user's code is not known."""
    if not isinstance(fn, types.FunctionType):
        return fn
    original = _original_of(fn.__code__)
    if original is None:
        return fn
    free = fn.__code__.co_freevars
    if any(name not in free for name in original.co_freevars):
        return fn
    cells = tuple(fn.__closure__[free.index(name)] for name in original.co_freevars)
    user = types.FunctionType(original, fn.__globals__, fn.__name__, fn.__defaults__,
                              cells or None)
    user.__kwdefaults__ = fn.__kwdefaults__
    user.__qualname__ = fn.__qualname__
    user.__module__ = fn.__module__
    user.__doc__ = fn.__doc__
    return user


def for_autograph(library, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """The call's arguments with the user's own functions in place of the converted
    copy's where `library` runs AutoGraph on them (unchanged otherwise)."""
    if not autograph_converts(library):
        return args, kwargs
    return tuple(users_function(a) for a in args), \
        {k: users_function(v) for k, v in kwargs.items()}
