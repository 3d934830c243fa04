"""The Keras state no epoch counts, checked on every call of a graph that read it, cheaply.

Keras' configuration setters (`keras.backend.set_epsilon`, `keras.config.set_floatx`)
write module globals, and the lists and dicts its objects hold (a Huber loss's
`_fn_kwargs`, a PiecewiseConstantDecay's `values`) change in place: no epoch moves
(graphgen/keras_state.py), so a graph that read them checks them on every call (F224,
F230). Both checks take a few tenths of a microsecond when nothing changed:

    keras_config()    Keras' floatx, epsilon and image data format as one text
                      ("str 'float32', float 1e-07, str 'channels_last'"): a traced
                      Keras call reads it (Keras' losses read `epsilon()`), as does the
                      program's `floatx()`; rebuilt only when a value Keras' config
                      module keeps is another object than the last call's
    Contents(containers, settings).check()
                      the test of a trace's Keras reads (keras_state.KerasReads): each
                      held list's or dict's items are the objects the last check saw
                      (else compared by type and value with the trace's: F230), and each
                      library-wide setting reads the same (`setting_key`)
"""
from __future__ import annotations

from operator import is_

from janus.graphgen.keras_settings import SETTING_TYPES

_CONFIG_NAMES = ("_FLOATX", "_EPSILON", "_IMAGE_DATA_FORMAT")
_values: dict | None = None  # (Keras' config module's namespace, once imported)
_objects: tuple = (None, None, None)  # (its values the last text was made of)
_text = ""


def keras_config() -> str:
    """Keras' floatx, epsilon and image data format as one text (the same object while
    none of them is another object)."""
    values = _values
    if values is not None and values["_FLOATX"] is _objects[0] and \
            values["_EPSILON"] is _objects[1] and values["_IMAGE_DATA_FORMAT"] is _objects[2]:
        return _text
    return _made_text()


def _made_text() -> str:
    global _values, _objects, _text
    if _values is None:
        import keras.src.backend.config as config
        _values = vars(config)
    objects = tuple(_values[name] for name in _CONFIG_NAMES)
    text = ", ".join(f"{type(v).__name__} {v!r}" for v in objects)
    if text != _text:
        _text = text
    _objects = objects
    return _text


def setting_key(value):
    """A comparable description of a library-wide setting's value (a policy or generator
    by its text: an object's includes its address)."""
    if type(value) in SETTING_TYPES:
        return type(value), value
    return type(value), repr(value)


def held_items(container) -> tuple:
    """A held list's items, a held dict's (key, value) pairs."""
    return tuple(container.items()) if isinstance(container, dict) else tuple(container)


def same_items(a: tuple, b: tuple) -> bool:
    """Items of a held list or dict (F230): the same objects, or equal settings."""
    return len(a) == len(b) and all(x is y or type(x) is type(y) and (
        type(x) in SETTING_TYPES and x == y or type(x) is tuple and same_items(x, y))
        for x, y in zip(a, b))


_UNSEEN = object()
"""What no reader returns: the value of a reader to read again on the next call."""
_UNROLLED = 3  # (items of a list compared one by one; a longer list's through `map`)


class Contents:
    """The per-call check of a trace's held lists and dicts (`containers`: (container,
    its items as the trace read them)) and library-wide settings (`settings`: (reader,
    its value's `setting_key`)): `check()` holds when they hold the objects the last
    check saw, else compares them by value with what the trace read (and then those
    objects are what the next check looks for). Compiled from small ints only: every
    object reaches it through its environment."""

    def __init__(self, containers: list, settings: list):
        self._containers = tuple(containers)
        self._settings = tuple(settings)
        env: dict = {"is_": is_, "compared": self._compared, "read": self._read}
        lines = ["def check():"]
        for k, (container, _) in enumerate(self._containers):
            env[f"C{k}"] = container
            lines.append(f"    if {_changed(k, container)}: return compared()")
        for k, (reader, _) in enumerate(self._settings):
            env[f"R{k}"], env[f"V{k}"] = reader, _UNSEEN
            lines.append(f"    if R{k}() is not V{k}: return read()")
        lines.append("    return True")
        self._env = env
        self._seen()
        exec(compile("\n".join(lines), "<janus keras contents>", "exec"), env)
        self.check = env["check"]

    def _seen(self) -> None:
        """Note the objects the containers hold now."""
        for k, (container, _) in enumerate(self._containers):
            self._env[f"S{k}"] = tuple(container.values() if isinstance(container, dict)
                                       else container)
            self._env[f"K{k}"] = tuple(container) if isinstance(container, dict) else ()
            for i, item in enumerate(self._env[f"S{k}"][:_UNROLLED]):
                self._env[f"S{k}_{i}"] = item

    def _compared(self) -> bool:
        """A container holds other objects than the last check saw: it holds what the
        trace read (F230), and the settings read the same."""
        if not all(same_items(held_items(c), items) for c, items in self._containers):
            return False
        self._seen()
        return self._read()

    def _read(self) -> bool:
        """The settings read what the trace read (an immutable value is what the next
        check looks for by identity)."""
        values = [reader() for reader, _ in self._settings]
        if any(setting_key(v) != key for v, (_, key) in zip(values, self._settings)):
            return False
        for k, value in enumerate(values):
            self._env[f"V{k}"] = value if type(value) in SETTING_TYPES else _UNSEEN
        return True


def _changed(k: int, container) -> str:
    """The test that container `C{k}` holds other objects than `S{k}` (a dict: its
    keys `K{k}` too)."""
    n = len(container)
    if isinstance(container, dict):
        return (f"len(C{k}) != {n} or not all(map(is_, C{k}.values(), S{k})) or "
                f"not all(map(is_, C{k}, K{k}))")
    if n <= _UNROLLED:
        return " or ".join([f"len(C{k}) != {n}"] +
                           [f"C{k}[{i}] is not S{k}_{i}" for i in range(n)])
    return f"len(C{k}) != {n} or not all(map(is_, C{k}, S{k}))"
