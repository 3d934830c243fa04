"""The trace's attribute hooks: `obj.name` read, written and deleted, and
`getattr`/`hasattr` on an object janus locates.

    h = self.cell(x)            ->   h = janus__.call(s, janus__.ld_attr(self, 'cell'), x)
    self.steps += 1             ->   janus__.st_attr(self, 'steps', ...)
    del cfg.scale               ->   janus__.del_attr(cfg, 'scale')
    setattr(o, "n", v)          ->   janus__.st_attr(o, 'n', v)    (also `o.__setattr__("n",
    delattr(o, "n")             ->   janus__.del_attr(o, 'n')      v)`, `object.__setattr__`)

A read of the heap is imported (guarded by its source, `args[0].cell`); a write is the
ledger's until the graph ran (fallback/heap.py), and later reads in the call see it. The
user's properties, descriptors and `__getattr__` run converted (graphgen/user_classes.py);
Keras objects' settings are guarded by their epoch (graphgen/keras_state.py).
"""
from __future__ import annotations

import sys
import types

import tensorflow as tf

from janus.errors import ConversionError
from janus.fallback.heap import MISSING as _MISSING
from janus.graphgen import class_reads, host_arrays, host_scalars, keras_state, keras_writes, \
    stand_in_calls, tensor_attributes, user_classes
from janus.graphgen.attribute_dispatch import guard_lookup
from janus.graphgen.dynamic_sizes import PartialShape
from janus.graphgen.global_settings import UNREAD, handed_out, library_global
from janus.graphgen.guards import EAGER_TENSOR
from janus.graphgen.host_scalars import HostScalar
from janus.graphgen.user_classes import user_property
from janus.graphgen.value_kinds import is_symbolic
from janus.graphgen.sources import global_
from janus.graphgen.values import Accumulator, DynamicList
from janus.recursion.subgraph import NodeProxy
from janus.transform.runtime import is_user_class, is_user_code, is_user_module
from janus.operation_hooks import operation_hook

_PYTHON_DATA = (bool, int, float, str, list, dict, tuple, set)
"""Values a guard would have to check (an object's settings)."""


class AttributeHooks:
    """Mixed into graphgen/runtime.TraceRuntime (`self.call` runs converted code)."""

    @operation_hook
    def ld_attr(self, obj, name):
        if isinstance(obj, NodeProxy):
            return obj.read(name)
        if isinstance(obj, HostScalar):
            if name == "item":  # (`loss.numpy().item()`: a Python number, F460)
                return obj.item
            raise ConversionError(f"reads `.{name}` of the numpy value of `.numpy()` inside a "
                                  "graph")
        if name == "numpy" and is_symbolic(obj) and host_scalars.readable(obj):
            return host_scalars.NumpyRead(obj)  # (a graph tensor has no `.numpy`)
        if name == "numpy" and is_symbolic(obj) and host_arrays.readable(obj):
            return host_arrays.NumpyRead(obj)  # (`p=probs.numpy()[0]` of a draw)
        if is_symbolic(obj) or tensor_attributes.is_symbolic_composite(obj):
            answered = tensor_attributes.eager_attribute(self.tracer, obj, name)
            if answered is not tensor_attributes.UNANSWERED:  # (`y.device`, `y.name`: F373)
                return answered
        if self.tracer.ledger.attrs:  # (`Base.scale = prop` earlier in the call)
            found = self._written_on_a_class(obj, name)
            if found is not _MISSING:
                return found
        prop = user_property(obj, name)
        if prop is not None:  # its getter is the program's code: traced like a method
            if prop.fget is None:
                raise AttributeError(f"property '{name}' of '{type(obj).__name__}' object "
                                     "has no getter")
            guard_lookup(self.tracer, obj, name)  # (the property stays the class's: F396)
            return self.call(None, prop.fget, obj)
        access = user_classes.user_access(obj, name, "get")
        if access is not None:  # (a descriptor's `__get__`, a `__getattr__`: converted)
            guard_lookup(self.tracer, obj, name)  # (found there on each call: F396)
            method, leading = access
            return self.call(None, method, *leading, *((name,) if len(leading) == 1 else ()))
        tracer = self.tracer
        if tracer.ledger.deleted(obj, name):  # (`del o.scale`: the class's `scale` now)
            return user_classes.after_delete(tracer.ledger, obj, name)
        local = tracer.ledger.get_attr(obj, name)
        if local is not _MISSING:
            return local
        if name == "__dict__" and id(obj) not in tracer.local_objects and \
                tracer.source_of(obj) is not None:
            raise ConversionError(f"reads the __dict__ of a {type(obj).__name__} of the heap "
                                  "(a write there would go around janus's deferred writes)")
        local = self._class_attr(obj, name)  # (`Cls.total += 2`, then `self.total`)
        if local is not _MISSING:
            return local
        found = user_classes.library_descriptor(obj, name)
        if found is not None:  # (`o.norm` of a cached_property: user_classes.py)
            return self._library_descriptor(obj, name, found)
        stand_in_calls.missing_attribute(obj, name)
        local = keras_state.read_attr(tracer, obj, name, _MISSING)  # (guarded by epoch)
        if local is not _MISSING:
            return local
        value = getattr(obj, name)
        if name == "shape" and is_symbolic(obj) and value.rank is not None and \
                not value.is_fully_defined():
            return PartialShape(value, obj)
        if isinstance(obj, types.ModuleType):  # (`config.LR` of a module of the program's)
            return _module_attr(tracer, obj, name, value)
        source = tracer.source_of(obj)
        if source is None:
            read = handed_out(tracer, obj, name, value)  # (`tf.get_logger().level`: F424)
            if read is not UNREAD:
                return read
        if source is None:  # (`Huber().delta`, `super().forward`: guarded at the class)
            read = class_reads.super_read(tracer, obj, name, value) if type(obj) is super \
                else class_reads.made_object_read(tracer, obj, name, value)
            if read is not class_reads.UNHANDLED:
                return read
        if isinstance(value, types.MethodType) and source is not None and \
                program_method(obj, name, value):
            return _guarded_method(tracer, obj, name, value, source)
        if isinstance(value, (types.MethodType, types.BuiltinMethodType,
                              types.MethodWrapperType)) or \
                isinstance(obj, (DynamicList, Accumulator)):
            return value
        if source is None:
            if isinstance(value, EAGER_TENSOR) and not isinstance(obj, types.ModuleType):
                raise ConversionError(f"reads tensor attribute `{name}` of a "
                                      f"{type(obj).__name__} janus cannot locate on each call")
            if type(value) in _PYTHON_DATA and id(obj) not in tracer.local_objects and \
                    (isinstance(obj, tf.Module) or keras_state.tracked_object(obj) or
                     is_user_class(obj if isinstance(obj, type) else type(obj))):
                # (`model.get_layer("drop").rate`: a library call handed out a layer of the
                # heap; `ref().lr` of a weakref, `ctx.get().lr` of a ContextVar: one of the
                # program's objects; its data may change between calls, no guard finds it)
                raise ConversionError(f"reads `{name}` of a {type(obj).__name__} a library "
                                      "call handed out, which janus cannot locate on each "
                                      "call (read it through an attribute path instead)")
            return value
        if keras_state.variable_structure(value) and keras_state.computed(obj, name):
            # `module.trainable_variables` of a tf.Module: computed from its attributes on
            # every access; guarded by an epoch its changes move (module_epoch.py)
            return keras_state.module_variables(tracer, obj, name, value)
        return tracer.import_value(value, source.attr(name))

    @operation_hook
    def st_attr(self, obj, name, value):
        prop = user_property(obj, name)
        if prop is not None:
            if prop.fset is None:
                raise AttributeError(f"property '{name}' of '{type(obj).__name__}' object "
                                     "has no setter")
            guard_lookup(self.tracer, obj, name)
            self.call(None, prop.fset, obj, value)
            return
        access = user_classes.user_access(obj, name, "set")
        if access is not None:  # (a descriptor's `__set__`: converted)
            guard_lookup(self.tracer, obj, name)
            self.call(None, access[0], *access[1], value)
            return
        tracer = self.tracer
        if isinstance(obj, types.ModuleType) and is_user_module(obj):
            # (`config.LR = ...`: that module's global, which its functions read as `LR`)
            namespace = vars(obj)
            tracer.ledger.set_global(namespace, name, global_(name, obj.__name__, namespace),
                                     value)
            return
        source = tracer.source_of(obj)
        if id(value) in tracer.copy_sources and keras_state.rewraps(obj):
            # (`layer.log += [...]`: the layer stores a new wrapper, later appends go to
            # it; the write-back would append to the list it replaced)
            raise ConversionError(f"assigns a heap list or dict to `{name}` of a "
                                  f"{type(obj).__name__}, which stores a new wrapper of it")
        if source is not None:
            keras_writes.wrote(tracer, obj, name, value)
            tracer.ledger.set_attr(obj, source, name, value)
        elif id(obj) in tracer.local_objects:
            tracer.local_writes += 1
            setattr(obj, name, value)
        else:
            raise ConversionError(f"writes attribute `{name}` of a {type(obj).__name__} "
                                  "janus cannot locate on each call")

    @operation_hook
    def del_attr(self, obj, name):
        prop = user_property(obj, name)
        if prop is not None:
            if prop.fdel is None:
                raise AttributeError(f"property '{name}' of '{type(obj).__name__}' object "
                                     "has no deleter")
            guard_lookup(self.tracer, obj, name)
            self.call(None, prop.fdel, obj)
            return
        access = user_classes.user_access(obj, name, "del")
        if access is not None:  # (a descriptor's `__delete__`: converted)
            guard_lookup(self.tracer, obj, name)
            self.call(None, access[0], *access[1])
            return
        tracer = self.tracer
        source = tracer.source_of(obj)
        if source is None:
            raise ConversionError(f"deletes attribute `{name}` of an object janus cannot locate")
        if tracer.ledger.get_attr(obj, name) is _MISSING:  # (deleted earlier: AttributeError)
            if not hasattr(obj, name):
                raise ConversionError(f"deletes attribute `{name}`, which the object lacks")
            self.ld_attr(obj, name)  # read: guarded to be there on each call
        keras_writes.wrote(tracer, obj, name, None, deleted=True)
        tracer.ledger.del_attr(obj, source, name)

    def attribute_call(self, fn, args: tuple, kwargs: dict):
        """`setattr(o, "n", v)`, `delattr(o, "n")`, `o.__setattr__("n", v)`: the write
        `o.n = v` / `del o.n` makes, through the ledger (F214: Python's own wrote the real
        object while tracing, a graph tensor left in it); UNHANDLED for other calls. A
        name that is not text refuses (the line runs in Python)."""
        call = attribute_write(fn, args, kwargs)
        if call is None:
            return UNHANDLED
        how, obj, name, value = call
        if type(name) is not str:
            raise ConversionError(f"{'sets' if how == 'set' else 'deletes'} an attribute "
                                  f"whose name is a {type(name).__name__}, not a constant "
                                  "text janus can write through its deferred writes")
        if how == "set":
            self.st_attr(obj, name, value)
        else:
            self.del_attr(obj, name)
        return None

    def _query_attr(self, fn, args):
        """`getattr(obj, name[, default])` / `hasattr(obj, name)` on an object janus
        locates: the answer is the heap's on each call (fuzz v15: it was folded in as
        the trace's answer, unguarded). A present attribute is read (and so guarded);
        one this trace wrote or deleted is the ledger's; an absent one refuses (janus
        has no guard on an attribute's absence)."""
        obj, name = args[0], args[1]
        tracer = self.tracer
        try:
            value = tracer.ledger.get_attr(obj, name)
            present = True
        except AttributeError:  # deleted earlier in this call
            value, present = None, False
        if value is _MISSING:
            if user_classes.library_descriptor(obj, name) is not None:
                value = self.ld_attr(obj, name)  # (not Python's hasattr: it runs the getter)
            elif hasattr(obj, name):
                value = self.ld_attr(obj, name)
            else:
                raise ConversionError(f"tests for attribute `{name}`, which the "
                                      f"{type(obj).__name__} lacks (janus cannot guard that "
                                      "an attribute is absent)")
        if fn is hasattr:
            return present
        if present:
            return value
        if len(args) > 2:
            return args[2]
        raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")

    def _library_descriptor(self, obj, name: str, found):
        """`obj.name` where a library descriptor `found` would run the program's code or
        write the instance (user_classes.library_descriptor): a property's getter called
        as converted code calls it; a cached_property's value read from the instance's
        `__dict__` (so a guard reads it there too, never computing it), computed
        converted on an object of this call, refused where not computed yet."""
        tracer = self.tracer
        guard_lookup(tracer, obj, name)  # (the descriptor stays the class's: F396)
        if isinstance(found, property):
            if found.fget is None:
                raise AttributeError(f"property '{name}' of '{type(obj).__name__}' object "
                                     "has no getter")
            return self.call(None, found.fget, obj)
        key = found.attrname or name
        cache = getattr(obj, "__dict__", None)
        source = tracer.source_of(obj)
        if cache is not None and key in cache:
            value = cache[key]
            if source is None or id(obj) in tracer.local_objects:
                return value
            return tracer.import_value(value, source.attr("__dict__").item(key))
        if cache is not None and id(obj) in tracer.local_objects:
            value = self.call(None, found.func, obj)
            self.st_attr(obj, key, value)
            return value
        raise ConversionError(f"computes `{name}`, a functools.cached_property of a "
                              f"{type(obj).__name__}, not cached yet: its function would "
                              "store the trace's value in the object (it runs in Python)")

    def _written_on_a_class(self, obj, name: str):
        """`obj.name` that Python finds on a class the call wrote `name` to (`DBase.scale =
        p`, then `DNet().scale` or `DNet.scale`): the value written, else _MISSING (no such
        write: the lookup as usual). Python's lookup reaches the class, not the trace's
        deferred write: a descriptor written there (a property) or a name deleted there
        would not be what it finds, so the line runs in Python."""
        ledger = self.tracer.ledger
        mro = obj.__mro__ if isinstance(obj, type) else type(obj).__mro__
        for cls in mro:
            entry = ledger.attrs.get((id(cls), name))
            if entry is None:
                if name in vars(cls):
                    return _MISSING  # (found before any class the call wrote)
                continue
            if cls is obj:
                return _MISSING  # (the class's own: read through the ledger as usual)
            value = entry[2]
            if ledger.deleted(cls, name) or hasattr(type(value), "__get__") and \
                    not isinstance(value, (types.FunctionType, staticmethod, classmethod)):
                raise ConversionError(f"reads `{name}`, which the call set (or deleted) on "
                                      f"class {cls.__name__} before")
            if not isinstance(obj, type) and name in getattr(obj, "__dict__", ()):
                return _MISSING  # (the instance's own shadows it)
            if isinstance(value, (types.FunctionType, staticmethod, classmethod)):
                raise ConversionError(f"calls `{name}`, which the call replaced on class "
                                      f"{cls.__name__} before")
            return value
        return _MISSING

    def _class_attr(self, obj, name: str):
        """The value the trace wrote to a class's attribute that `obj.name` finds there
        (the instance has none of its own), else _MISSING."""
        if isinstance(obj, type) or name in getattr(obj, "__dict__", ()):
            return _MISSING
        ledger = self.tracer.ledger
        for cls in type(obj).__mro__:
            local = ledger.get_attr(cls, name)
            if local is not _MISSING or name in vars(cls):
                return local
        return _MISSING


def program_method(obj, name: str, value: types.MethodType) -> bool:
    """Whether a bound method read from `obj` is the program's to guard: its function is
    the program's, `obj` is of a class of the program's, or the method is stored on it
    (a library object's own methods are the library's: not guarded, as before)."""
    func = value.__func__
    cls = obj if isinstance(obj, type) else type(obj)
    return isinstance(func, types.FunctionType) and is_user_code(func) or \
        is_user_class(cls) or name in getattr(obj, "__dict__", {})


def _guarded_method(tracer, obj, name: str, value: types.MethodType, source):
    """`NET.fwd`, `Ops.mul`, `T.loss_fn`: a bound method read through a located object,
    guarded as a stored function is (F216: a method replaced on the class, a
    `types.MethodType` or another object's method stored in its place, was kept by the
    graph). A method stored on the object is guarded by its identity; one Python binds
    on each read by the function it wraps (and by the object it binds, where that is not
    `obj`: a classmethod read through an instance binds the class)."""
    path = source.attr(name)
    if value is getattr(obj, "__dict__", {}).get(name):
        value = tracer.import_value(value, path)  # (one object: guarded by identity)
    else:
        tracer.import_value(value.__func__, path.attr("__func__"))
        if value.__self__ is not obj:
            tracer.guard("id", path.attr("__self__"), value.__self__)
    tracer.register(value.__self__, path.attr("__self__"))  # (its reads of `self` located)
    return value


def guard_call_method(tracer, obj) -> None:
    """`H(x)` of a located object of the program's: the `__call__` its class holds,
    guarded (F216: `Head.__call__` replaced between calls was kept by the graph; one of an
    object the call made, at its class: F394). One the call itself replaced first
    refuses: Python calls the new one at once (F257)."""
    for cls in type(obj).__mro__:
        try:
            pending = tracer.ledger.get_attr(cls, "__call__")
        except AttributeError:  # (deleted by the call)
            pending = None
        if pending is not _MISSING:
            raise ConversionError(f"calls a {type(obj).__name__} whose class's `__call__` the "
                                  "call replaced (that line runs in Python)")
    source = tracer.source_of(obj)
    if source is not None:
        tracer.guard("id", source.attr("__class__").attr("__call__"), type(obj).__call__)
    elif id(obj) in tracer.local_objects:  # (`Norm()(x)`: at its class, F394)
        class_reads.guard_made_call(tracer, type(obj), "__call__")


UNHANDLED = object()

_SLOT_WRITES = {"__setattr__": "set", "__delattr__": "del"}


def attribute_write(fn, args: tuple, kwargs: dict):
    """(how, obj, name, value) of a call that sets ("set") or deletes ("del") an
    attribute as a statement would, else None: builtins.setattr/delattr, a bound
    `o.__setattr__`/`o.__delattr__` of Python's own, `object.__setattr__(o, ...)` where
    the class keeps object's (else it goes around an override: container_writes.py
    refuses it)."""
    if kwargs:
        return None
    if fn is setattr and len(args) == 3:
        return "set", args[0], args[1], args[2]
    if fn is delattr and len(args) == 2:
        return "del", args[0], args[1], None
    if isinstance(fn, types.MethodWrapperType) and fn.__name__ in _SLOT_WRITES:
        args = (fn.__self__, *args)
        fn = getattr(type(fn.__self__), fn.__name__, None)
    elif not isinstance(fn, types.WrapperDescriptorType) or fn.__name__ not in _SLOT_WRITES \
            or not args or fn is not getattr(type(args[0]), fn.__name__, None):
        return None
    how = _SLOT_WRITES[fn.__name__]
    if not any(fn is getattr(base, fn.__name__) for base in (object, type)) or \
            len(args) != (3 if how == "set" else 2):
        return None  # (a C type's own slot)
    return how, args[0], args[1], args[2] if how == "set" else None


def _module_attr(tracer, module, name: str, value):
    """`module.name` of a module of the program's read from its namespace as a global
    (`MOD[...][...]`: guarded, fed), a library module's as it is (its constants). Its
    `__dict__` is its namespace (items read as globals: graphgen/namespaces.py); an
    attribute its namespace lacks (a PEP 562 `__getattr__` supplies it) is refused:
    no guard on the namespace finds it (F232)."""
    if not is_user_module(module) or isinstance(value, types.ModuleType):
        return library_global(tracer, module, name, value)  # (`os.environ`, `sys.argv`)
    namespace = vars(module)
    if name == "__dict__" and value is namespace:
        return value
    stored = tracer.ledger.get_global(namespace, name)
    if stored is not _MISSING:  # (`global LR; LR = ...` in a function of that module)
        return stored
    if name not in namespace:
        raise ConversionError(f"reads `{name}` of module {module.__name__}, which its "
                              "namespace lacks (a module `__getattr__` computes it)")
    if sys.modules.get(module.__name__) is not module:
        # (made at run time, `types.ModuleType("cfg")`: not found by its name, which
        # another module may have; read through the path janus found it by: F233)
        source = tracer.source_of(module)
        if source is None:
            raise ConversionError(f"reads `{name}` of a module janus cannot locate on "
                                  "each call")
        return tracer.import_value(value, source.attr(name))
    return tracer.import_value(value, global_(name, module.__name__, namespace))
