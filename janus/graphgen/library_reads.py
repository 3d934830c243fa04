"""A trace tensor's value read on the host by library code that takes its eager path
(F354): plain Python runs the library call eagerly, where the tensor is an EagerTensor
and `.numpy()` hands its value over; in janus's graph it has none. Where the value is
the graph's state rather than the call's data — a lookup table's size, a constant — the
trace reads it now, on the host, and the graph checks that it still holds when it runs:

    lookup.vocabulary_size()    `int(self.lookup_table.size().numpy()) + 1` eagerly:
                                the table's size (4) is read while tracing; the graph
                                asserts `LookupTableSizeV2(table) == 4` and the call's
                                value is the Python int 5, as plainly

A graph whose check fails (the vocabulary changed: `set_vocabulary`, `adapt`) raises
before anything is committed and the call reruns plainly. A value computed from the
call's inputs, a variable (a step counter changes on every call: the graph would fail
on every call) or a stateful op other than a table's read has no such reading: the
tensor keeps no `.numpy`, as before (the library call's eager path raises and is
refused, graphgen/library_modes.py; one testing `hasattr(t, "numpy")` takes its graph
path).
"""
from __future__ import annotations

import numpy as np
import tensorflow as tf
from tensorflow.core.framework import graph_pb2

CHANGED_MESSAGE = "janus: a value library code read on the host changed"
"""The message of the assertion a host read puts in the graph (not an in-graph guard's
tag: a failure reruns the call plainly, as any op's)."""

_TABLE_READS = frozenset({"LookupTableSizeV2", "LookupTableFindV2", "LookupTableExportV2",
                          "LookupTableSize", "LookupTableFind", "LookupTableExport"})
"""Stateful ops that only read a table: their value is the table's while nothing writes it."""

_MAX_OPS = 200
"""A read needing more ops than this is not the graph's state read plainly: not read."""


class _Unreadable(Exception):
    """The tensor's value is not the graph's state alone."""


def _ops_of(tensor, captured: dict) -> list:
    """The ops computing `tensor` (control inputs too), if it is computed from captured
    state by pure ops and table reads only."""
    seen: dict = {}
    stack = [tensor.op]
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen[op.name] = op
        if len(seen) > _MAX_OPS:
            raise _Unreadable
        if op.type == "Placeholder":
            if op.name not in captured:  # (one of the call's inputs)
                raise _Unreadable
            continue
        if op._is_stateful and op.type not in _TABLE_READS:  # (a variable, a draw...)
            raise _Unreadable
        if any(value.HasField("func") or value.list.func for value in
               op.node_def.attr.values()):  # (a function call, a branch, a loop)
            raise _Unreadable
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return list(seen.values())


def held_value(graph, tensor):
    """`tensor`'s value (as `.numpy()` gives it) computed now from `graph`'s captured state,
    or None where it is not the graph's state alone."""
    captured = {internal.op.name: external for external, internal in
                getattr(graph, "captures", ())}
    try:
        ops = _ops_of(tensor, captured)
    except _Unreadable:
        return None
    definition = graph_pb2.GraphDef()
    definition.versions.CopyFrom(graph.graph_def_versions)
    definition.node.extend(op.node_def for op in reversed(ops))
    placeholders = [op.name for op in ops if op.type == "Placeholder"]

    def importer():
        here = tf.compat.v1.get_default_graph()
        feeds = {f"{name}:0": here.capture(captured[name]) for name in placeholders}
        return tf.graph_util.import_graph_def(definition, input_map=feeds,
                                              return_elements=[tensor.name], name="")[0]

    with tf.init_scope():
        try:
            return tf.compat.v1.wrap_function(importer, [])().numpy()
        except Exception:  # noqa: BLE001 - not readable so (the library's path as before)
            return None


def check_holds(tensor, value) -> tf.Tensor:
    """An assertion, in the tensor's graph, that it still has `value` when the graph runs."""
    expected = tf.constant(value, dtype=tensor.dtype)
    same_shape = tf.reduce_all(tf.equal(tf.shape(tensor, out_type=tf.int64),
                                        tf.constant(np.shape(value), tf.int64)))
    same = tf.reduce_all(tf.equal(tf.reshape(tensor, np.shape(value)), expected))
    return tf.debugging.Assert(tf.logical_and(same_shape, same), [CHANGED_MESSAGE])
