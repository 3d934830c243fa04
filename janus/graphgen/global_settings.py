"""Library-wide settings read through a library getter inside a traced call: the graph
holds the value its trace read, so the guard reads the setting again on every call (a
getter is ~0.1 us) and holds while it reads the same (F224):

    keras.backend.floatx()          "float32": after `set_floatx("float64")` a new graph
    keras.backend.epsilon()         (Keras' own losses read it too: any traced Keras call
                                    records it and `floatx`)
    keras.mixed_precision.global_policy()    compared by its text (`<DTypePolicy ...>`)
    tf.config.functions_run_eagerly(), np.get_printoptions()
    tf.config's other getters       `tensor_float_32_execution_enabled()`,
                                    `get_soft_device_placement()`, `optimizer.get_jit()`,
                                    `threading.get_*()`, `list_logical_devices("CPU")`...
                                    (F400: tf_config_functions; its other functions set)
    os.environ.get("K"), os.getenv("K"), "K" in os.environ, os.environ["K"]
                                    the variable's value (os.environ stands in as
                                    `EnvironReads`, which records each read)
    process-wide state              `sys.getrecursionlimit()` (the program's own limit),
                                    `gc.isenabled()`, `os.getcwd()`...; a Logger's level
                                    read through `tf.get_logger()` (F424, F425:
                                    graphgen/process_state.py)

Keras' ambient scopes around the call (an outer layer's call context: `training`), read
by any traced Keras call, are one more (graphgen/keras_globals.keras_ambient). Keras'
floatx, epsilon and image data format, read by the program or by any traced Keras
call, are one reader (graphgen/keras_contents.keras_config: one text, rebuilt only when
Keras' config changed). The reads are kept with the trace's Keras reads
(keras_state.KerasReads.settings), checked on every call. A setter called in the trace
(`keras.backend.set_epsilon(e)`, `tf.config.optimizer.set_jit(True)`, `os.environ[k] = v`,
TF's numpy behavior switched on or its dtype conversion mode set: janus/numpy_modes.py)
refuses: the graph would never make the change.
"""
from __future__ import annotations

import functools
import os
import sys
import types

import numpy as np
import tensorflow as tf

from janus import numpy_modes, user_attributes
from janus.errors import ConversionError
from janus.graphgen import keras_state, process_state
from janus.graphgen.keras_globals import ambient_entered, keras_ambient
from janus.graphgen.keras_contents import keras_config, setting_key
from janus.graphgen.sources import global_
from janus.operation_hooks import operation_hook

UNREAD = object()
"""`read`'s result for a call of another function."""

_getters: dict = {}
_SETTER = "setter"
_CONFIG = "config"  # (a getter of Keras' config module: read as `keras_config`)


_TF_CONFIG_SPACES = ("", "experimental", "optimizer", "threading")
"""tf.config and its namespaces holding getters and setters of TensorFlow's settings."""
_TF_CONFIG_GETTERS = ("get_", "list_", "functions_run_eagerly",
                      "experimental_functions_run_eagerly")
"""How the names of tf.config's getters begin (and `tensor_float_32_execution_enabled`
ends in `_enabled`); every other function of tf.config changes something."""


def tf_config_functions() -> tuple[list, list]:
    """tf.config's getters and the rest of its functions (setters: `set_jit`,
    `enable_op_determinism`, `run_functions_eagerly`...), by their names (F400)."""
    getters, setters = [], []
    for space in _TF_CONFIG_SPACES:
        namespace = getattr(tf.config, space) if space else tf.config
        for name, fn in vars(namespace).items():
            if name.startswith("_") or not isinstance(fn, types.FunctionType):
                continue
            if name.startswith(_TF_CONFIG_GETTERS) or name.endswith("_enabled"):
                getters.append(fn)
            else:
                setters.append(fn)
    return getters, setters


def _known_getters() -> dict:
    """id -> getter of the library-wide settings, or _SETTER for their setters, _CONFIG for
    the getters of Keras' config module (Keras' once it is imported)."""
    if not _getters or ("keras" in sys.modules and "keras" not in _getters):
        tf_getters, tf_setters = tf_config_functions()
        found = [np.get_printoptions, np.geterr, tf.random.get_global_generator, os.getenv,
                 keras_ambient] + tf_getters + process_state.getters()
        setters = [np.set_printoptions, np.seterr, tf.random.set_global_generator,
                   os.putenv, os.unsetenv, *numpy_modes.SETTERS] + tf_setters + \
            process_state.setters()
        if "keras" in sys.modules:
            keras = sys.modules["keras"]
            found += [keras_config, keras.config.backend, keras.mixed_precision.global_policy]
            config = [keras.backend.floatx, keras.backend.epsilon,
                      keras.backend.image_data_format]
            setters += [keras.backend.set_floatx, keras.backend.set_epsilon,
                        keras.backend.set_image_data_format,
                        keras.mixed_precision.set_global_policy]
            _getters["keras"] = None
        _getters.update({id(f): f for f in found})
        _getters.update({id(f): _SETTER for f in setters})
        if "keras" in sys.modules:
            _getters.update({id(f): _CONFIG for f in config})
    return _getters


_NO_ARGUMENTS = ("floatx", "epsilon", "image_data_format", "backend", "global_policy",
                 "functions_run_eagerly", "keras_config", "keras_ambient",
                 "tensor_float_32_execution_enabled", "get_soft_device_placement",
                 "get_optimizer_jit", "get_synchronous_execution", "get_device_policy",
                 "get_inter_op_parallelism_threads", "get_intra_op_parallelism_threads",
                 *process_state.PORTABLE)
"""Names of the getters a graph cache records by name (those of an earlier version too)."""


def _name(fn) -> str:
    return f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', '')}"


def portable_name(reader):
    """The name a graph cache records for `reader` (a getter taking no arguments: the
    same in another process), or None."""
    if type(reader) is functools.partial and not reader.args and not reader.keywords:
        reader = reader.func
    getter = _known_getters().get(id(reader))
    if getter is reader and user_attributes.get(reader, "__name__", "") in _NO_ARGUMENTS:
        return _name(reader)
    return None


def portable_getter(name: str):
    """The getter `portable_name` named (a name read from the cache: looked up among the
    known getters only, never imported), or None."""
    for getter in list(_known_getters().values()):
        if getter not in (_SETTER, _CONFIG, None) and \
                user_attributes.get(getter, "__name__", "") in _NO_ARGUMENTS and _name(getter) == name:
            return getter
    return None


def _record(tracer, reader, value) -> None:
    keras_state.settings_reads(tracer).add_setting(reader, setting_key(value))


@operation_hook
def read(tracer, fn, args: tuple, kwargs: dict):
    """`fn(*args, **kwargs)` of a settings getter, recorded for the guard; else UNREAD."""
    try:
        fn = process_state.ANSWERED.get(id(fn), fn)  # (`sys.getrecursionlimit`: F425)
        getter = _known_getters().get(id(fn))
    except TypeError:
        return UNREAD
    if getter is None and process_state.logger_query(fn):  # (`log.isEnabledFor(20)`: F424)
        getter = fn
    if getter is _SETTER:  # (run once while tracing, never by the graph)
        raise ConversionError(f"sets a library-wide setting ({fn.__name__}) in the call")
    if getter is _CONFIG and not args and not kwargs:  # (`keras.backend.floatx()`)
        _record(tracer, keras_config, keras_config())
        return fn()
    if getter is None or getter is not fn:
        owner = user_attributes.get(fn, "__self__", None)
        if owner is os.environ and user_attributes.get(fn, "__name__", "") in ("get", "__contains__",
                                                                  "__getitem__"):
            return getattr(EnvironReads(tracer), fn.__name__)(*args, **kwargs)
        if isinstance(owner, EnvironReads):  # (its own methods record what they read)
            return fn(*args, **kwargs)
        return UNREAD
    reader = functools.partial(fn, *args, **kwargs)
    value = reader()
    _record(tracer, reader, value)
    return value


def keras_call(tracer) -> None:
    """A traced call of Keras' code: it may read `epsilon()` and `floatx()` itself, and
    Keras' ambient scopes (the call context's `training`: graphgen/keras_globals.py), as
    the call found them (not the call context a traced layer's `__call__` entered)."""
    if "keras" in sys.modules:
        _record(tracer, keras_config, keras_config())
        _record(tracer, keras_ambient, ambient_entered(tracer))


_ABSENT = object()


def _environ_item(key):
    return os.environ.get(key, _ABSENT)


class EnvironReads:
    """`os.environ` inside a trace: each read recorded for the guard."""

    def __init__(self, tracer):
        self._tracer = tracer

    def _read(self, key):
        value = _environ_item(key)
        _record(self._tracer, functools.partial(_environ_item, key), value)
        return value

    def get(self, key, default=None):
        value = self._read(key)
        return default if value is _ABSENT else value

    def __contains__(self, key):
        return self._read(key) is not _ABSENT

    def __getitem__(self, key):
        value = self._read(key)
        if value is _ABSENT:
            return os.environ[key]  # (the KeyError plain Python raises)
        return value

    def _refuse(self, *args, **kwargs):
        raise ConversionError("changes or lists os.environ in the call (read per key only)")

    __setitem__ = __delitem__ = __iter__ = __len__ = _refuse
    copy = keys = items = values = pop = popitem = setdefault = update = clear = _refuse


def handed_out(tracer, obj, name: str, value):
    """`obj.name` of a Logger (its Manager, a Handler, the decimal context) janus does not
    locate, read again on every call (process_state.py, F424); else UNREAD."""
    reader = process_state.handed_out_read(obj, name, value)
    if reader is None:
        return UNREAD
    _record(tracer, reader, reader())
    return value


def library_global(tracer, module, name: str, value):
    """`module.name` of a library module read in a trace: os.environ's stand-in, a list
    (`sys.argv`) imported as a heap list (guarded by its items), else the value (its
    constants)."""
    if value is os.environ:
        return EnvironReads(tracer)
    if type(value) is list:
        return tracer.import_value(value, global_(name, module.__name__, vars(module)))
    return value
