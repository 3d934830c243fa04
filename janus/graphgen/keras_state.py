"""Keras state a trace reads: structure lists, `trainable` flags and the settings of the
layers and optimizers it called (graphgen/keras_settings.py), guarded by an epoch.

Keras computes `model.trainable_variables`, `weights`, `layers`... from its layers'
tracked stores and `trainable` flags on every access; a graph holds the list its trace
read, by reference. Recomputing such a list in a guard on every call costs 4 us (two
Dense layers) to ~70 us (a ResNet), so janus counts changes instead: `EPOCH` moves when
a Keras `trainable` flag changes value (the `Layer.trainable` and `Variable.trainable`
setters, wrapped: `install`) or a Keras tracker adds or drops a variable, layer or other
tracked object (`Tracker.add_to_store`, `untrack`, `replace_tracked_value`). A trace
records what it read (`KerasReads`); its guard holds while the epoch stayed where the
reads were last verified and, when it moved, reads them again with Keras' own code and
holds if they are the same objects (`layer.trainable = False` between calls: a new graph;
toggled back: the old one again). A traced call of a Keras layer records its sublayers
(a Sequential's `add`) and the flags of the `BatchNormalization` layers among them (their
`call` reads it: `if training and self.trainable`).

A write of `trainable` inside the traced call is deferred to the heap ledger (written
back after the graph), so a read after it is made with the ledger's pending writes
applied for the duration of the read (Keras' own setters; every flag they touch is
restored after: `as_written`): `d.trainable = False` then `g.trainable_variables +
d.trainable_variables` reads what plain Python reads (when the epoch moved, the guard
reads it again under the same writes). A traced call of a layer those writes reach runs
under them too. Other writes inside the call that change Keras' structure (a layer
assigned to a model's attribute) refuse the reads after them.

A `tf.Module`'s `trainable_variables` (computed from its attributes) is read in the same
guard; graphgen/module_epoch.py counts its changes. What stays unguarded: Keras state
changed behind Keras' API (`layer._trainable = False`, a private store list appended to).
"""
from __future__ import annotations

import contextlib
import functools
import sys
import threading

import tensorflow as tf

from janus.errors import ConversionError
from janus import user_attributes
from janus.graphgen import keras_private, module_epoch
from janus.graphgen.keras_settings import SETTING_TYPES, Settings, counted_setattr, \
    counted_swap, held_classes, library_descriptor, python_learning_rate, \
    read_by_keras, settings

SETTINGS = "settings"  # the public settings a called layer's or optimizer's code reads
CALLED = "called layer"  # what a read of a called layer's sublayers and BatchNormalization
# flags is: its `call` depends on both (`if training and self.trainable:`)
_STRUCTURE_NAMES = frozenset({"variables", "trainable_variables", "non_trainable_variables",
                              "weights", "trainable_weights", "non_trainable_weights",
                              "layers", "metrics_variables"})  # (may be empty lists)


class _Epoch:
    __slots__ = ("n",)

    def __init__(self):
        self.n = 0


EPOCH = _Epoch()
_quiet = threading.local()  # depth > 0 while `as_written` applies a trace's writes
_applying = threading.RLock()
_installed = False


def bump() -> None:
    """Move the epoch (not while `as_written` applies a trace's writes)."""
    if not getattr(_quiet, "depth", 0):
        EPOCH.n += 1


# -- counting Keras' changes

def _counted_flag(prop: property) -> property:
    """`prop` (a `trainable` property) whose setter moves the epoch when the flag changes."""
    getter, setter = prop.fget, prop.fset

    @functools.wraps(setter)
    def set_counted(self, value):
        before = getattr(self, "_trainable", None)  # (what `getter` reads)
        try:
            setter(self, value)
        finally:
            if getattr(self, "_trainable", None) != before:
                bump()

    return property(getter, set_counted, prop.fdel, prop.__doc__)


def _counted_method(method):
    @functools.wraps(method)
    def counted(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        finally:
            bump()

    return counted


def install() -> None:
    """Wrap Keras' setters of `trainable`, of its layers' and optimizers' settings and
    those of the objects they hold (keras_settings.held_classes), and its trackers' store
    changes (once), and tf.Module's (graphgen/module_epoch.py)."""
    global _installed
    module_epoch.install(bump)  # (a tf.Module's changes: without Keras too)
    with _applying:
        if _installed or _keras() is None:  # (Keras' once it is imported)
            return
        Layer, Variable, Tracker = _keras()
        for cls in (Layer, Variable):
            cls.trainable = _counted_flag(cls.__dict__["trainable"])
        for name in ("add_to_store", "untrack", "replace_tracked_value"):
            setattr(Tracker, name, _counted_method(Tracker.__dict__[name]))
        from keras.src.optimizers.base_optimizer import BaseOptimizer
        for cls in (Layer, BaseOptimizer):
            cls.__setattr__ = counted_setattr(cls.__dict__["__setattr__"], bump)
        for cls in held_classes():  # (a user's subclass too: Keras calls it, unconverted)
            cls.__setattr__ = counted_setattr(cls.__setattr__, bump, library_only=False)
        for name in ("regularizer", "constraint"):
            setattr(Variable, name, counted_swap(Variable.__dict__[name], "_" + name, bump))
        keras_private.install(bump)  # (`layer.dtype_policy = ...`, AdamW's exclusions)
        _installed = True


# -- what is Keras state

_classes: tuple = ()


def _keras():
    """Keras' Layer, Variable and Tracker classes, or None if Keras is not imported."""
    global _classes
    if not _classes:
        if "keras.src.layers.layer" not in sys.modules:
            return None
        from keras.src.backend.common.variables import Variable
        from keras.src.layers.layer import Layer
        from keras.src.utils.tracking import Tracker
        _classes = (Layer, Variable, Tracker)
    return _classes


def variable_structure(value) -> bool:
    """A non-empty list/tuple of variables or modules (TF's or Keras'): held by reference
    in a graph."""
    import keras

    kinds = (tf.Variable, tf.Module, keras.Variable, keras.layers.Layer)
    return isinstance(value, (list, tuple)) and bool(value) and \
        all(isinstance(v, kinds) for v in value)


def computed(obj, name: str) -> bool:
    """`name` is computed by a property of obj's class (not stored on obj)."""
    if name in getattr(obj, "__dict__", {}):
        return False
    for cls in type(obj).__mro__:
        if name in cls.__dict__:
            return isinstance(cls.__dict__[name], property)
    return False


def _flag_owner(obj, keras) -> bool:
    return isinstance(obj, (keras[0], keras[1]))


def tracked_object(obj) -> bool:
    """A Keras layer, model or optimizer (an object whose tracker stores its state)."""
    keras = _keras()
    return keras is not None and _tracked(obj, keras)


def _tracked(obj, keras) -> bool:
    """A Keras object whose tracker stores its variables/layers (a layer, an optimizer)."""
    return isinstance(user_attributes.get(obj, "_tracker"), keras[2])


def rewraps(obj) -> bool:
    """Whether assigning a list or dict to an attribute of `obj` stores a new wrapper of
    it (a Keras layer's TrackedList, a tf.Module's ListWrapper), not the object itself."""
    if isinstance(obj, tf.Module):
        return True
    keras = _keras()
    return keras is not None and _tracked(obj, keras)


def _called(layer) -> tuple:
    """What a traced call of `layer` depends on besides its inputs and variables: its
    sublayers (a Sequential's `add`/`pop`), then the `trainable` flags of the
    BatchNormalization layers among them and itself (their `call` reads it)."""
    from keras.src.layers.normalization.batch_normalization import BatchNormalization
    layers = tuple(layer._flatten_layers(include_self=True, recursive=True))
    return layers + tuple(sub.trainable for sub in layers
                          if isinstance(sub, BatchNormalization))


def read(obj, what: str):
    """A read `KerasReads` records, done again (tuples for lists)."""
    if what == CALLED:
        return _called(obj)
    if what == SETTINGS:
        return settings(obj)
    value = getattr(obj, what)
    return tuple(value) if isinstance(value, list) else value


def _same(a, b) -> bool:
    if type(a) is Settings:
        return type(b) is Settings and len(a) == len(b) and all(
            k == j and (x is y or type(x) is type(y) and type(x) in SETTING_TYPES and x == y)
            for (k, x), (j, y) in zip(a, b))
    if type(a) is tuple:
        return type(b) is tuple and len(a) == len(b) and all(x is y for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def held_items(container) -> tuple:
    """A held list's items, a held dict's (key, value) pairs."""
    return tuple(container.items()) if isinstance(container, dict) else tuple(container)


def _same_items(a: tuple, b: tuple) -> bool:
    """Items of a held list or dict (F230): the same objects, or equal settings."""
    return len(a) == len(b) and all(x is y or type(x) is type(y) and (
        type(x) in SETTING_TYPES and x == y or type(x) is tuple and _same_items(x, y))
        for x, y in zip(a, b))


# -- the reads of one trace, and their guard

class KerasReads:
    """What one trace read of Keras state: `reads` (object, what, value, the trace's own
    pending writes it was read under), the located objects among them (checked by
    identity on every call) and the epoch at which the reads were last verified."""

    def __init__(self, epoch: int):
        self.owners: list = []  # (Source, object)
        self.reads: list = []   # (object, what, value, writes)
        self.containers: list = []  # (list or dict a setting holds, its items as read)
        self.settings: list = []  # (reader of a library-wide setting, its value's key)
        self.seen = epoch
        self._seen: dict = {}  # key of a read -> its value (a layer called in a loop: once)

    def add(self, tracer, obj, what: str, value, writes: tuple) -> None:
        """Record a read (`writes`: the pending writes it was made under); the objects
        janus locates, the read one and the written ones, are checked by identity."""
        key = (id(obj), what, tuple((id(o), v) for o, v in writes))
        if key in self._seen and _same(self._seen[key], value):
            return
        self._seen[key] = value
        for located in (obj, *(written for written, _ in writes)):
            source = tracer.source_of(located)
            if source is not None and all(s.expr != source.expr for s, _ in self.owners):
                self.owners.append((source, located))
        self.reads.append((obj, what, value, writes))
        if type(value) is Settings:  # (`schedule.values[0] = 3.0`: no setter moves the epoch)
            known = {id(c) for c, _ in self.containers}
            for _, held in value:
                if isinstance(held, (list, dict)) and id(held) not in known:
                    known.add(id(held))
                    self.containers.append((held, held_items(held)))

    def add_setting(self, reader, key) -> None:
        """A library-wide setting read (graphgen/global_settings.py), checked per call."""
        name = (getattr(reader, "func", reader), getattr(reader, "args", ()))
        if all((getattr(r, "func", r), getattr(r, "args", ())) != name
               for r, _ in self.settings):
            self.settings.append((reader, key))

    def same_contents(self) -> bool:
        """The lists and dicts the settings hold have the items the trace read, and the
        library-wide settings read are the same (checked on every call: Keras' code reads
        them, and changing them moves no epoch)."""
        return all(_same_items(held_items(c), items) for c, items in self.containers) and \
            all(setting_key(reader()) == key for reader, key in self.settings)

    def recheck(self) -> bool:
        """The epoch moved: read everything again (a read the trace made under the call's
        own pending writes, under them again); hold, and note the epoch, if every read
        is what the trace read."""
        epoch = EPOCH.n
        for obj, what, value, writes in self.reads:
            with as_written(writes):
                again = read(obj, what)
            if not _same(again, value):
                return False
        self.seen = epoch
        return True

    def test(self, index: int, value_of, env: dict) -> str:
        """The guard's Python test: its owners are the traced objects and the epoch did
        not move (or the reads are the same)."""
        name = f"K{int(index)}"
        env[name], env["EPOCH"] = self, EPOCH
        tests = []
        for k, (source, obj) in enumerate(self.owners):
            env[f"{name}_{k}"] = obj
            tests.append(f"{value_of(source)} is {name}_{k}")
        if self.containers or self.settings:
            tests.append(f"{name}.same_contents()")
        return " and ".join(tests + [f"(EPOCH.n == {name}.seen or {name}.recheck())"])

    def describe(self) -> str:
        located = {id(obj): str(source) for source, obj in self.owners}
        parts = []
        for obj, what, value, writes in self.reads:
            where = located.get(id(obj), f"<{type(obj).__name__}>")
            if what == CALLED:
                text = f"{where}'s sublayers and BatchNormalization flags are the same"
            elif what == SETTINGS:
                text = f"{where}'s settings are as traced ({len(value)})"
            elif isinstance(value, tuple):
                text = f"{where}.{what} is the same {len(value)} objects"
            else:
                text = f"{where}.{what} == {value!r}"
            parts.append(text + (" (after the call's own writes)" if writes else ""))
        return "Keras state as traced: " + "; ".join(parts)

    def __repr__(self) -> str:
        return f"<KerasReads: {len(self.reads)} reads, {len(self.owners)} located>"


class Watched:
    """An object's settings as something made outside a trace holds them (an optimizer's
    update graph: fallback/mixed.py), with the epoch they were last verified at."""

    __slots__ = ("obj", "seen", "value")

    def __init__(self, obj):
        self.obj = obj
        self.seen = _epoch()
        self.value = settings(obj)

    def holds(self) -> bool:
        """The settings are as made (read again only when the epoch moved)."""
        if EPOCH.n == self.seen:
            return True
        epoch = EPOCH.n
        if not _same(settings(self.obj), self.value):
            return False
        self.seen = epoch
        return True


def guard(tracer):
    """The trace's guard on the Keras state it read, or None."""
    from janus.graphgen.guards import Guard
    from janus.graphgen.sources import arg

    reads = tracer.keras_reads
    if reads is None or not (reads.reads or reads.settings):
        return None
    return Guard("keras", arg(0), reads, "reads Keras layers' variables or trainable flags")


def _epoch() -> int:
    """The epoch now (counting from now on)."""
    install()
    return EPOCH.n


def settings_reads(tracer) -> KerasReads:
    """The trace's KerasReads, to record a library-wide setting in."""
    return reads_of(tracer, _epoch())


def setting_key(value):
    """A comparable description of a library-wide setting's value (a policy or generator
    by its text: an object's includes its address)."""
    if type(value) in SETTING_TYPES:
        return type(value), value
    return type(value), repr(value)


def reads_of(tracer, epoch: int) -> KerasReads:
    """The trace's KerasReads, made with the epoch before its first read."""
    if tracer.keras_reads is None:
        tracer.keras_reads = KerasReads(epoch)
    return tracer.keras_reads


# -- the trace's own writes

def _trackable(value, keras, depth: int = 0) -> bool:
    """Whether binding `value` to a Keras object's attribute may change its tracked
    stores: a Keras object (layer, variable, metric, seed generator...) or a TF variable
    or module, or a list/tuple/dict holding one (its tracker wraps those)."""
    if isinstance(value, (list, tuple)):
        return depth < 3 and any(_trackable(v, keras, depth + 1) for v in value)
    if isinstance(value, dict):
        return depth < 3 and any(_trackable(v, keras, depth + 1) for v in value.values())
    module = type(value).__module__ or ""
    return module.split(".")[0] == "keras" or \
        isinstance(value, (keras[0], keras[1], tf.Variable, tf.Module))


def wrote(tracer, obj, name: str, value, deleted: bool = False) -> None:
    """Note a write (or a `del`) the trace defers that may change what Keras reads:
    `trainable` of a layer or variable, or an attribute of a layer or optimizer bound to
    something its tracker stores (or deleted)."""
    keras = _keras()
    if not (name == "trainable" and keras is not None and _flag_owner(obj, keras)):
        owner = library_descriptor(obj, name)
        if owner is not None:  # (its setter is library code: deferred, it would run late)
            raise ConversionError(
                f"{'deletes' if deleted else 'sets'} `{name}` of a {type(obj).__name__} "
                f"inside the call: a property of {owner.__module__}.{owner.__qualname__}, "
                "whose library code would run only after the graph (F190)")
    if keras is None:
        return
    if name != "trainable" and read_by_keras(obj, name, value):
        # (deferred, it would be read by Keras' own code before it is written: F188, F193)
        raise ConversionError(f"sets `{name}` of a {type(obj).__name__} inside the call "
                              "(Keras' own code reads it)")
    if name == "trainable" and _flag_owner(obj, keras) or _tracked(obj, keras) and (
            deleted or _trackable(value, keras)):
        tracer.keras_writes[(id(obj), name)] = obj


def pending(tracer) -> tuple:
    """The trace's pending `trainable` writes as (object, bool), in the order the write-back
    makes them (each location's last write); ConversionError if another pending write
    changes Keras' structure (janus does not apply those while tracing)."""
    written = tracer.keras_writes
    if not written:
        return ()
    ledger = tracer.ledger
    last = {}
    for position, entry in enumerate(ledger.log):
        if entry[0] == "attr" and (entry[1], entry[2]) in written:
            last[(entry[1], entry[2])] = position
    writes = []
    for key in sorted(last, key=last.get):
        obj, _, value = ledger.attrs[key]
        if key[1] != "trainable" or type(value) not in (bool, int):
            raise ConversionError(f"reads Keras state after this call changed `{key[1]}` of a "
                                  f"{type(obj).__name__} (applied only after the graph ran)")
        writes.append((obj, bool(value)))
    return tuple(writes)


def _depends_on(obj) -> set:
    """ids of the layers and variables whose flags a read of `obj` may depend on."""
    ids = {id(obj)}
    if user_attributes.has(obj, "_flatten_layers"):
        ids.update(id(layer) for layer in obj._flatten_layers(include_self=True, recursive=True))
    ids.update(id(v) for v in user_attributes.get(obj, "variables", ()) or ())
    return ids


def relevant(writes: tuple, obj) -> tuple:
    """The pending writes a read of `obj` depends on (those setting a flag it reads), in
    their order."""
    if not writes:
        return ()
    needed = _depends_on(obj)
    return tuple(write for write in writes if {id(o) for o in _set_by(write[0])} & needed)


@contextlib.contextmanager
def as_written(writes: tuple):
    """Keras' flags as the trace's pending `writes` leave them, for the duration: Keras'
    own setters applied in order, every flag they touch restored after (the epoch does
    not move; one thread at a time, or two would restore each other's writes)."""
    if not writes:
        yield
        return
    for obj, _ in writes:
        if _library_setter(obj) is None:
            raise ConversionError(f"writes `trainable` of a {type(obj).__name__} whose class "
                                  "defines it itself")
    with _applying:
        saved = _flags(obj for obj, _ in writes)
        _quiet.depth = getattr(_quiet, "depth", 0) + 1
        try:
            for obj, value in writes:
                obj.trainable = value
            yield
        finally:
            for obj, flag in reversed(saved):
                obj._trainable = flag
            _quiet.depth -= 1


def _set_by(obj) -> list:
    """The layers and variables whose flag `obj.trainable = ...` sets (obj first)."""
    found = [obj]
    if user_attributes.has(obj, "_flatten_layers"):
        for layer in obj._flatten_layers(include_self=True, recursive=True):
            found.append(layer)
            found.extend(layer._trainable_variables)
    return found


def _flags(written) -> list:
    """(object, its `_trainable`) for everything a `trainable` write to the `written`
    objects sets."""
    return [(obj, obj._trainable) for each in written for obj in _set_by(each)]


def _library_setter(obj):
    """The `trainable` setter of obj's class if it is Keras' (counted) one, else None."""
    for cls in type(obj).__mro__:
        prop = cls.__dict__.get("trainable")
        if prop is not None:
            setter = getattr(prop, "fset", None)
            module = user_attributes.get(setter, "__module__", "") or ""
            return setter if module.split(".")[0] == "keras" else None
    return None


# -- reads during a trace

def read_attr(tracer, obj, name: str, missing):
    """`obj.name` for the trace if it is Keras state (recorded for the guard), else
    `missing`: the `trainable` flag of a layer or variable janus cannot locate (a located
    one is guarded as a value) or any one after this call wrote a flag, and a list of
    variables or layers a Keras layer or optimizer computes."""
    keras = _keras()
    if keras is None:
        return missing
    if name == "losses" and isinstance(obj, keras[0]):  # (its regularizers' settings)
        reads_of(tracer, _epoch()).add(tracer, obj, SETTINGS, settings(obj), ())
    flag = name == "trainable" and _flag_owner(obj, keras)
    if not flag and not (_tracked(obj, keras) and computed(obj, name)):
        return missing
    writes = pending(tracer)
    if flag and tracer.source_of(obj) is not None and not writes:
        return missing
    writes = relevant(writes, obj)
    epoch = _epoch()
    with as_written(writes):
        value = getattr(obj, name)
    if not flag and not _structure(name, value, keras):
        return missing
    reads_of(tracer, epoch).add(tracer, obj, name, tuple(value) if not flag else value, writes)
    if not flag and not writes:
        _locate_items(tracer, obj, name, value, keras)
    return value


def _locate_items(tracer, obj, name: str, value, keras) -> None:
    """Locate the layers and modules of a structure list read from a located object
    (`model.layers[0]` is `<model>.layers[0]`; the list's items are what the guard's reads
    hold), so that their own attributes are read and guarded, not taken as they are."""
    source = tracer.source_of(obj)
    if source is None:
        return
    for k, item in enumerate(value):
        if isinstance(item, (tf.Module, keras[0])) and tracer.source_of(item) is None:
            tracer.register(item, source.attr(name).item(k))


def _structure(name: str, value, keras) -> bool:
    """A list of variables or layers (a structure list by name: maybe empty)."""
    if name in _STRUCTURE_NAMES and isinstance(value, (list, tuple)):
        return all(isinstance(v, (tf.Variable, tf.Module, keras[0], keras[1])) for v in value)
    return variable_structure(value)


def calling(tracer, fn):
    """The context a traced library call of `fn` runs in: a Keras layer has its sublayers
    and BatchNormalization flags recorded, and runs under the trace's pending
    `trainable` writes."""
    keras = _keras()
    if keras is None:
        return contextlib.nullcontext()
    layer = fn if isinstance(fn, keras[0]) else user_attributes.get(fn, "__self__")
    if _is_optimizer(layer):  # (`opt.apply_gradients(...)`: its settings)
        if python_learning_rate(layer):
            raise ConversionError(f"calls a {type(layer).__name__} whose learning rate is a "
                                  "Python callable (Keras calls it while janus traces; it "
                                  "reads Python state no guard sees: F192)")
        reads_of(tracer, _epoch()).add(tracer, layer, SETTINGS, settings(layer), ())
        return contextlib.nullcontext()
    held = fn if isinstance(fn, held_classes()) else None
    if held is not None:  # (`huber(y, p)`: its reduction, its `delta`; `schedule(step)`)
        reads_of(tracer, _epoch()).add(tracer, held, SETTINGS, settings(held), ())
        return contextlib.nullcontext()
    if not isinstance(layer, keras[0]):
        return contextlib.nullcontext()
    writes = relevant(pending(tracer), layer)
    epoch = _epoch()
    with as_written(writes):
        called = _called(layer)
        configured = settings(layer)
    reads = reads_of(tracer, epoch)
    reads.add(tracer, layer, CALLED, called, writes)
    reads.add(tracer, layer, SETTINGS, configured, writes)
    return as_written(writes)


def _is_optimizer(obj) -> bool:
    if "keras.src.optimizers.base_optimizer" not in sys.modules:
        return False
    from keras.src.optimizers.base_optimizer import BaseOptimizer
    return isinstance(obj, BaseOptimizer)


# -- a tf.Module's variable lists (graphgen/module_epoch.py moves the epoch)

def module_variables(tracer, obj, name: str, value):
    """`obj.name`, a variable list a tf.Module computes, recorded with the trace's Keras
    reads (read again and compared by identity when the epoch moved); ConversionError
    for another library object's computed list (no epoch counts its changes)."""
    if not isinstance(obj, tf.Module) or \
            not all(isinstance(v, tf.Variable) for v in value):
        raise ConversionError(f"reads `{name}` of a {type(obj).__name__}, a list its class "
                              "computes that janus cannot guard")
    module_epoch.install(bump)
    pending = module_epoch.pending_change(tracer)
    if pending is not None:  # (deferred: the list read now would be the one before it)
        raise ConversionError(f"reads `{name}` of a {type(obj).__name__} after this call "
                              f"changed {pending} (applied only after the graph ran)")
    epoch = EPOCH.n
    reads_of(tracer, epoch).add(tracer, obj, name, tuple(value), ())
    return value
