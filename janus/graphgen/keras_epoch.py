"""The Keras epoch: a count that moves whenever Keras state a graph may have read changes
through Keras' API, so that a guard on that state re-reads it only after a change.

Keras computes `model.trainable_variables`, `weights`, `layers`... from its layers'
tracked stores and `trainable` flags on every access; a graph holds the list its trace
read, by reference. Recomputing such a list in a guard on every call costs 4 us (two
Dense layers) to ~70 us (a ResNet), so janus counts changes instead: `EPOCH` moves when
a Keras `trainable` flag changes value (the `Layer.trainable` and `Variable.trainable`
setters, wrapped: `install`), a Keras tracker adds or drops a variable, layer or other
tracked object (`Tracker.add_to_store`, `untrack`, `replace_tracked_value`), or a
setting of a layer, an optimizer or an object they hold is set (graphgen/keras_settings.py,
graphgen/keras_private.py); a tf.Module's changes move it too (graphgen/module_epoch.py).
It stays put while graphgen/keras_writes.as_written applies a trace's own pending writes
(`_quiet`). graphgen/keras_state.py records the reads and guards them by the epoch.
"""
from __future__ import annotations

import functools
import sys
import threading

from janus import user_attributes
from janus.graphgen import keras_private, module_epoch
from janus.graphgen.keras_settings import counted_setattr, counted_swap, held_classes
from janus.patches import once


class _Epoch:
    __slots__ = ("n",)

    def __init__(self):
        self.n = 0


EPOCH = _Epoch()
_quiet = threading.local()  # depth > 0 while `as_written` applies a trace's writes
_applying = threading.RLock()


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


def install() -> None:
    """Wrap Keras' setters of `trainable`, of its layers' and optimizers' settings and
    those of the objects they hold (keras_settings.held_classes), and its trackers' store
    changes (once, when Keras is imported), and tf.Module's (graphgen/module_epoch.py)."""
    module_epoch.install(bump)  # (a tf.Module's changes: without Keras too)
    if _keras() is not None:  # (Keras' once it is imported)
        _count_keras_changes()


@once(lock=_applying)  # (not while `as_written` applies a trace's writes)
def _count_keras_changes() -> None:
    Layer, Variable, Tracker = _keras()
    for cls in (Layer, Variable):
        cls.trainable = _counted_flag(cls.__dict__["trainable"])
    for name in ("add_to_store", "untrack", "replace_tracked_value"):
        setattr(Tracker, name, keras_private.counted_method(Tracker.__dict__[name], bump))
    from keras.src.optimizers.base_optimizer import BaseOptimizer
    for cls in (Layer, BaseOptimizer):
        cls.__setattr__ = counted_setattr(cls.__dict__["__setattr__"], bump)
    for cls in held_classes():  # (a user's subclass too: Keras calls it, unconverted)
        cls.__setattr__ = counted_setattr(cls.__setattr__, bump, library_only=False)
    for name in ("regularizer", "constraint"):
        setattr(Variable, name, counted_swap(Variable.__dict__[name], "_" + name, bump))
    keras_private.install(bump)  # (`layer.dtype_policy = ...`, AdamW's exclusions)


# -- Keras' classes

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


def _flag_owner(obj, keras) -> bool:
    return isinstance(obj, (keras[0], keras[1]))


def _tracked(obj, keras) -> bool:
    """A Keras object whose tracker stores its variables/layers (a layer, an optimizer)."""
    return isinstance(user_attributes.get(obj, "_tracker"), keras[2])


def _epoch() -> int:
    """The epoch now (counting from now on)."""
    install()
    return EPOCH.n
