"""Local copies of tf.Variables while a graph is traced.

Inside a trace, `assign`/`assign_add`/`assign_sub`/`scatter_*` on a variable
update a local (symbolic) copy and later reads see that copy (`value()`, `tf.gather`,
`sparse_read`, `gather_nd`, `v[i]`). When the trace
ends, `commit` writes every copy back with assignment ops that depend on all
in-graph guards, so no variable changes unless every assumption held.

A copy made by one `scatter_add`/`scatter_sub` of the variable's own value, that nothing
read afterwards, is committed as that scatter (`ResourceScatterSub` of its rows) rather
than as an assignment of the whole new table: a hand-written SGD's
`emb.scatter_sub(IndexedSlices(lr * g.values, g.indices))` of a 5000 x 300 embedding
copied 6 MB per step (`Scattered`). Likewise a copy made by one `assign_add`/`assign_sub`
of the variable's own value that nothing read is committed as that update
(`AssignAddVariableOp`, eager's own kernel: the same sum), not as a read, an add and an
assignment (`Added`: an optimizer's weight and step-counter updates; F428).
"""
from __future__ import annotations

import contextlib
import dataclasses
import threading

import tensorflow as tf
from tensorflow.python.ops import gen_resource_variable_ops, resource_variable_ops

from janus.errors import ConversionError
from janus.fallback import update_checks
from janus.fallback.update_checks import EagerError, converted
from janus.graphgen import checks
from janus.operation_hooks import operation_hook

# ResourceVariable re-wraps some of its base's methods (weak-tensor dispatch), so both
# classes are patched, each falling back to its own original.
_CLASSES = (resource_variable_ops.BaseResourceVariable, resource_variable_ops.ResourceVariable)
_active = threading.local()
_originals: dict = {}  # (class, method name) -> original


@dataclasses.dataclass(frozen=True)
class Scattered:
    """How a local copy was made from its variable's own value by one scatter: the
    scatter the commit runs on the variable instead, when nothing read the copy."""

    indices: tf.Tensor
    updates: tf.Tensor
    resource_op: object  # gen_resource_variable_ops.resource_scatter_add / _sub

    def commit(self, var):
        """The scatter on `var` itself."""
        return self.resource_op(var.handle, self.indices, self.updates)

    @property
    def operands(self) -> list:
        return [self.indices, self.updates]


@dataclasses.dataclass(frozen=True)
class Added:
    """How a local copy was made from its variable's own value by one `assign_add` /
    `assign_sub`: the update the commit runs on the variable instead, when nothing read
    the copy (its delta checked of the variable's shape when it was made)."""

    delta: tf.Tensor
    resource_op: object  # gen_resource_variable_ops.assign_add_variable_op / _sub_

    def commit(self, var):
        return self.resource_op(var.handle, self.delta)

    @property
    def operands(self) -> list:
        return [self.delta]


class VariableShadow:
    """The local copies of one trace."""

    def __init__(self):
        self.values: dict[int, tuple] = {}  # id(var) -> (var, symbolic value)
        self.writes = 0  # bumped on every update (to detect updates inside loops)
        self.scattered: dict[int, tuple] = {}  # id(copy) -> (copy, how one update made it)

    def current(self, var):
        local = self.local(var)
        return _original(var, "_read_variable_op")(var) if local is None else local

    def local(self, var):
        """The local copy of `var` (None: not updated in this trace). Refused where a
        library's tf.cond branch made it and the other branch reads it (Keras 3's
        LossScaleOptimizer: `ops.cond(finite, lambda: apply(...), lambda: ...)`): the
        branch's value is out of the reader's scope (F466)."""
        entry = self.values.get(id(var))
        if entry is None:
            return None
        made = getattr(entry[1], "graph", None)
        graph = tf.compat.v1.get_default_graph()
        while graph is not None and graph is not made:
            graph = getattr(graph, "outer_graph", None)
        if made is not None and graph is None:
            raise ConversionError(f"a library's tf.cond or loop updates the variable "
                                  f"{var.name} inside a branch or body that another "
                                  "branch or the code after it reads (janus keeps a "
                                  "trace's variable updates until its end)")
        return entry[1]

    def set(self, var, value):
        value = tf.convert_to_tensor(value, dtype=var.dtype)
        self.values[id(var)] = (var, value)
        self.writes += 1

    def pending_values(self) -> list:
        """The new values `commit` will assign (refused where one was made inside a
        library's `tf.cond` branch or loop body, `ops.cond(..., lambda: v.assign(avg))`
        of a Keras optimizer: out of that graph's scope here, and conditional there)."""
        graph = tf.compat.v1.get_default_graph()
        for var, value in self.values.values():
            if getattr(value, "graph", graph) is not graph:
                raise ConversionError(f"a library's tf.cond or loop updates the variable "
                                      f"{var.name} inside its branch or body (janus keeps a "
                                      "trace's variable updates until its end)")
        return [value for _, value in self.values.values()]

    def commit(self, guard_ops: list) -> list:
        """Assign every local copy to its variable after all `guard_ops` ran and every
        new value exists: a new value that fails when the graph runs (`w[0:2].assign(x)`
        of a shape that does not fit, a `tf.gather` out of range) changes no variable,
        not even one updated before it (the call's plain rerun updates it: F305)."""
        ops, values, assigned, scattered = [], [], [], []
        for var, value in self.values.values():
            recipe = self._unread_scatter(value)
            if recipe is None:
                values.append(value)
                assigned.append((var, value))
            else:
                values += recipe.operands
                scattered.append((var, recipe))
        with tf.control_dependencies(list(guard_ops) + values):
            for var, value in assigned:
                ops.append(_original(var, "assign")(var, value, read_value=False))
            ops += [recipe.commit(var) for var, recipe in scattered]
        return ops

    def _unread_scatter(self, value) -> Scattered | Added | None:
        """How `value` was made by one scatter (or add) of its variable's own value, if
        nothing in the graph reads it (a read makes the copy: it is assigned whole)."""
        entry = self.scattered.get(id(value))
        if entry is None or entry[0] is not value or value.consumers():
            return None
        return entry[1]


def _shadow():
    return getattr(_active, "shadow", None)


def _original(var, name):
    for cls in type(var).__mro__:
        original = _originals.get((cls, name))
        if original is not None:
            return original
    raise AttributeError(name)


def _patched(cls, name, make_value):
    original = _originals[(cls, name)]

    @operation_hook
    def variable_update(self, *args, **kwargs):  # (the user's own operation: safety.py)
        shadow = _shadow()
        if shadow is None or not tf.inside_function():
            return original(self, *args, **kwargs)
        try:
            value = make_value(shadow, self, *args, **kwargs)
        except EagerError as failed:  # (eager's op refuses these operands: the user's error)
            raise failed.error.with_traceback(None) from None
        shadow.set(self, value)
        return self if kwargs.get("read_value", True) else None
    return variable_update


def _patched_read(cls):
    original = _originals[(cls, "_read_variable_op")]

    @operation_hook
    def read(self, *args, **kwargs):
        shadow = _shadow()
        local = None if shadow is None else shadow.local(self)
        if local is not None:
            # the real read (recorded by a tape as an access of the variable) carries the
            # gradient; the local copy carries the value
            return _read_as_variable(local, original(self, *args, **kwargs))
        return original(self, *args, **kwargs)
    return read


def _patched_gather(cls, name, gather):
    """`sparse_read` (`tf.gather`, `tf.nn.embedding_lookup` of a variable) and
    `gather_nd` read the variable's handle, not `_read_variable_op`: after an update in
    the trace they read the local copy too (they read the old value: fuzz v58), with the
    gradient of a read of the variable (IndexedSlices, as eagerly)."""
    original = _originals[(cls, name)]

    @operation_hook
    def read(self, indices, name=None):
        shadow = _shadow()
        if shadow is not None and id(self) in shadow.values:
            return gather(self._read_variable_op(), indices, name=name)
        return original(self, indices, name=name)
    return read


_GATHERS = {"sparse_read": tf.gather, "gather_nd": tf.gather_nd}
"""The methods that read rows of a variable through its handle."""


@tf.custom_gradient
def _read_as_variable(local, variable_read):
    """The local copy's value, differentiated like a read of the variable itself.

    In eager code a variable read is a leaf: `v.assign(x * 2); y = v * 3` gives
    dy/dv = 3 and no gradient to `x`. Reading the copy directly would give the
    reverse (dy/dx = 6, dy/dv = None: two updates of one variable in one graph lost
    their gradients, fuzz seed 401313); this read gives eager's answer.
    """
    def grad(upstream):
        return None, upstream
    return tf.identity(local), grad


_IN_PLACE = {tf.tensor_scatter_nd_add: gen_resource_variable_ops.resource_scatter_add,
             tf.tensor_scatter_nd_sub: gen_resource_variable_ops.resource_scatter_sub}
"""The scatters a commit may run on the variable itself (duplicate indices accumulate in
both forms; which duplicate an update keeps is not defined: those keep the copy)."""


def _scatter(op):
    def value(shadow, var, sparse_delta, *args, **kwargs):
        if not isinstance(sparse_delta, tf.IndexedSlices):
            raise EagerError(TypeError(f"Argument `sparse_delta` must be a "
                                       f"`tf.IndexedSlices`. Received arg: {sparse_delta}"))
        own_value = id(var) not in shadow.values
        current = shadow.current(var)
        updates = update_checks.scattered(current, sparse_delta.indices,
                                          converted(sparse_delta.values, var))
        indices = tf.expand_dims(sparse_delta.indices, -1)
        made = update_checks.built(lambda: op(current, indices, updates))
        if own_value and op in _IN_PLACE:  # (eager's check of the rows, before any
            # variable changes, for the commit that scatters in place: F305)
            rows = tf.shape(current, out_type=tf.int64)[0]
            at = tf.cast(sparse_delta.indices, tf.int64)
            checks.require(tf.reduce_all(tf.logical_and(at >= 0, at < rows)))
            shadow.scattered[id(made)] = (made, Scattered(sparse_delta.indices, updates,
                                                          _IN_PLACE[op]))
        return made
    return value


def _scatter_nd(op):
    def value(shadow, var, indices, updates, *args, **kwargs):
        current = shadow.current(var)
        updates = update_checks.scattered_nd(current, indices, converted(updates, var))
        return update_checks.built(lambda: op(current, indices, updates))
    return value


def _strided_slice_assign(shadow, var, begin, end, strides, value, name, begin_mask,
                          end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask):
    """`var[...].assign(value)` (sliced assignment, broadcasting `value` as eager's op
    does) on the local copy."""
    value = converted(value, var)
    return update_checks.built(lambda: tf.raw_ops.TensorStridedSliceUpdate(
        input=shadow.current(var), begin=begin, end=end, strides=strides, value=value,
        begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
        new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask))


def _added(sign):
    def value(shadow, var, delta, *args, **kwargs):
        own_value = id(var) not in shadow.values
        current = shadow.current(var)
        delta = update_checks.same_shape(current, converted(delta, var))
        made = current + delta if sign > 0 else current - delta
        if own_value:
            shadow.scattered[id(made)] = (made, Added(delta, _IN_PLACE_ADDS[sign]))
        return made
    return value


_IN_PLACE_ADDS = {1: gen_resource_variable_ops.assign_add_variable_op,
                  -1: gen_resource_variable_ops.assign_sub_variable_op}


def _refused(name):
    def value(shadow, var, *args, **kwargs):
        raise ConversionError(f"`Variable.{name}` inside a graph is not modelled by janus's "
                              "local copies of variables")
    return value


# Every method that updates a variable (fuzz v15: an update missing here went to the
# variable directly, before the guards held, and the commit then overwrote it with the
# local copy: lost updates, stale reads), its operands checked as eager's op checks them
# (fallback/update_checks.py).
_PATCHES = {
    "assign": lambda shadow, var, value, *a, **k: update_checks.assigned(var, value),
    "assign_add": _added(1),
    "assign_sub": _added(-1),
    "scatter_add": _scatter(tf.tensor_scatter_nd_add),
    "scatter_sub": _scatter(tf.tensor_scatter_nd_sub),
    "scatter_update": _scatter(tf.tensor_scatter_nd_update),
    "scatter_max": _scatter(tf.tensor_scatter_nd_max),
    "scatter_min": _scatter(tf.tensor_scatter_nd_min),
    "scatter_nd_add": _scatter_nd(tf.tensor_scatter_nd_add),
    "scatter_nd_sub": _scatter_nd(tf.tensor_scatter_nd_sub),
    "scatter_nd_update": _scatter_nd(tf.tensor_scatter_nd_update),
    "scatter_nd_max": _scatter_nd(tf.tensor_scatter_nd_max),
    "scatter_nd_min": _scatter_nd(tf.tensor_scatter_nd_min),
    "_strided_slice_assign": _strided_slice_assign,
    "scatter_mul": _refused("scatter_mul"),
    "scatter_div": _refused("scatter_div"),
    "batch_scatter_update": _refused("batch_scatter_update"),
}


def _install() -> None:
    if _originals:
        return
    for cls in _CLASSES:
        for name in ["_read_variable_op", *_GATHERS, *_PATCHES]:
            if name in cls.__dict__:
                _originals[(cls, name)] = cls.__dict__[name]
    for (cls, name) in list(_originals):
        if name == "_read_variable_op":
            setattr(cls, name, _patched_read(cls))
        elif name in _GATHERS:
            setattr(cls, name, _patched_gather(cls, name, _GATHERS[name]))
        else:
            setattr(cls, name, _patched(cls, name, _PATCHES[name]))


@contextlib.contextmanager
def unshadowed():
    """Updates made on this thread go to the variables themselves for the duration: a
    program's `tf.function` TF traces now, inside janus's trace, keeps the graph it traced
    for the program's later calls, which must assign the variable, not a copy of janus's
    (F422: its cached graph assigned nothing, ever after)."""
    previous = _shadow()
    _active.shadow = None
    try:
        yield
    finally:
        _active.shadow = previous


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
