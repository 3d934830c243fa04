"""Floats a graph reads whose values it cannot know when traced (fed, or read from a
tensor with `.numpy()`): each required normal or zero where the graph is built, so
arithmetic on it sees what Python and numpy see (TF reads a subnormal as zero; see
graphgen/exact_numbers.py). The graph being built remembers what it checked: a slice of
a checked value (`same_items`) is not checked again (`checked_normal`).
"""
from __future__ import annotations

import weakref

import tensorflow as tf

from janus.graphgen import active, checks


def fed_float(tensor: tf.Tensor) -> tf.Tensor:
    """A float fed to the graph or read from a tensor (its value unknown at trace time):
    required normal or zero, so arithmetic on it sees what Python sees (a scalar: in the
    fast check's range, one check with the arithmetic's, unless the plan is precise)."""
    if tensor.dtype in (tf.float32, tf.float64) and not checked_normal(tensor):
        tracer = active.get()
        if tracer is not None and not tracer.plan.precise_floats and tensor.shape.rank == 0:
            graph = checks.require_in_range(tensor)  # (where it was made, maybe)
        else:
            checks.require_each(checks.normal_or_zero, tensor)
            graph = tf.compat.v1.get_default_graph()
        if tracer is not None:
            _checked_in(graph).add(_key(tensor))
    return tensor


# graph being built -> the tensors (graph id, name) a check of it requires normal or zero
# (a check runs with the graph it is in: one in a branch says nothing outside it, one
# outside it holds inside)
_CHECKED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _key(tensor: tf.Tensor) -> tuple:
    return id(tensor.graph), tensor.name


def _checked_in(graph) -> set:
    keys = _CHECKED.get(graph)
    if keys is None:
        keys = _CHECKED[graph] = set()
    return keys


def checked_normal(tensor) -> bool:
    """Whether the graph being built, or one it is nested in (a branch's loop body, the
    function's graph: their checks run whenever it runs), already requires every item of
    `tensor` normal or zero (`fed_float` of it, or `same_items` of one that was)."""
    if not (tf.is_tensor(tensor) and hasattr(tensor, "graph")):
        return False
    key = _key(tensor)
    return any(key in _CHECKED.get(graph, ()) for graph in checks.enclosing_graphs())


def same_items(derived: tf.Tensor, source: tf.Tensor) -> tf.Tensor:
    """`derived` holds only items of `source` (a slice, a reshape): checked normal where
    `source` is."""
    if checked_normal(source):
        _checked_in(tf.compat.v1.get_default_graph()).add(_key(derived))
    return derived
