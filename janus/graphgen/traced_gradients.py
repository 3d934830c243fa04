"""`tape.gradient` in a trace: the gradients Python's tape would give, or a refusal.

A tape in Python records the ops that ran, one by one; a graph's tape differentiates
the If and While ops janus builds as wholes. Where the two differ:

    a source read only in a branch or loop     Python None, the graph zeros: refused,
    that may not run this call                 or the loop's count checked in-graph
                                               (graphgen/connectivity.py `reach`)
    rows gathered inside a loop                Python IndexedSlices (a row per lookup),
    (an embedding lookup per time step)        the loop's gradient one dense tensor:
                                               refused (`gathered_in_loops`)

For the second: optimizers treat the two otherwise (Adam and RMSprop square each row
before rows of a repeated id are summed), so the weights after the step would differ.
The plan retreats to an unrolled loop, whose gradient is eager's.
"""
from __future__ import annotations

import inspect

import tensorflow as tf

from janus import user_attributes
from janus.errors import ConversionError
from janus.graphgen import active, checks
from janus.graphgen.connectivity import (BRANCHES, CALLS, CASES, CONDITIONAL, LOOPS,
                                         UNCONDITIONAL, better, function_graphs, reach)

GRADIENTS = frozenset({"gradient", "jacobian", "batch_jacobian"})

SPENT = [0]
"""Gradients of non-persistent tapes taken in traces so far (each tape gives one: a
branch traced again must not take it again, graphgen/general.py; any thread's count
changing is all it tells)."""


def is_gradient(fn) -> bool:
    """Whether `fn` is a GradientTape's gradient or jacobian method."""
    return isinstance(user_attributes.get(fn, "__self__"), tf.GradientTape) and \
        user_attributes.get(fn, "__name__", "") in GRADIENTS


def gradient(fn, args: tuple, kwargs: dict):
    """`tape.gradient(...)` (or a jacobian) traced: the result where every source it
    gives a gradient is reached whatever the graph's branches and loops do; a loop that
    must have run checked in-graph (the call reruns plainly if it did not); a ConversionError
    where a source is reached only through a branch that may not read it."""
    result = fn(*args, **kwargs)
    if not getattr(user_attributes.get(fn, "__self__"), "_persistent", True):
        SPENT[0] += 1
    bound = inspect.signature(fn).bind(*args, **kwargs)
    sources = bound.arguments.get("sources", bound.arguments.get("source"))
    target = bound.arguments.get("target")
    flat_sources = tf.nest.flatten(sources, expand_composites=False)
    flat_results = tf.nest.flatten(result, expand_composites=False)
    if len(flat_sources) != len(flat_results):
        flat_results = [result] * len(flat_sources)  # (batch_jacobian: one source)
    graph = tf.compat.v1.get_default_graph()
    if fn.__name__ == "gradient":  # (a jacobian is dense eagerly too)
        gathered = gathered_in_loops(graph)
        for source, got in zip(flat_sources, flat_results):
            _refuse_dense(source, _tensors_of(source, graph), got, gathered)
    zero = bound.arguments.get("unconnected_gradients")
    if zero is not None and str(getattr(zero, "value", zero)) == "zero":
        return result  # (Python's tape gives zeros too)
    found = reach([t for t in tf.nest.flatten(target) if isinstance(t, tf.Tensor)])
    for source, got in zip(flat_sources, flat_results):
        if got is None:
            continue
        how = _best([found.get(id(t)) for t in _tensors_of(source, graph)])
        if how is None or how == UNCONDITIONAL:
            continue  # (not found: what janus cannot see, it leaves as TF gives it)
        if how is CONDITIONAL or any(op.graph is not graph for op, _ in how.counts):
            raise ConversionError(
                f"`{fn.__name__}` of a value that reaches {_name(source)} only through "
                "an `if` or loop the graph runs as tf.cond/tf.while_loop: where that "
                "branch does not read it, Python's tape gives None and the graph zeros")
        for op, least in how.counts:
            _require_iterations(op, least)
    return result


LOOP_MESSAGE = "janus: a loop ran fewer iterations than a gradient through it needs"


def _require_iterations(loop, least: int) -> None:
    """The graph fails (the call reruns plainly) unless `loop` ran `least` iterations
    (a While's first output counts them)."""
    ran = tf.greater_equal(loop.outputs[0], least)
    tracer = active.get()
    if tracer is not None and tf.compat.v1.get_default_graph() is tracer.graph:
        tracer.assert_ops.append(tf.debugging.Assert(ran, [LOOP_MESSAGE]))
    else:  # (a branch's or loop body's own graph: its checks, made where it ends)
        checks.require(ran)


def _tensors_of(source, graph) -> list:
    """The tensors standing for `source` in `graph`: itself, or a variable's handle and
    the placeholders capturing it."""
    handle = getattr(source, "handle", None)
    if handle is None:
        return [source]
    found = [handle]
    for external, internal in getattr(graph, "captures", ()):
        if external is handle:
            found.append(internal)
    return found


def _best(reaches: list):
    best = None
    for r in reaches:
        if better(r, best):
            best = r
    return best


def _name(source) -> str:
    name = getattr(source, "name", None)
    return f"`{name}`" if name else "a source"


_GATHERS = frozenset({"GatherV2", "ResourceGather", "Gather"})
"""Ops whose gradient with respect to their first input (the rows) is IndexedSlices."""
_THROUGH = frozenset({"Identity", "IdentityN", "ReadVariableOp"})
"""Ops a gathered tensor comes through (IdentityN: janus's read of an updated variable,
fallback/variables.py `_read_as_variable`)."""


def gathered_in_loops(graph) -> set:
    """The ids of `graph`'s tensors whose rows a loop in it gathers (directly, through
    identities and variable reads, or inside a branch or call within the loop)."""
    return _gathered(graph, False, {})


def _gathered(graph, inside: bool, memo: dict) -> set:
    key = (id(graph), inside)
    if key in memo:
        return memo[key]
    memo[key] = found = set()
    operations = graph.get_operations()
    for op in operations:
        if op.type in _GATHERS:
            if inside and op.outputs and op.outputs[0].dtype.is_floating:
                found.add(id(op.inputs[0]))
            continue
        if op.type not in LOOPS | BRANCHES | CASES | CALLS:
            continue
        offset = 1 if op.type in BRANCHES | CASES else 0  # (the test, the branch index)
        for inner in function_graphs(op):
            if inner is None:
                continue
            got = _gathered(inner, inside or op.type in LOOPS, memo)
            for k, placeholder in enumerate(inner.inputs):
                if id(placeholder) in got and k + offset < len(op.inputs):
                    found.add(id(op.inputs[k + offset]))
    for op in reversed(operations):  # (an op made later reads what was made earlier)
        if op.type in _THROUGH and op.inputs and any(id(t) in found for t in op.outputs):
            found.update(id(t) for t in op.inputs)
    return found


def _refuse_dense(source, tensors: list, got, gathered: set) -> None:
    """Refuse a dense gradient `got` of a source (standing as `tensors` in the graph)
    whose rows a loop gathers: eagerly it is IndexedSlices."""
    if got is None or not hasattr(got, "op") or not any(id(t) in gathered for t in tensors):
        return  # (None, IndexedSlices, or no loop gathers it)
    raise ConversionError(
        f"`gradient` of {_name(source)}, whose rows a loop gathers (an embedding lookup inside "
        "a loop the graph runs as tf.while_loop): Python's tape gives IndexedSlices, a "
        "row per lookup, the loop's gradient one dense tensor, and an optimizer such as "
        "Adam updates the two differently")
