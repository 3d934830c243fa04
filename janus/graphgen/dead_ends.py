"""Ops whose results nothing uses still run, and may raise, as in eager code.

Eager code runs every op; an out-of-range `tf.gather` whose result is overwritten raises
there. TensorFlow prunes such ops from a function body (the whole graph, and a
`tf.while_loop`'s body or a `tf.cond`'s branch alike), and Grappler drops control
dependencies on stateless ops, so janus keeps them in two ways:

    the whole graph:    return results            ->  return results + [gather, ...]
                        (its dead ends fetched,       (graphgen/specialize.py)
                        read by nothing)
    a body or branch:   return outputs            ->  keep = Assert(True, [gather, ...])
                        (every op that may raise)     with control_dependencies([keep]):
                                                           return identity(outputs)

(an `Assert` is stateful: it is kept, with the loop or the branch around it, and runs
after its inputs). And such an op waits for the in-graph guards made before it
(`after_guards`): when a guard fails, the guard's error is the one the call sees. Fuzz v15 found the
first (seed 462256); the second, a dead gather in a `for i in tf.range(n)` body, was
found by hand in session 9.
"""
from __future__ import annotations

import tensorflow as tf
from tensorflow.python.ops.control_flow_v2_func_graphs import (CondBranchFuncGraph,
                                                               WhileBodyFuncGraph,
                                                               WhileCondFuncGraph)

from janus.graphgen import checks, in_range
from janus.graphgen.value_kinds import is_symbolic

_CONTROL_FLOW_GRAPHS = (WhileBodyFuncGraph, WhileCondFuncGraph, CondBranchFuncGraph)

VALUE_ERRORS = frozenset({
    "GatherV2", "GatherNd", "ResourceGather", "ResourceGatherNd",
    "TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub", "TensorScatterMax",
    "TensorScatterMin", "ScatterNd", "UnsortedSegmentSum", "UnsortedSegmentMax",
    "UnsortedSegmentMin", "UnsortedSegmentProd", "SparseToDense", "FloorDiv", "FloorMod",
    "TruncateDiv", "TruncateMod", "Div", "CheckNumerics", "CheckNumericsV2", "MatrixInverse",
    "Cholesky", "MatrixSolve", "MatrixDeterminant"})
"""Ops that may raise on the values they are given (an index out of range, an integer
division by zero, a singular matrix), where a shape error would already fail the trace."""

BROADCASTING = frozenset({
    "AddV2", "Add", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Pow",
    "SquaredDifference", "Equal", "NotEqual", "Less", "LessEqual", "Greater",
    "GreaterEqual", "LogicalAnd", "LogicalOr", "Atan2", "DivNoNan", "MulNoNan", "Xdivy",
    "Xlogy", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "SelectV2"})
"""Elementwise ops that broadcast their operands: shapes the graph does not know may not
broadcast when it runs (a `[3]` input against a `[4]` one read from the heap)."""


def may_raise(op) -> bool:
    """An op that may raise on the values it is given (`VALUE_ERRORS`), a slice of a
    tensor whose shape the graph does not know (`xs[3]` of a list whose length varies:
    out of range, it raises where Python raises IndexError), or an elementwise op whose
    operands' shapes are not known to broadcast (`_may_not_broadcast`); not a gather
    in range by construction (graphgen/in_range.py)."""
    if op.type in VALUE_ERRORS:
        return not in_range.marked(op)
    return op.type == "StridedSlice" and not op.inputs[0].shape.is_fully_defined() or \
        op.type in BROADCASTING and _may_not_broadcast([t.shape for t in op.inputs])


def _may_not_broadcast(shapes: list) -> bool:
    """Whether these static shapes leave open that the run-time ones do not broadcast: an
    unknown rank, or two dims facing each other, neither known to be 1, not both known
    and equal."""
    if any(shape.rank is None for shape in shapes):
        return True
    rank = max(shape.rank for shape in shapes)
    for position in range(1, rank + 1):
        dims = [shape[-position] for shape in shapes if shape.rank >= position]
        sizes = [d for d in dims if d != 1]
        if len(sizes) > 1 and (None in sizes or len(set(sizes)) > 1):
            return True
    return False


GRADIENTS = ("gradient_tape/", "gradients/")
NOT_THE_USERS = GRADIENTS + ("loop_body",)
"""Name scopes of ops TensorFlow makes itself: a gradient's, and the original body a
`tf.vectorized_map` leaves behind once it built its vectorized copy (the body's own
`after_raising_ops` kept what it needs). Eager never runs a gradient nothing needs (the
input gradient of a first convolution)."""


def dead_ends(roots: list) -> list:
    """Outputs of the user's ops in the graph being built that no root (a result, a
    variable's new value), stateful op or control input needs, and that may raise on
    values (`VALUE_ERRORS`)."""
    ops = tf.compat.v1.get_default_graph().get_operations()
    live: set = set()
    # (a root may be eager: a component of an IndexedSlices an earlier call left in a list)
    stack = [t.op for t in roots if is_symbolic(t)] + [op for op in ops if op._is_stateful]
    while stack:
        op = stack.pop()
        if id(op) not in live:
            live.add(id(op))
            stack.extend(t.op for t in op.inputs)
            stack.extend(op.control_inputs)
    return [op.outputs[0] for op in ops
            if may_raise(op) and op.outputs and id(op) not in live and
            not op.name.startswith(NOT_THE_USERS)]


def after_raising_ops(outputs):
    """`outputs` (what a loop body, a loop test or a branch returns) made to wait for
    every op of it that may raise on values: the ops of the function being built in the
    current name scope (a vectorized loop's body is `loop_body/` of its function), but
    not a nested vectorized loop's original body nor a gradient's. All of them, not only
    the dead ends: an output the code after the loop never reads is dropped from the
    loop too, with the ops it needs (a loop variable only the body assigns, `junk =
    tf.gather(...)`). (The stateful `Assert` also keeps the loop or branch around it; its
    tensor outputs wait for it, other values, tensor arrays, are handed on as they are.)"""
    checks.flush()  # (its op is one of the raising ops below)
    flat = tf.nest.flatten(outputs)
    graph = tf.compat.v1.get_default_graph()
    scope = graph.get_name_scope()
    prefix = scope + "/" if scope else ""
    raising = [op.outputs[0] for op in graph.get_operations()
               if may_raise(op) and op.outputs and op.name.startswith(prefix) and
               not op.name[len(prefix):].startswith(NOT_THE_USERS)]
    if not raising:
        return outputs
    # (the raw op: tf.debugging.Assert wraps it in a tf.cond, an If op per iteration)
    keep = tf.raw_ops.Assert(condition=tf.constant(True), data=raising, summarize=1)
    if isinstance(graph, _CONTROL_FLOW_GRAPHS) and graph._add_control_dependencies:
        # (a tf.while_loop's body or test, a tf.cond's branch, built with automatic
        # control dependencies: TF makes each of its outputs wait for every stateful op
        # in it, `keep` too)
        return outputs
    with tf.control_dependencies([keep]):
        flat = [tf.identity(t) if isinstance(t, tf.Tensor) else t for t in flat]
    return tf.nest.pack_sequence_as(outputs, flat)


CALLS = frozenset({"If", "StatelessIf", "While", "StatelessWhile", "Case", "StatelessCase",
                   "PartitionedCall", "StatefulPartitionedCall"})
"""Ops that run a function of their own (a branch, a loop body), which may raise inside."""


def after_guards(asserts: list) -> None:
    """Make every op of the graph being built that may raise (`VALUE_ERRORS`, or runs a
    function that may: `CALLS`) wait for the in-graph guards (`asserts`, in the order the
    trace made them) made before it, and each guard for the one before: as in Python,
    code after a test runs only when the test went the way the graph assumes. Otherwise
    an op after a guard that fails may raise first (`tf.gather(table, tok)` after `if tok
    < 0:` assumed False), and janus took the call for the user's error, not for a guard
    failure it could learn from."""
    if not asserts:
        return
    graph = tf.compat.v1.get_default_graph()
    guards = {id(op) for op in asserts}
    latest = None
    for op in graph.get_operations():
        if id(op) in guards:
            if latest is not None:
                op._add_control_input(latest)
            latest = op
        elif latest is not None and (may_raise(op) or op.type in CALLS) and \
                not op.name.startswith(NOT_THE_USERS):
            op._add_control_input(latest)
