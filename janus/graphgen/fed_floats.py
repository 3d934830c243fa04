"""Floats a graph reads whose values it cannot know when traced (fed, or read from a
tensor with `.numpy()`): each required normal or zero where the graph is built, so
arithmetic on it sees what Python and numpy see (TF reads a subnormal as zero; see
graphgen/exact_numbers.py). The graph being built remembers what it checked: a slice of
a checked value (`same_items`) is not checked again (`checked_normal`).
"""
from __future__ import annotations

import weakref

import tensorflow as tf

from janus.graphgen import active, exact_numbers


def fed_float(tensor: tf.Tensor) -> tf.Tensor:
    """A float fed to the graph or read from a tensor (its value unknown at trace time):
    required normal or zero, so arithmetic on it sees what Python sees (a scalar: in the
    fast check's range, one check with the arithmetic's, unless the plan is precise)."""
    if tensor.dtype in (tf.float32, tf.float64) and not checked_normal(tensor):
        tracer = active.get()
        ranged = tracer is not None and not tracer.plan.precise_floats and \
            tensor.shape.rank == 0
        exact_numbers.require_each(exact_numbers.in_range if ranged else
                                   exact_numbers.normal_or_zero, tensor)
        if tracer is not None:
            _checked_here().add(_key(tensor))
    return tensor


# graph being built -> the tensors (graph id, name) a check of it requires normal or zero
# (a check runs with the graph it is in: one in a branch says nothing outside it)
_CHECKED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _key(tensor: tf.Tensor) -> tuple:
    return id(tensor.graph), tensor.name


def _checked_here() -> set:
    graph = tf.compat.v1.get_default_graph()
    keys = _CHECKED.get(graph)
    if keys is None:
        keys = _CHECKED[graph] = set()
    return keys


def checked_normal(tensor) -> bool:
    """Whether the graph being built already requires every item of `tensor` normal or
    zero (`fed_float` of it, or `same_items` of one that was)."""
    return tf.is_tensor(tensor) and hasattr(tensor, "graph") and \
        _key(tensor) in _CHECKED.get(tf.compat.v1.get_default_graph(), ())


def same_items(derived: tf.Tensor, source: tf.Tensor) -> tf.Tensor:
    """`derived` holds only items of `source` (a slice, a reshape): checked normal where
    `source` is."""
    if checked_normal(source):
        _checked_here().add(_key(derived))
    return derived
