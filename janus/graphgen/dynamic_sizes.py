"""Sizes that vary from call to call, read as Python ints the graph computes.

Once a dimension varies, janus's graph has it unknown (None). Code reading it, or
looping over a range of it, gets a fed int (a `SymbolicScalar`) instead of a constant,
so one graph serves every size, and a loop over a range of one is a `tf.while_loop`:

    for t in range(src.shape[1]):        t: a fed int per iteration of one tf.while_loop
        h = cell(src[:, t], h)           (src.shape[1]: tf.shape(src)[1], a fed int)
    loss / int(tgt.shape[1])             a fed int converted to the loss's dtype

    for i in range(n):                   n a Python int fed to the graph (plan.scalars):
        acc = acc + x[i]                 one graph for every n, not a graph per value

A Python decision on such an int (`if t.shape[0] == 3`, `[0] * n`, printing a shape)
still refuses as any fed int does: janus keeps the sizes specialized then. So does a
gradient of rows gathered inside the loop (an embedding lookup per time step under a
tape: graphgen/traced_gradients.py), which only an unrolled loop gives as eager does.
"""
from __future__ import annotations

import threading

import tensorflow as tf
from tensorflow.python.framework.ops import EagerTensor

from janus import user_attributes
from janus.errors import ConversionError
from janus.graphgen import checks
from janus.graphgen.values import DynamicList, FedScalarMisuse, SymbolicScalar, tensor_index

_building = threading.local()  # .ranges: the SymbolicRanges whose loops are being built

DIM_BOUND = 2 ** 48
"""A bound of a tensor dimension's size (no tensor has more items along one dimension:
exact_numbers uses it to prove int arithmetic exact)."""


class PartialShape(tf.TensorShape):
    """`t.shape` of a graph tensor with dimensions janus left general. A known dimension
    reads as its number; an unknown one as a fed int computed from `tf.shape(t)`
    (iterating, `as_list()` too). Comparing, printing and the like refuse: eagerly every
    dimension is a number, and `t.shape == u.shape` decided on None would differ from
    plain Python (janus then keeps the shape specialized)."""

    __slots__ = ("_tensor", "_axes")

    def __init__(self, dims, tensor=None, axes=None):
        super().__init__(dims)
        self._tensor = tensor
        self._axes = tuple(range(len(self.dims))) if axes is None else axes

    def _refuse(self, what: str):
        raise ConversionError(f"{what} of a tensor shape with dimensions that vary from call "
                              "to call is a Python decision the graph cannot make")

    def _dimension(self, index: int):
        value = tf.TensorShape.__getitem__(self, index)
        if value is not None:
            return value
        if self._tensor is None:
            self._refuse("reading an unknown dimension")
        size = tf.shape(self._tensor, out_type=tf.int64)[self._axes[index]]
        return SymbolicScalar(size, int, bound=DIM_BOUND)

    def __getitem__(self, key):
        if isinstance(key, slice):
            value = tf.TensorShape.__getitem__(self, key)
            if value.is_fully_defined():
                return value
            return PartialShape(value, self._tensor, self._axes[key])
        return self._dimension(key.__index__())

    def __eq__(self, other):
        self._refuse("comparing")

    def __ne__(self, other):
        self._refuse("comparing")

    __hash__ = tf.TensorShape.__hash__

    def __iter__(self):
        return iter([self._dimension(i) for i in range(len(self.dims))])

    def as_list(self):
        return list(self)

    def num_elements(self):
        self._refuse("num_elements()")

    def is_fully_defined(self):
        self._refuse("is_fully_defined()")

    def __str__(self):
        self._refuse("printing")

    __repr__ = __str__


class SymbolicRange(DynamicList):
    """`range(...)` of fed ints: its items a tensor `tf.range(...)`, each a fed int; a
    plain `for` over it is a tf.while_loop (general.py `_while_for`), `len()` a fed int.
    Only a loop that runs at least once is a graph's (its first iteration is peeled):
    an empty range is checked in-graph and reruns the call plainly (`loop`)."""

    _what = "range of a Python int that changes per call"

    def __init__(self, items, bound, roles=()):
        super().__init__(items, int)
        self.bound = bound  # (of its items' magnitudes: exact_numbers)
        self.roles = list(roles)  # the fed roles it ranges over (`loop`)
        self.made: list = []  # the item tensors its loop made (`refuse_item_decision`)

    def _wrap(self, item):
        self.made.append(item)
        return SymbolicScalar(item, int, bound=self.bound)

    def __getitem__(self, key):
        if isinstance(key, slice):  # (`range(n)[1:]` is a range too)
            return SymbolicRange(self.stacked[tensor_index(key)], self.bound, self.roles)
        return super().__getitem__(key)

    def loop(self, build, peeled: bool = True):
        """`build()` of the tf.while_loop over this range (`peeled`: its first iteration
        taken out, so the range is checked non-empty). Where the body cannot be one
        (a heap write under a test of the item...), the fed count it ranges over stays
        guarded, as an unrolled loop's count (FedScalarMisuse: the trace is redone at
        once); a size read from a shape has no role: the trace fails, the plan retreats."""
        if peeled:
            checks.require(self.length() > 0)
        ranges = _building.__dict__.setdefault("ranges", [])
        ranges.append(self)
        try:
            return build()
        except FedScalarMisuse:
            raise
        except ConversionError as error:
            if not self.roles:
                raise
            raise FedScalarMisuse(f"a loop over a range of it is not one tf.while_loop "
                                  f"({error})", self.roles[0]) from error
        finally:
            ranges.pop()


def refuse_item_decision(value) -> None:
    """Refuse a Python decision (an `if` or `while` test the trace specializes) on a
    value computed from the item of a range loop being built (`if t % 2 == 0:`): unrolled,
    each iteration decides on its own number; in one tf.while_loop the test would have to
    hold for every item (its in-graph check would fail on every call)."""
    ranges = getattr(_building, "ranges", None)
    if not ranges or isinstance(value, EagerTensor):
        return
    items = {id(t) for r in ranges for t in r.made}
    if _reads(value, items):
        raise ConversionError("a Python `if`/`while` decides on the item of a loop over a "
                              "range (each iteration would decide otherwise)")


def _reads(tensor, targets: set) -> bool:
    """Whether `tensor` is computed from one of `targets` (across captures of branch and
    loop bodies)."""
    stack, seen, captured = [tensor], set(), {}  # captured: graph id -> {inner: outer}
    while stack:
        t = stack.pop()
        if id(t) in targets:
            return True
        if id(t) in seen or isinstance(t, EagerTensor):  # (a captured eager constant)
            continue
        seen.add(id(t))
        if t.op.type == "Placeholder":
            graph = t.graph
            if id(graph) not in captured:
                captured[id(graph)] = {id(inner): outer for outer, inner in
                                       getattr(graph, "captures", ())}
            outer = captured[id(graph)].get(id(t))
            if outer is not None:
                stack.append(outer)
            continue
        stack.extend(t.op.inputs)
    return False


def symbolic_range(args: tuple):
    """`range(*args)` when an argument is a fed int (a SymbolicRange), else None (Python's
    own `range`: a fed float or bool there is Python's TypeError or a refusal)."""
    if not any(isinstance(a, SymbolicScalar) for a in args) or not 1 <= len(args) <= 3:
        return None
    if any(isinstance(a, SymbolicScalar) and a.kind is not int or
           not isinstance(a, SymbolicScalar) and type(a) is not int for a in args):
        return None
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    if isinstance(step, SymbolicScalar) or step == 0:  # (a fed step: its sign decides)
        return None
    bounds = [abs(v) if type(v) is int else v.bound for v in (start, stop)]
    bound = None if None in bounds else max(bounds) + abs(step)
    if bound is not None and bound >= 2 ** 62:
        raise ConversionError("a range past 2**62 (its items' arithmetic in the graph "
                              "would not be exact)")
    start, stop = (tf.cast(v.tensor, tf.int64) if isinstance(v, SymbolicScalar) else
                   tf.constant(v, tf.int64) for v in (start, stop))
    roles = [v.role for v in args if isinstance(v, SymbolicScalar) and v.role]
    return SymbolicRange(tf.range(start, stop, step, dtype=tf.int64), bound, roles)


UNHANDLED = object()


def _shape_functions() -> dict:
    """Library functions that answer a tensor's shape with its static dimensions, where
    eagerly every dimension is a number: `keras.ops.shape` (a tensor for an unknown one,
    in a graph), `keras.backend.int_shape` (None)."""
    functions = {}
    try:
        import keras
        functions[id(keras.ops.shape)] = tuple  # (by id: no user __eq__/__hash__)
        int_shape = getattr(tf.keras.backend, "int_shape", None)
        if int_shape is not None:
            functions[id(int_shape)] = tuple
    except (ImportError, AttributeError):  # pragma: no cover - Keras ships with TF
        pass
    return functions


_SHAPES: dict | None = None


def shape_call(fn, args: tuple, kwargs: dict):
    """`keras.ops.shape(t)`, `t.get_shape()` on a graph tensor with dimensions janus left
    general: the shape as eager Python sees it (an unknown dimension a fed int, as
    `t.shape[i]` reads: PartialShape); UNHANDLED for any other call."""
    global _SHAPES
    if _SHAPES is None:
        _SHAPES = _shape_functions()
    if user_attributes.get(fn, "__name__") == "get_shape" and not args and not kwargs and \
            isinstance(user_attributes.get(fn, "__self__"), tf.Tensor):
        tensor, make = fn.__self__, None
    else:
        make = _SHAPES.get(id(fn))
        if make is None or len(args) != 1 or kwargs or not isinstance(args[0], tf.Tensor):
            return UNHANDLED
        tensor = args[0]
    shape = tensor.shape
    if shape.rank is None or shape.is_fully_defined() or tf.executing_eagerly():
        return UNHANDLED
    partial = PartialShape(shape, tensor)
    return partial if make is None else make(partial[i] for i in range(shape.rank))
