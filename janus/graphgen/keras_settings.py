"""The settings of Keras' own layers and optimizers that Keras' code reads when called.

A Dropout's `rate`, a LeakyReLU's `negative_slope`, a Dense's `activation`, an
optimizer's `clipnorm`: Keras reads them inside its own code, which janus traces as it is,
so a graph holds the values its trace read (F188). graphgen/keras_state.py records them
for the layers and optimizers a trace called (`settings`) and reads them again when its
epoch moved; `counted_setattr` wraps Keras' `__setattr__` so that a changed setting moves
the epoch:

    dropout.rate = 0.0           Layer.__setattr__ -> bump(): the next call's guard reads
                                 the settings of the layers the graph called again
    norm.adapt(data)             sets `norm.mean` (a tensor): bump(); so does any tensor,
                                 table or array a Keras object stores (`held_state`, F205)

The settings include the objects Keras calls on their behalf (`held`): an optimizer's
learning rate (its schedule, by identity: F192) and the constraints of its variables, a
layer's variables' regularizers and constraints and its activity regularizer, a loss's
keyword arguments (F193); those objects' public numbers are settings too, their classes'
`__setattr__` counted as well (keras_epoch.install).
"""
from __future__ import annotations

import functools
import types
import weakref

from janus.graphgen import held_partials
from janus.graphgen.held_bytecode import instructions
from janus.graphgen.keras_private import PRIVATE_READ, derived
from janus.graphgen.program_classes import program_definitions

SETTING_TYPES = (int, float, bool, str, type(None))
"""Types of a layer's or optimizer's settings (`rate`, `momentum`, `clipnorm`...)."""

_NOT_SETTINGS = frozenset({"name", "built", "build", "quantize",
                           "call_signature_parameters"})
"""Public attributes no computation reads (a name Keras numbers per process: `sgd_3`)."""

PRIVATE_SETTINGS = frozenset({"_learning_rate", "_fn_kwargs", "_regularizer", "_constraint"})
"""Private attributes holding an object Keras calls (an optimizer's learning rate, a
loss's keyword arguments, a variable's regularizer): a new object there moves the epoch."""

_LIBRARY_MODULES = ("keras", "tf_keras", "tensorflow")
_ABSENT = object()

_PRIVATE_NUMBERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# class of the program's (a LearningRateSchedule's subclass) -> the private attributes its
# held code reads that hold numbers (`self._warmup`): settings of its objects


def note_private_number(cls: type, name: str) -> None:
    """The program's held code of `cls` (a schedule's `__call__`: graphgen/held_code.py)
    reads `self.name`, a private attribute holding a number: a setting of its objects
    (compared by value; setting it moves the epoch, as a public one does)."""
    _PRIVATE_NUMBERS.setdefault(cls, set()).add(name)


def private_numbers(cls: type) -> frozenset | set:
    """The private attributes of `cls`'s objects that are settings (`note_private_number`)."""
    return _PRIVATE_NUMBERS.get(cls, frozenset()) if _PRIVATE_NUMBERS else frozenset()


class Settings(tuple):
    """((name, value), ...) of a Keras object's public settings: compared by value."""


def library_object(obj) -> bool:
    """An instance of Keras' own class (a Dropout, an Adam), whose settings only Keras'
    code reads: a subclass of the user's is converted where janus calls it, its
    attributes read (and guarded) through janus's hooks."""
    return (type(obj).__module__ or "").split(".")[0] in _LIBRARY_MODULES


_GENERIC = frozenset({"Layer", "Model", "Functional", "Sequential", "Optimizer",
                      "BaseOptimizer", "Loss", "Regularizer", "Constraint"})


_SPECIALIZED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def specialized(cls) -> bool:
    """cls is a user's subclass of a specific Keras class (`class MyNorm(Normalization)`),
    whose inherited library code reads the tensors and tables it holds (a subclass of
    `Layer` or `Model` itself: only the user's own code, read through janus's hooks).
    Found once per class, kept weakly (a class made in a call dies as in plain Python)."""
    found = _SPECIALIZED.get(cls)
    if found is None:
        found = False
        for base in cls.__mro__[1:]:
            if (base.__module__ or "").split(".")[0] in _LIBRARY_MODULES:
                found = base.__name__ not in _GENERIC
                break
        _SPECIALIZED[cls] = found
    return found


_WRITTEN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def program_written(cls) -> frozenset:
    """Attributes the program's classes in `cls`'s MRO store on their objects outside
    `__init__`/`build` (state their own code updates, a temperature annealed in `call`:
    read through janus's hooks, fed where it changes; not a setting the inherited
    library code reads, which would make a graph per value)."""
    found = _WRITTEN.get(cls)
    if found is None:
        names = set()
        for _, _, fn in program_definitions(cls, frozenset({"__init__", "build"})):
            if isinstance(fn, types.FunctionType):
                names.update(found[1] for found in instructions(fn.__code__)
                             if found[0] == "STORE_ATTR")
        found = _WRITTEN[cls] = frozenset(names)
    return found


def library_descriptor(obj, name: str):
    """The library class (Keras', TF's) of obj that defines `name` as a data descriptor
    (a property: its setter is library code), or None."""
    for cls in type(obj).__mro__:
        if name in cls.__dict__:
            found = cls.__dict__[name]
            if hasattr(type(found), "__set__") and \
                    not isinstance(found, types.MemberDescriptorType) and \
                    (cls.__module__ or "").split(".")[0] in _LIBRARY_MODULES:
                return cls
            return None
    return None


@functools.lru_cache(maxsize=None)
def held_classes() -> tuple:
    """Keras' classes of the objects a layer, optimizer or loss calls with settings of
    their own (a regularizer's `l2`, a MaxNorm's `max_value`, a schedule's `decay_rate`),
    and the loss class: (Regularizer, Constraint, LearningRateSchedule, Loss)."""
    from keras.src.constraints.constraints import Constraint
    from keras.src.losses.loss import Loss
    from keras.src.optimizers.schedules.learning_rate_schedule import LearningRateSchedule
    from keras.src.regularizers.regularizers import Regularizer
    return (Regularizer, Constraint, LearningRateSchedule, Loss)


_STATE_KINDS: tuple = ()


def held_state(value) -> bool:
    """A value a graph holds as its trace found it, not a variable it reads when it runs:
    a tensor (`Normalization.mean`), a lookup table (`StringLookup.lookup_table`), another
    resource or composite tensor, a numpy array (F205)."""
    global _STATE_KINDS
    if not _STATE_KINDS:
        import numpy as np
        import tensorflow as tf
        from tensorflow.python.trackable.resource import CapturableResource
        _STATE_KINDS = ((tf.Tensor, tf.__internal__.CompositeTensor, CapturableResource,
                         np.ndarray), tf.Variable)
    return isinstance(value, _STATE_KINDS[0]) and not isinstance(value, _STATE_KINDS[1])


def numbers(value) -> bool:
    """A list or tuple of settings (`Discretization.bin_boundaries`)."""
    return isinstance(value, (list, tuple)) and all(type(v) in SETTING_TYPES for v in value)


def settings_dict(value) -> bool:
    """A dict of settings by name (a Lambda's `arguments={"k": 2.0}`): its items are
    checked on every call (keras_contents), the dict itself by identity."""
    return isinstance(value, dict) and all(
        type(k) is str and (type(v) in SETTING_TYPES or type(v) is tuple and numbers(v) or
                            held_state(v)) for k, v in value.items())


def _own(obj) -> list:
    """obj's settings: its public numbers, text, None, functions (an activation), lists of
    numbers, dicts of settings, and the tensors and tables it holds (`held_state`: by
    identity); a partial (`activation=partial(tf.nn.leaky_relu, alpha=0.2)`) by its
    function, arguments and keywords (graphgen/held_partials.py: an equal new one is the
    same setting)."""
    pairs = []
    private = private_numbers(type(obj))
    for k, v in vars(obj).items():
        if held_state(v) or k in PRIVATE_READ or k in private or not k.startswith("_") and \
                k not in _NOT_SETTINGS and (type(v) in SETTING_TYPES or numbers(v) or
                                            isinstance(v, types.FunctionType) or
                                            settings_dict(v)):
            pairs.append((k, v))
        elif not k.startswith("_") and held_partials.plain_partial(v):
            pairs.extend(held_partials.settings(obj, k, v))
        elif not k.startswith("_") and isinstance(v, functools.partial):  # (a subclass)
            pairs.extend([(k, v), (f"{k}.func", v.func), (f"{k}.keywords", v.keywords)] +
                         [(f"{k}.args[{i}]", a) for i, a in enumerate(v.args)])
    return pairs + derived(obj)  # (private state Keras' public API sets: keras_private.py)


def _held(name: str, obj, pairs: list, depth: int = 0) -> None:
    """Append a held object (by identity) and its own public settings to `pairs` (and
    those of the Keras schedules, regularizers... it holds in turn: a warmup's `after`)."""
    if obj is None:
        return
    pairs.append((name, obj))
    if hasattr(obj, "__dict__"):
        pairs.extend((f"{name}.{k}", v) for k, v in _own(obj))
        if depth < 3:
            for k, v in list(vars(obj).items()):
                if not k.startswith("_") and isinstance(v, held_classes()):
                    _held(f"{name}.{k}", v, pairs, depth + 1)
    kwargs = getattr(obj, "_fn_kwargs", None)  # (a loss's `Huber(delta=...)`)
    if type(kwargs) is dict:
        pairs.append((f"{name}._fn_kwargs", kwargs))  # (its items checked per call: F230)
        pairs.extend((f"{name}[{k!r}]", v) for k, v in kwargs.items()
                     if type(v) in SETTING_TYPES)


def _variables_held(variables) -> list:
    return [(name, getattr(variable, "_" + name, None)) for variable in variables
            for name in ("regularizer", "constraint")]


def held_by_layer(layer) -> list:
    """(name, object) of what Keras calls on a layer's behalf besides its `call`: its
    activity regularizer, its variables' regularizers and constraints (None where it
    has none; graphgen/held_code.py looks at their code too)."""
    return [("activity_regularizer", layer.__dict__.get("activity_regularizer"))] + \
        _variables_held(list(layer.__dict__.get("_trainable_variables", ())) +
                        list(layer.__dict__.get("_non_trainable_variables", ())))


def python_learning_rate(optimizer) -> bool:
    """The optimizer's learning rate is a plain Python callable (`SGD(lambda: LR[0])`):
    Keras calls it while janus traces, reading Python state no guard can see."""
    rate = optimizer.__dict__.get("_learning_rate")
    if rate is None or not callable(rate):
        return False
    classes = held_classes()
    from keras.src.backend.common.variables import Variable
    return not isinstance(rate, (classes[2], Variable)) and not hasattr(rate, "assign")


def settings(obj) -> Settings:
    """The settings of a layer (and its sublayers), an optimizer or a loss, with those of
    the objects they hold (`held`)."""
    pairs: list = []
    if hasattr(obj, "_flatten_layers"):
        for layer in obj._flatten_layers(include_self=True, recursive=True):
            if library_object(layer):
                pairs.extend(_own(layer))
            elif specialized(type(layer)):  # (its inherited code reads them: F205, F323)
                written = program_written(type(layer))
                pairs.extend((k, v) for k, v in _own(layer) if k not in written)
            for name, held in held_by_layer(layer):
                _held(name, held, pairs)
        return Settings(pairs)
    if isinstance(obj, held_classes()):  # (a loss with its keyword arguments, a schedule)
        _held(type(obj).__name__, obj, pairs)
        return Settings(pairs)
    if library_object(obj):
        pairs.extend(_own(obj))
    if "_learning_rate" in obj.__dict__:  # (an optimizer: its rate's object, by identity)
        rate = obj.__dict__["_learning_rate"]
        if isinstance(rate, held_classes()[2]):
            _held("learning_rate", rate, pairs)
        else:
            pairs.append(("learning_rate", rate))
        for name, held in _variables_held(obj.__dict__.get("_trainable_variables", ())):
            _held(name, held, pairs)
    return Settings(pairs)


def read_by_keras(obj, name: str, value) -> bool:
    """`obj.name = value` sets what Keras' own code reads: a setting of Keras' layer or
    optimizer (a number, a function, or any value where a setting was), or of an object
    Keras calls (a regularizer's `l2`, a loss's `_fn_kwargs`: `held_classes`, a user's
    subclass too)."""
    if name in PRIVATE_SETTINGS:
        return True
    if isinstance(obj, held_classes()):
        return not name.startswith("_") or name in private_numbers(type(obj)) or \
            _state_change(obj, name, value)
    from keras.src.layers.layer import Layer
    from keras.src.optimizers.base_optimizer import BaseOptimizer
    if not library_object(obj) or not isinstance(obj, (Layer, BaseOptimizer)):
        return False
    if _state_change(obj, name, value):
        return True
    old = obj.__dict__.get(name, _ABSENT)
    return not name.startswith("_") and \
        any(type(v) in SETTING_TYPES or callable(v) or numbers(v) or isinstance(v, dict)
            for v in (value, old))


def counted_swap(prop: property, private: str, bump) -> property:
    """`prop` (a Keras variable's `regularizer`, `constraint`) whose setter calls `bump`
    when it stores another object."""
    setter = prop.fset

    @functools.wraps(setter)
    def set_counted(self, value):
        before = self.__dict__.get(private)
        try:
            setter(self, value)
        finally:
            if self.__dict__.get(private) is not before:
                bump()

    return property(prop.fget, set_counted, prop.fdel, prop.__doc__)


def counted_setattr(setattr_, bump, library_only: bool = True):
    """A Keras `__setattr__` that calls `bump` when a public setting of Keras' own object
    changes value (`dropout.rate = 0.0`, `opt.clipnorm = 0.1`), or a held object is
    replaced (`opt.learning_rate = schedule` sets `_learning_rate`). `library_only`:
    count Keras' own classes only (a user's subclass of a layer is read through hooks)."""
    @functools.wraps(setattr_)
    def counted(self, name, value):
        if name in PRIVATE_SETTINGS:
            if self.__dict__.get(name, _ABSENT) is not value:
                bump()
        elif not isinstance(getattr(type(self), name, None), property):
            old = self.__dict__.get(name, _ABSENT)
            library = not library_only or library_object(self)
            if old is value or held_partials.equal(old, value):
                pass  # (an equal new partial: held_partials.py)
            elif (library or specialized(type(self))) and _state_change(self, name, value, old):
                bump()  # (`adapt`, `set_vocabulary`: F205)
            elif name in private_numbers(type(self)):  # (a held schedule's `_warmup`)
                if not (type(old) is type(value) and type(value) in SETTING_TYPES and
                        old == value):
                    bump()
            elif (library or specialized(type(self)) and
                  name not in program_written(type(self))) and not name.startswith("_") and (
                    type(value) in SETTING_TYPES or callable(value) or numbers(value) or
                    isinstance(value, dict)) and \
                    not (type(old) is type(value) and type(value) in SETTING_TYPES and
                         old == value):
                bump()
        return setattr_(self, name, value)
    return counted


def _state_change(obj, name: str, value, old=_ABSENT) -> bool:
    """`obj.name = value` replaces or sets a tensor or table (`held_state`) obj holds."""
    if old is _ABSENT:
        old = obj.__dict__.get(name, _ABSENT)
    return old is not value and (held_state(value) or held_state(old))
