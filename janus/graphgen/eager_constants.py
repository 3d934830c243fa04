"""Python values a trace turns into constants, converted as eager TensorFlow converts them
(F390).

Plain Python runs TensorFlow eagerly, where the C converter decides the dtype (and the
errors) of a Python value; janus's trace runs in a graph, where `tf.constant` goes through
`make_tensor_proto` instead, which decides otherwise:

    tf.constant([lr])               lr an np.float64: eager float64; a graph's float32
    tf.constant([px, px]) * 2       px an np.uint8: eager int32 (400); a graph's uint8 (144)
    tf.reduce_sum([flag, 2])        eager ValueError (mixed types); a graph's int32
    tf.constant(2**63)              eager ValueError; a graph's uint64
    tf.stack([a, b]), x * [a, b]    (TF converts a list handed to an op with `tf.constant`)

While janus traces, TensorFlow's graph `tf.constant` of a value made only of Python and
numpy scalars (nested in lists/tuples; numpy arrays inside a list) takes the eager
converter's tensor (its dtype, its values, its exceptions: the trace then fails as the
eager call raises, and the call runs plainly) and embeds it as the graph's constant.
Only in the trace's graph and the branches and loop bodies nested in it (where plain
Python runs eagerly); a `tf.function` of a library's (or `tf.vectorized_map`'s) is a
graph in plain Python too and keeps the graph conversion. Numbers janus feeds (stand-ins,
tensors) are not Python values: graphgen/values.py `pack_scalars` converts those.
"""
from __future__ import annotations

import sys

import numpy as np
from tensorflow.python.eager import context
from tensorflow.python.framework import constant_op, ops

from janus.graphgen import active, library_modes
from janus.operation_hooks import operation_hook
from janus.patches import once

_SCALARS = frozenset({bool, int, float, complex, str, bytes})


def _host_leaf(value) -> bool:
    return type(value) in _SCALARS or isinstance(value, (np.generic, np.ndarray))


def _converted_alike(value) -> bool:
    """A Python scalar both converters take alike (a bool, a float, an int of int64's
    range...): TF's own graph conversion. (Eager's also caches scalars by value: after
    `tf.constant(0.0)`, `tf.constant(-0.0)` is 0.0; janus's exact sums need -0.0.)"""
    kind = type(value)
    return kind in _SCALARS and (kind is not int or -2 ** 63 <= value < 2 ** 63)


def host_value(value) -> bool:
    """Whether `value` is a Python or numpy scalar, or a (nested) list/tuple of only those
    and numpy arrays: what the eager converter takes as it is."""
    if type(value) in _SCALARS or isinstance(value, np.generic):
        return True
    if type(value) not in (list, tuple):
        return False
    stack = [value]
    while stack:
        for item in stack.pop():
            if type(item) in (list, tuple):
                stack.append(item)
            elif not _host_leaf(item):
                return False
    return True


def _in_eager_place() -> bool:
    """Whether the constant being made is one plain Python makes eagerly: in the trace
    running on this thread, in its graph or a branch or loop body nested in it."""
    tracer = active.get()
    if tracer is None:
        return False
    return library_modes.eager_in_plain(tracer, ops.get_default_graph(), sys._getframe(1))


@once
def install() -> None:
    """Wrap TensorFlow's `tf.constant` (once per process, on the first trace): the eager
    converter decides a host value's tensor while janus traces (see the module
    docstring); anywhere else TensorFlow's own conversion, unchanged."""
    original = getattr(constant_op, "_constant_impl", None)
    eager_impl = getattr(constant_op, "_constant_eager_impl", None)
    if not callable(original) or not callable(eager_impl):
        return  # (another TF layout: its conversion stays)

    @operation_hook  # (the eager converter's exceptions are the program's)
    def constant_impl(value, dtype, shape, name, verify_shape, allow_broadcast):
        ctx = context.context()
        if ctx.executing_eagerly() or _converted_alike(value) or \
                not host_value(value) or not _in_eager_place():
            return original(value, dtype, shape, name, verify_shape, allow_broadcast)
        if shape is None:
            tensor = constant_op.convert_to_eager_tensor(value, ctx, dtype)
        else:  # (eager's reshape or fill, and its errors)
            with ops.init_scope():
                tensor = eager_impl(ctx, value, dtype, shape, verify_shape)
        return original(tensor.numpy(), tensor.dtype, None, name, False, True)

    constant_impl.janus_wraps = original
    constant_op._constant_impl = constant_impl
