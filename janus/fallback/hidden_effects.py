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

import types

from janus import user_attributes
from janus.transform.runtime import is_user_code, user_file

_MANAGER_METHODS = ("__enter__", "__exit__")
_ABSENT = object()


def _users(fn) -> bool:
    return isinstance(fn, types.FunctionType) and is_user_code(fn)


def _class_attribute(cls: type, name: str):
    """What Python finds for `name` on `cls` (its MRO's dicts), or _ABSENT."""
    for klass in cls.__mro__:
        found = klass.__dict__.get(name, _ABSENT)
        if found is not _ABSENT:
            return found
    return _ABSENT


def manager_runs_users_code(manager) -> bool:
    """Whether entering `manager` runs the program's code: its class's `__enter__` or
    `__exit__` is the program's, or it is `contextlib`'s manager of the program's
    generator (`@contextmanager`)."""
    cls = type(manager)
    if any(_users(_class_attribute(cls, name)) for name in _MANAGER_METHODS):
        return True
    if cls.__module__ == "contextlib":
        generator = getattr(manager, "__dict__", {}).get("gen")
        return isinstance(generator, types.GeneratorType) and \
            user_file(generator.gi_code.co_filename)
    return False


def read_runs_users_code(obj, name: str) -> bool:
    """Whether `obj.name` runs the program's code: a `__getattribute__` of its class, a
    property or other descriptor the program wrote, or its `__getattr__` for a name
    found nowhere else."""
    if isinstance(obj, (types.ModuleType, type)):
        return False
    cls = type(obj)
    if _users(_class_attribute(cls, "__getattribute__")):
        return True
    found = _class_attribute(cls, name)
    if found is _ABSENT:
        in_instance = name in (user_attributes.get(obj, "__dict__", None) or ())
        return not in_instance and _users(_class_attribute(cls, "__getattr__"))
    if isinstance(found, (types.FunctionType, staticmethod, classmethod)):
        return False  # (binding a method runs nothing of the program's)
    if isinstance(found, property):
        return any(_users(f) for f in (found.fget,))
    return _users(_class_attribute(type(found), "__get__"))


def item_read_runs_users_code(obj) -> bool:
    """Whether `obj[key]` runs the program's `__getitem__` (or a dict subclass's
    `__missing__`)."""
    cls = type(obj)
    return _users(_class_attribute(cls, "__getitem__")) or \
        _users(_class_attribute(cls, "__missing__"))
