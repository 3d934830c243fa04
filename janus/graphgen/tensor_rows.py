"""A traced tensor of static first dimension iterates and has a length, as eager does.

Plain Python iterates an eager tensor by its rows (`t[0]`, `t[1]`, ...) and `len(t)` is
its first dimension; a graph tensor refuses both (OperatorNotAllowedInGraphError,
TypeError), so every line doing it failed the trace and ran eagerly or split (F365):

    a, b = t                  ->  a, b = <the rows of t>   (ValueError as plain, 3 rows)
    list(t), [*t], tuple(t)   ->  the list of its rows
    zip(ws, t), enumerate(t)  ->  over its rows
    f(*t), [g(r) for r in t]  ->  likewise
    len(t)                    ->  t.shape[0], an int

Only where the trace's shape fixes the first dimension: the graph's input signature
fixes what shape inference derives from it (a static dimension in the trace is the
dimension of every call the graph runs), so no guard is added. Where the rank or the
first dimension is unknown (a generalized specialization) TensorFlow's refusal stands
(the line runs in Python, as before); a scalar raises plain's TypeError (its rank is
static too). The rows are `tf.unstack(t)`: one op, the values of plain's `t[i]`.

Only in graphs whose code plain Python runs eagerly: the trace's graph and the branches
and loop bodies nested in it (janus's own and `tf.cond`/`tf.while_loop`'s), not a
`tf.function` called from the step (a graph in plain Python too: it refuses there) nor
the function `tf.vectorized_map` traces in place (a `tf.function` when eager).
"""
from __future__ import annotations

import sys

import tensorflow as tf
from tensorflow.python.framework import ops
from tensorflow.python.ops.control_flow_v2_func_graphs import ControlFlowFuncGraph

from janus.graphgen import active
from janus.operation_hooks import operation_hook
from janus.patches import once

_TRACED_AS_FUNCTION = ("tensorflow.python.ops.parallel_for.",)
"""TensorFlow modules that trace a function in place in a graph, and as a `tf.function`
when eager."""


def eager_in_plain(tracer) -> bool:
    """Whether plain Python runs eagerly what the current graph of `tracer`'s trace runs
    (see the module docstring)."""
    graph = tf.compat.v1.get_default_graph()
    while graph is not tracer.graph:
        if not isinstance(graph, ControlFlowFuncGraph):
            return False
        graph = graph.outer_graph
    frame = sys._getframe(2)
    while frame is not None:
        if (frame.f_globals.get("__name__", "") or "").startswith(_TRACED_AS_FUNCTION):
            return False
        frame = frame.f_back
    return True


def rows(tensor) -> list | None:
    """The rows plain Python's iteration of `tensor` yields, traced, or None where the
    trace does not know how many (unknown rank or first dimension). TypeError for a
    scalar, as plain's."""
    shape = tensor.shape
    if shape.rank is None:
        return None
    if shape.rank == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")
    if shape[0] is None:
        return None
    return tf.unstack(tensor, num=shape[0])


@once
def install() -> None:
    """Hook `__iter__` and `__len__` of graph tensors (once per process): during a janus
    trace, in a graph plain Python runs eagerly, they answer as an eager tensor's do."""
    cls = ops.SymbolicTensor
    original_iter, original_len = cls.__iter__, cls.__len__

    # (both listed in fallback/safety.py's operation hooks: an error raised in them, TF's
    # refusal included, is the user's operation failing, as before, not janus's)
    @operation_hook
    def rows_iterate(self):  # __iter__
        tracer = active.get()
        if tracer is not None and tracer.graph is not None and eager_in_plain(tracer):
            items = rows(self)
            if items is not None:
                return iter(items)
        return original_iter(self)

    @operation_hook
    def rows_length(self):  # __len__
        tracer = active.get()
        if tracer is not None and tracer.graph is not None and eager_in_plain(tracer):
            if self.shape.rank == 0:
                raise TypeError("Scalar tensor has no `len()`")
            if self.shape.rank is not None and self.shape[0] is not None:
                return self.shape[0]
        return original_len(self)

    cls.__iter__ = rows_iterate
    cls.__len__ = rows_length
