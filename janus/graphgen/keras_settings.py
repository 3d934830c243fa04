"""The settings of Keras' own layers and optimizers that Keras' code reads when called.

A Dropout's `rate`, a LeakyReLU's `negative_slope`, a Dense's `activation`, an
optimizer's `clipnorm`: Keras reads them inside its own code, which janus traces as it is,
so a graph holds the values its trace read (F188). graphgen/keras_state.py records them
for the layers and optimizers a trace called (`settings`) and reads them again when its
epoch moved; `counted_setattr` wraps Keras' `__setattr__` so that a changed setting moves
the epoch:

    dropout.rate = 0.0           Layer.__setattr__ -> bump(): the next call's guard reads
                                 the settings of the layers the graph called again
"""
from __future__ import annotations

import functools
import types

SETTING_TYPES = (int, float, bool, str, type(None))
"""Types of a layer's or optimizer's settings (`rate`, `momentum`, `clipnorm`...)."""

_NOT_SETTINGS = frozenset({"name", "built", "build", "quantize"})
"""Public attributes no computation reads (a name Keras numbers per process: `sgd_3`)."""

_LIBRARY_MODULES = ("keras", "tf_keras", "tensorflow")
_ABSENT = object()


class Settings(tuple):
    """((name, value), ...) of a Keras object's public settings: compared by value."""


def library_object(obj) -> bool:
    """An instance of Keras' own class (a Dropout, an Adam), whose settings only Keras'
    code reads: a subclass of the user's is converted where janus calls it, its
    attributes read (and guarded) through janus's hooks."""
    return (type(obj).__module__ or "").split(".")[0] in _LIBRARY_MODULES


def settings(obj) -> Settings:
    """The public settings of a layer (and its sublayers) or an optimizer: numbers, text,
    None, functions (an activation)."""
    objects = tuple(obj._flatten_layers(include_self=True, recursive=True)) \
        if hasattr(obj, "_flatten_layers") else (obj,)
    return Settings((k, v) for o in objects if library_object(o)
                    for k, v in vars(o).items()
                    if not k.startswith("_") and k not in _NOT_SETTINGS and
                    (type(v) in SETTING_TYPES or isinstance(v, types.FunctionType)))


def counted_setattr(setattr_, bump):
    """A Keras `__setattr__` that calls `bump` when a public setting of Keras' own object
    changes value (`dropout.rate = 0.0`, `opt.clipnorm = 0.1`)."""
    @functools.wraps(setattr_)
    def counted(self, name, value):
        if not name.startswith("_") and (type(value) in SETTING_TYPES or callable(value)) \
                and library_object(self) and \
                not isinstance(getattr(type(self), name, None), property):
            old = self.__dict__.get(name, _ABSENT)
            if old is not value and not (type(old) is type(value) and
                                         type(value) in SETTING_TYPES and old == value):
                bump()
        return setattr_(self, name, value)
    return counted
