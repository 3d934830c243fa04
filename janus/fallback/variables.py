"""Local copies of tf.Variables while a graph is traced.

Inside a trace, `assign`/`assign_add`/`assign_sub`/`scatter_*` on a variable
update a local (symbolic) copy and later reads see that copy. When the trace
ends, `commit` writes every copy back with assignment ops that depend on all
in-graph guards, so no variable changes unless every assumption held.
"""
from __future__ import annotations

import contextlib
import threading

import tensorflow as tf
from tensorflow.python.ops import resource_variable_ops

_Base = resource_variable_ops.BaseResourceVariable
_active = threading.local()
_originals: dict = {}


class VariableShadow:
    """The local copies of one trace."""

    def __init__(self):
        self.values: dict[int, tuple] = {}  # id(var) -> (var, symbolic value)
        self.writes = 0  # bumped on every update (to detect updates inside loops)

    def current(self, var):
        entry = self.values.get(id(var))
        return entry[1] if entry else _originals["_read_variable_op"](var)

    def set(self, var, value):
        value = tf.convert_to_tensor(value, dtype=var.dtype)
        self.values[id(var)] = (var, value)
        self.writes += 1

    def commit(self, guard_ops: list) -> list:
        """Assign every local copy to its variable after all `guard_ops` ran."""
        ops = []
        with tf.control_dependencies(guard_ops):
            for var, value in self.values.values():
                ops.append(_originals["assign"](var, value, read_value=False))
        return ops


def _shadow():
    return getattr(_active, "shadow", None)


def _patched(name, make_value):
    def method(self, *args, **kwargs):
        shadow = _shadow()
        if shadow is None or not tf.inside_function():
            return _originals[name](self, *args, **kwargs)
        shadow.set(self, make_value(shadow, self, *args, **kwargs))
        return self if kwargs.get("read_value", True) else None
    return method


def _read(self, *args, **kwargs):
    shadow = _shadow()
    if shadow is not None and id(self) in shadow.values:
        return tf.identity(shadow.values[id(self)][1])
    return _originals["_read_variable_op"](self, *args, **kwargs)


def _scatter(op):
    def value(shadow, var, sparse_delta, *args, **kwargs):
        indices = tf.expand_dims(sparse_delta.indices, -1)
        return op(shadow.current(var), indices, sparse_delta.values)
    return value


_PATCHES = {
    "assign": lambda shadow, var, value, *a, **k: value,
    "assign_add": lambda shadow, var, delta, *a, **k: shadow.current(var) + delta,
    "assign_sub": lambda shadow, var, delta, *a, **k: shadow.current(var) - delta,
    "scatter_add": _scatter(tf.tensor_scatter_nd_add),
    "scatter_sub": _scatter(tf.tensor_scatter_nd_sub),
    "scatter_update": _scatter(tf.tensor_scatter_nd_update),
}


def _install() -> None:
    if _originals:
        return
    _originals["_read_variable_op"] = _Base._read_variable_op
    _Base._read_variable_op = _read
    for name, make_value in _PATCHES.items():
        _originals[name] = getattr(_Base, name)
        setattr(_Base, name, _patched(name, make_value))


@contextlib.contextmanager
def shadowing(shadow: VariableShadow):
    """Route variable updates on this thread into `shadow` for the duration."""
    _install()
    previous = _shadow()
    _active.shadow = shadow
    try:
        yield shadow
    finally:
        _active.shadow = previous
