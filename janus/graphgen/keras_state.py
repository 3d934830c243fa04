"""Keras state a trace reads: structure lists, `trainable` flags and the settings of the
layers and optimizers it called (graphgen/keras_settings.py), guarded by an epoch.

Keras computes `model.trainable_variables`, `weights`, `layers`... from its layers'
tracked stores and `trainable` flags on every access; a graph holds the list its trace
read, by reference, and janus counts Keras' changes instead of recomputing the list on
every call (the epoch: graphgen/keras_epoch.py). A trace records what it read
(`KerasReads`); its guard holds while the epoch stayed where the reads were last
verified and, when it moved, reads them again with Keras' own code and holds if they are
the same objects (`layer.trainable = False` between calls: a new graph; toggled back:
the old one again). A traced call of a Keras layer records its sublayers (a
Sequential's `add`) and the flags of the `BatchNormalization` layers among them (their
`call` reads it: `if training and self.trainable`). A read after the call's own pending
`trainable` writes is made under them (graphgen/keras_writes.py).

A `tf.Module`'s `trainable_variables` (computed from its attributes) is read in the same
guard; graphgen/module_epoch.py counts its changes, graphgen/module_dicts.py finds those
made past its hooks (`object.__setattr__(net, "b", v)`). What stays unguarded: Keras state
changed behind Keras' API (`layer._trainable = False`, a private store list appended to).
"""
from __future__ import annotations

import contextlib
import sys

import tensorflow as tf

from janus.errors import ConversionError
from janus import user_attributes
from janus.graphgen import keras_contents, module_dicts, module_epoch
from janus.graphgen.keras_contents import held_items, same_items, setting_key
from janus.graphgen.guards import Guard
from janus.graphgen.keras_epoch import EPOCH, _epoch, _flag_owner, _keras, _tracked, bump
from janus.graphgen.keras_settings import SETTING_TYPES, Settings, held_classes, \
    python_learning_rate, settings
from janus.graphgen.keras_writes import as_written, held_written, pending, relevant
from janus.graphgen.sources import arg
from janus.operation_hooks import operation_hook

SETTINGS = "settings"  # the public settings a called layer's or optimizer's code reads
CALLED = "called layer"  # what a read of a called layer's sublayers and BatchNormalization
# flags is: its `call` depends on both (`if training and self.trainable:`)
_STRUCTURE_NAMES = frozenset({"variables", "trainable_variables", "non_trainable_variables",
                              "weights", "trainable_weights", "non_trainable_weights",
                              "layers", "metrics_variables"})  # (may be empty lists)


# -- what is Keras state

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


def tracked_object(obj) -> bool:
    """A Keras layer, model or optimizer (an object whose tracker stores its state)."""
    keras = _keras()
    return keras is not None and _tracked(obj, keras)


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


@operation_hook
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
        self.watch = None  # the dicts of the tf.Modules read (graphgen/module_dicts.py)

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
        them, and changing them moves no epoch; the guard runs the compiled form,
        keras_contents.Contents)."""
        return all(same_items(held_items(c), items) for c, items in self.containers) and \
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
        if self.watch is not None:  # (the modules the walks reach now)
            self.watch.refresh()
        self.seen = epoch
        return True

    def watch_modules(self) -> None:
        """Watch the dicts of the tf.Modules whose variable lists were read (a change past
        their hooks moves the epoch: graphgen/module_dicts.py)."""
        modules = [obj for obj, _, _, _ in self.reads if isinstance(obj, tf.Module)]
        if modules and (self.watch is None or
                        {id(m) for m in modules} != {id(m) for m in self.watch.roots}):
            self.watch = module_dicts.Watch(modules)

    def test(self, index: int, value_of, env: dict) -> str:
        """The guard's Python test: its owners are the traced objects and the epoch did
        not move (or the reads are the same)."""
        name = f"K{int(index)}"
        env[name], env["EPOCH"] = self, EPOCH
        tests = []
        for k, (source, obj) in enumerate(self.owners):
            env[f"{name}_{k}"] = obj
            tests.append(f"{value_of(source)} is {name}_{k}")
        if self.containers or self.settings:  # (graphgen/keras_contents.py: compiled)
            env[f"{name}_c"] = keras_contents.Contents(self.containers, self.settings).check
            tests.append(f"{name}_c()")
        self.watch_modules()  # (a record loaded from the cache: its modules' dicts)
        epoch = f"EPOCH.n == {name}.seen"
        if self.watch is not None:  # (a module's dict changed past the hooks: moves EPOCH)
            env[f"{name}_w"] = self.watch
            epoch = f"{name}_w.check() and {epoch}"
        return " and ".join(tests + [f"({epoch} or {name}.recheck())"])

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
    reads = tracer.keras_reads
    if reads is None or not (reads.reads or reads.settings):
        return None
    return Guard("keras", arg(0), reads, "reads Keras layers' variables or trainable flags")


def settings_reads(tracer) -> KerasReads:
    """The trace's KerasReads, to record a library-wide setting in."""
    return reads_of(tracer, _epoch())


def reads_of(tracer, epoch: int) -> KerasReads:
    """The trace's KerasReads, made with the epoch before its first read."""
    if tracer.keras_reads is None:
        tracer.keras_reads = KerasReads(epoch)
    return tracer.keras_reads


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
        configured = settings(layer)
        held_written(tracer, configured)
        reads_of(tracer, _epoch()).add(tracer, layer, SETTINGS, configured, ())
        return contextlib.nullcontext()
    held = fn if isinstance(fn, held_classes()) else \
        layer if isinstance(layer, held_classes()) else None
    if held is not None:  # (`huber(y, p)`: its reduction, its `delta`; `schedule(step)`;
        # a method of one: `schedule.get_config()`)
        configured = settings(held)
        held_written(tracer, configured)
        reads_of(tracer, _epoch()).add(tracer, held, SETTINGS, configured, ())
        return contextlib.nullcontext()
    if not isinstance(layer, keras[0]):
        return contextlib.nullcontext()
    writes = relevant(pending(tracer), layer)
    epoch = _epoch()
    with as_written(writes):
        called = _called(layer)
        configured = settings(layer)
    held_written(tracer, configured)
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
    reads = reads_of(tracer, epoch)
    reads.add(tracer, obj, name, tuple(value), ())
    reads.watch_modules()  # (its dict as read: changes past the hooks from now on)
    return value
