"""What an object janus has no path to reads from its class: guarded at the class.

An object made in the call (`Huber()`, `LOSSES[cfg.loss]()`) has no source of its own, and
a `super()` proxy none either; what they find on their class (a default, a method, a
class-level dict, a mixin's `__init__`) is the heap's and may change between calls (F394,
F395: `Huber.delta = 100.0` or `Sq.forward = ...` after the first graph, which kept the
traced value). So each such read is guarded where Python found it:

    Huber().delta          ->  G['Huber'].delta, imported (a float fed or guarded, a
                               list or dict copied, as any heap read)
    Huber().scale(x)       ->  G['Huber'].scale is <the function>       (id guard)
    Huber()(x)             ->  G['Huber'].__call__ is <the function>
    Huber(x)               ->  G['Huber'].__init__ is <the function>    (its `__init__`)
    super().forward(x)     ->  <the class defining it>.forward is <the function>, and so
                               for each class of the MRO between (one that gains its own
                               `forward` moves the lookup)

The class is located by the path the trace found it by, else as a global of its module
(`MOD['m']['Huber']`, guarded by identity), else (through super()) in the MRO of the
object's class (`args[0].o.__class__.__mro__[1]`); an object of a class of the program's that
neither locates has its class's data read refused (the line runs in Python). The
instance's own `__dict__` shadows the class: an object the call made is written only by
converted code, so what it holds is the trace's own.
"""
from __future__ import annotations

import sys
import types

from janus.errors import ConversionError
from janus.graphgen.sources import Source, global_
from janus.transform.runtime import is_user_class

UNHANDLED = object()

_METHODS = (types.FunctionType, staticmethod, classmethod)


def class_source(tracer, cls: type, *, by_module: bool = True) -> Source | None:
    """The path to `cls` on each call: the trace's, else (`by_module`) its module's global
    of its name (guarded to be `cls`), else None."""
    source = tracer.source_of(cls)
    if source is not None or not by_module:
        return source
    name = getattr(cls, "__qualname__", "")
    module = sys.modules.get(getattr(cls, "__module__", None) or "")
    if module is None or not name.isidentifier() or vars(module).get(name) is not cls:
        return None
    source = global_(name, module.__name__, vars(module))
    tracer.guard("id", source, cls)
    tracer.register(cls, source)
    return source


def object_class_source(tracer, obj, source: Source | None, *,
                        by_module: bool = True) -> Source | None:
    """The path to `type(obj)` on each call: through the object's path `source`
    (`<source>.__class__`), else the class's own (`class_source`)."""
    if source is not None:
        return source.attr("__class__")
    return class_source(tracer, type(obj), by_module=by_module)


def _defining(mro: tuple, name: str):
    """(index, class) of the first class of `mro` whose own namespace holds `name`."""
    for index, klass in enumerate(mro):
        if name in vars(klass):
            return index, klass
    return None, None


def guard_function(tracer, source: Source | None, name: str, raw) -> bool:
    """Guard that `<source>.name` (a class) finds the function `raw` (a function,
    staticmethod or classmethod of a class's namespace) on each call; False where the
    class is not located (`source` None)."""
    if source is None:
        return False
    if isinstance(raw, types.FunctionType):
        tracer.guard("id", source.attr(name), raw)
    elif isinstance(raw, staticmethod):
        tracer.guard("id", source.attr(name), raw.__func__)
    else:  # (a classmethod: read through the class, bound to it)
        tracer.guard("id", source.attr(name).attr("__func__"), raw.__func__)
    return True


def _mro_source(tracer, proxy: super, klass: type) -> Source | None:
    """The path to `klass`, a class of the MRO a `super()` proxy walks: its own, else
    through the object's (`args[0].o.__class__.__mro__[1]`, guarded by identity)."""
    source = class_source(tracer, klass)
    if source is not None:
        return source
    owner = proxy.__self_class__
    if owner is type(proxy.__self__):
        base = object_class_source(tracer, proxy.__self__, tracer.source_of(proxy.__self__))
    else:
        base = class_source(tracer, owner)
    if base is None:
        return None
    source = base.attr("__mro__").item(owner.__mro__.index(klass))
    tracer.guard("id", source, klass)
    tracer.register(klass, source)
    return source


def guard_made_call(tracer, cls: type, name: str) -> None:
    """`Norm()(x)`, `Huber(x)`: the `__call__`/`__init__` Python runs for an object of
    `cls` the call makes or made, guarded at the class (where the program's and located;
    unlocated, as before: its reads of the heap are guarded on their own)."""
    _, owner = _defining(cls.__mro__, name)
    if owner is not None and is_user_class(owner) and is_user_class(cls) and \
            isinstance(vars(owner)[name], _METHODS):
        guard_function(tracer, class_source(tracer, cls), name, vars(owner)[name])


def made_object_read(tracer, obj, name: str, value):
    """`obj.name` of an object the call made (`tracer.local_objects`), found on its class:
    `value` (Python's answer) guarded at the class, or UNHANDLED (the instance holds it, a
    library's class, a descriptor other than a function's)."""
    cls = type(obj)
    if isinstance(obj, type) or id(obj) not in tracer.local_objects or \
            not is_user_class(cls) or name in getattr(obj, "__dict__", ()):
        return UNHANDLED
    _, owner = _defining(cls.__mro__, name)
    if owner is None or not is_user_class(owner):
        return UNHANDLED
    raw = vars(owner)[name]
    if isinstance(raw, _METHODS):
        if not guard_function(tracer, class_source(tracer, cls), name, raw):
            raise ConversionError(f"calls `{name}` of a {cls.__name__}, whose class janus "
                                  "cannot locate on each call (it may be replaced)")
        return value
    if hasattr(type(raw), "__get__"):  # (a slot, a library descriptor: the instance's)
        return UNHANDLED
    source = class_source(tracer, cls)
    if source is None:
        raise ConversionError(f"reads `{name}` of a {cls.__name__} from its class, which "
                              "janus cannot locate on each call")
    return tracer.import_value(value, source.attr(name))


def super_read(tracer, proxy: super, name: str, value):
    """`super().name`: the attribute of the class after `__thisclass__` in the MRO that
    defines it, guarded there and at each class between (F395), or UNHANDLED (an unbound
    `super`, a library class's attribute)."""
    if proxy.__self__ is None:
        return UNHANDLED
    mro = proxy.__self_class__.__mro__
    start = mro.index(proxy.__thisclass__) + 1
    index, owner = _defining(mro[start:], name)
    if owner is None or not is_user_class(owner):
        return UNHANDLED
    raw = vars(owner)[name]
    if not isinstance(raw, _METHODS):
        if hasattr(type(raw), "__get__"):
            return UNHANDLED
        source = _mro_source(tracer, proxy, owner)
        if source is None:
            raise ConversionError(f"reads `{name}` through super() from a "
                                  f"{owner.__name__}, which janus cannot locate on each call")
        return tracer.import_value(value, source.attr(name))
    for klass in mro[start:start + index + 1]:
        if owner in klass.__mro__ and _defining(klass.__mro__, name)[1] is owner and \
                is_user_class(klass):
            if not guard_function(tracer, _mro_source(tracer, proxy, klass), name, raw) \
                    and klass is owner:
                raise ConversionError(f"calls `{name}` through super() of a "
                                      f"{owner.__name__}, which janus cannot locate on "
                                      "each call (it may be replaced)")
    return value
