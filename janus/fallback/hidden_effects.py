"""Operations of converted code that may run the program's own code, or change the
program's state, without a call janus sees (F405).

The effect watch (fallback/safety.EffectWatch) decides whether a profiled call that
raised may be rerun plainly: only if nothing happened yet. These hooks do something
the watch must count although no user function is called through janus's call hook:

    STEP += 100                     st_global: the module's global is stored
    count = count + 1               st_free: the closure's cell is stored
    with timer: ...                 ctx: the program's `__enter__` runs plainly
    lr = sched.lr                   ld_attr: the program's property getter (a
                                    descriptor's `__get__`, `__getattr__`) runs plainly
    scale = cfg["scale"]            ld_item: the program's `__getitem__` runs plainly

A library's context manager (`tf.name_scope`, `np.errstate`) and a read of a plain
attribute or of a list, dict or tensor item are not effects.
"""
from __future__ import annotations

import functools
import types
import weakref

from janus import user_attributes
from janus.transform.runtime import is_user_class, is_user_code, user_file

_ABSENT = object()


_positions: "weakref.WeakKeyDictionary[type, tuple]" = weakref.WeakKeyDictionary()


def _program_classes(cls: type) -> tuple:
    """The classes of `cls`'s MRO the program defined (found once per class: a library
    object's reads cost one lookup). Kept as positions in the MRO, weakly keyed: a class
    made in a call dies as in plain Python (a cache holding it would keep its class
    attributes alive, F397)."""
    mro = cls.__mro__
    try:
        length, positions = _positions[cls]
    except KeyError:
        length = -1
    except TypeError:  # (a class that takes no weak reference: found each time)
        return tuple(k for k in mro if is_user_class(k))
    if length != len(mro):  # (new, or its `__bases__` were replaced)
        positions = tuple(i for i, k in enumerate(mro) if is_user_class(k))
        _positions[cls] = (len(mro), positions)
    return tuple(mro[i] for i in positions) if positions else ()


def _defines(classes: tuple, *names: str) -> bool:
    return any(name in vars(klass) for klass in classes for name in names)


def _users(fn) -> bool:
    return isinstance(fn, types.FunctionType) and is_user_code(fn)


def manager_runs_users_code(manager) -> bool:
    """Whether entering `manager` runs the program's code: one of its classes is the
    program's and defines `__enter__` or `__exit__`, or it is `contextlib`'s manager of
    the program's generator (`@contextmanager`)."""
    cls = type(manager)
    if _defines(_program_classes(cls), "__enter__", "__exit__"):
        return True
    if cls.__module__ == "contextlib":
        generator = getattr(manager, "__dict__", {}).get("gen")
        return isinstance(generator, types.GeneratorType) and \
            user_file(generator.gi_code.co_filename)
    return False


def _runs_users_code(found) -> bool:
    """Whether getting `found` (a class attribute) from an instance runs the program's
    code."""
    if isinstance(found, (types.FunctionType, staticmethod, classmethod)):
        return False  # (binding a method runs nothing of the program's)
    if isinstance(found, property):
        return _users(found.fget)
    if isinstance(found, functools.cached_property):
        return _users(found.func)
    return _defines(_program_classes(type(found)), "__get__")


def read_runs_users_code(obj, name: str) -> bool:
    """Whether `obj.name` runs the program's code: a `__getattribute__` of the
    program's class, a property or other descriptor the program wrote, or its
    `__getattr__` for a name found nowhere else. (Only the program's classes of the MRO
    are looked at: a library's attribute shadowing the program's counts it, which only
    keeps a plain rerun from happening.)"""
    if isinstance(obj, (types.ModuleType, type)):
        return False
    classes = _program_classes(type(obj))
    if not classes:
        return False
    if _defines(classes, "__getattribute__"):
        return True
    for klass in classes:
        found = vars(klass).get(name, _ABSENT)
        if found is not _ABSENT:
            return _runs_users_code(found)
    if name in (user_attributes.get(obj, "__dict__", None) or ()):
        return False
    return _defines(classes, "__getattr__")


def item_read_runs_users_code(obj) -> bool:
    """Whether `obj[key]` runs the program's `__getitem__` (or a dict subclass's
    `__missing__`)."""
    classes = _program_classes(type(obj))
    return bool(classes) and _defines(classes, "__getitem__", "__missing__")
