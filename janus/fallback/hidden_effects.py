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

Operators, comparisons, truth tests, formatting, hashing, iteration and the builtins
janus counts as pure (`len`, `str`, `abs`, `round`, ...) run no hook at all; on the
program's objects they run its dunders plainly (F407):

    y = meter + x                   Meter.__add__ (or x's __radd__)
    if meter: ... / len(meter)      Meter.__bool__ / __len__
    print(f"{meter}") / {meter: 1}  Meter.__format__ / __hash__

So a value that reaches converted code (an argument, a global, a closure's cell, an
attribute, an item or a call's result, or one level of elements of such a list, tuple,
dict or set) whose class has a dunder the program wrote counts as a possible effect
(`value_runs_users_code`), found once per class. Dunders janus's call hook runs
(`__init__`, `__new__`, `__call__`) and ones the program did not write (a dataclass's
generated `__eq__`, a library base class's) do not count.
"""
from __future__ import annotations

import functools
import itertools
import types
import weakref

from janus import user_attributes
from janus.tensors import per_type, remember
from janus.transform.runtime import is_user_class, is_user_code, user_file

_ABSENT = object()
_CALLED_THROUGH_HOOKS = frozenset({"__init__", "__new__", "__call__", "__init_subclass__",
                                   "__class_getitem__", "__set_name__"})
_CONTAINERS = frozenset({list, tuple, dict, set, frozenset})
_ELEMENTS_LOOKED_AT = 16  # (per container, two levels: the check stays bounded)
# class -> whether an operator or builtin may run the program's dunders on its instances
# (containers are never in it): the watch's hooks read it inline first. A class made by
# a function is kept weakly in the other table instead (tensors.remember: F412).
IMPLICIT_CODE: dict = {}
_made_implicit_code: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


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


def _program_dunder(name: str, found) -> bool:
    """Whether class attribute `name` is a dunder the program wrote that an operator or a
    builtin calls without janus's call hook."""
    if not (name.startswith("__") and name.endswith("__")) or name in _CALLED_THROUGH_HOOKS:
        return False
    if isinstance(found, (staticmethod, classmethod)):
        found = found.__func__
    if isinstance(found, types.FunctionType):
        return is_user_code(found)  # (a dataclass's generated method is not)
    return callable(found) and not isinstance(found, type)  # (`__hash__ = None`: no)


def class_runs_users_code(cls: type) -> bool:
    """Whether an operator or builtin applied to an instance of `cls` may run the
    program's code: one of the program's classes of its MRO defines such a dunder."""
    known = per_type(IMPLICIT_CODE, _made_implicit_code, cls)
    if known is None:
        known = any(_program_dunder(name, found) for klass in _program_classes(cls)
                    for name, found in list(vars(klass).items()))
        try:
            remember(IMPLICIT_CODE, _made_implicit_code, cls, known)
        except TypeError:  # (a class that takes no weak reference: found each time)
            pass
    return known


def value_runs_users_code(value, depth: int = 2) -> bool:
    """Whether an operator or builtin applied to `value` (or to one of its first elements,
    two levels deep, for a plain list, tuple, dict or set) may run the program's
    code."""
    cls = type(value)
    if cls not in _CONTAINERS:
        known = IMPLICIT_CODE.get(cls)
        return class_runs_users_code(cls) if known is None else known  # (weak: there)
    if not depth:
        return False
    if cls is list or cls is tuple:
        elements = value[:_ELEMENTS_LOOKED_AT]
    elif cls is dict:
        elements = itertools.islice(itertools.chain.from_iterable(value.items()),
                                    2 * _ELEMENTS_LOOKED_AT)
    else:
        elements = itertools.islice(value, _ELEMENTS_LOOKED_AT)
    known = IMPLICIT_CODE.get
    for element in elements:
        if known(type(element)) is not False and value_runs_users_code(element, depth - 1):
            return True
    return False
