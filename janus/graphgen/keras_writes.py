"""The trace's own writes of Keras state: deferred to the heap ledger (written back after
the graph), and applied for the duration of a read that comes after them.

A write of `trainable` inside the traced call is deferred like any attribute write, so a
read after it is made with the ledger's pending writes applied for the duration of the
read (Keras' own setters; every flag they touch is restored after: `as_written`):
`d.trainable = False` then `g.trainable_variables + d.trainable_variables` reads what
plain Python reads (when the epoch moved, the guard reads it again under the same
writes: graphgen/keras_state.py). A traced call of a layer those writes reach runs under
them too. Other writes inside the call that change Keras' structure (a layer assigned to
a model's attribute) refuse the reads after them (`pending`); a write whose setter is
library code, or that Keras' own code reads, refuses at once (`wrote`).

The lists and dicts Keras objects hold are settings too (graphgen/keras_settings.py): a
write to one in the call goes to the trace's copy, while Keras' own code, traced as it
is, reads the object itself. A traced call of the object holding it after such a write
refuses (`held_written`, F320):

    sched.boundaries[0] = 4 + n % 2      (the copy; the write-back comes after the graph)
    lr = sched(step)                     refused: Keras reads the list before the write
"""
from __future__ import annotations

import contextlib

import tensorflow as tf

from janus import user_attributes
from janus.errors import ConversionError
from janus.graphgen.keras_epoch import _applying, _flag_owner, _keras, _quiet, _tracked
from janus.graphgen.keras_settings import library_descriptor, read_by_keras


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


def held_written(tracer, configured) -> None:
    """ConversionError if the trace wrote (to its copy: deferred) a list or dict among the
    `configured` settings of a Keras object it is about to call (keras_settings.settings:
    a schedule's `boundaries`, a loss's `_fn_kwargs`, a Lambda's `arguments`), which
    Keras' own code would read as it was before the write."""
    ledger = tracer.ledger
    if not ledger.dirty:
        return
    for name, value in configured:
        if isinstance(value, (list, dict)):
            entry = ledger.copies.get(id(value))
            if entry is not None and id(entry[0]) in ledger.dirty:
                raise ConversionError(
                    f"calls Keras code reading `{name}` after this call changed it "
                    "(applied only after the graph ran: F320)")


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
