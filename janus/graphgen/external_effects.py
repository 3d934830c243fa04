"""Ops whose effects leave TensorFlow (a printed line, a summary event, a written file)
run only after every guard of the graph held.

janus defers a variable write until its guards held (fallback/variables.py); a line
`tf.print` printed or an event `tf.summary.write` wrote cannot be taken back: when a guard
fails later in the graph, plain Python reruns the call and prints or writes it again
(F180). So each such op, or the cond, loop or function call that runs one, waits for all
the guards:

    tf.print("loss", loss)           PrintV2       <- control inputs: every guard's Assert
    tf.summary.write("l", loss, s)   WriteSummary  <- (the same)
    if loss > 3.0: ...               Assert        (a guard; run independently: TF's
                                                    automatic control dependencies would
                                                    order it after the print)
    float(t) janus checks exactly    CheckNumerics (a check of janus's: the same)
    tf.debugging.Assert(ok, [k])     Assert        (the program's own: the same; a failed
                                                    one reruns the call plainly too)

One whose output a guard reads (a cond that prints and returns the value a later test
reads) cannot wait for it: the trace refuses (that code runs in Python).
"""
from __future__ import annotations

import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen.checks import MESSAGES

EXTERNAL = frozenset({
    "PrintV2", "Print", "WriteFile", "Save", "SaveV2", "SaveSlices", "MergeV2Checkpoints",
    "WriteSummary", "WriteRawProtoSummary", "WriteScalarSummary", "WriteHistogramSummary",
    "WriteImageSummary", "WriteAudioSummary", "WriteGraphSummary", "ImportEvent",
    "FlushSummaryWriter", "CloseSummaryWriter"})
"""Op types whose effect is outside the graph's tensors and variables."""


def _functions(attrs) -> list[str]:
    """The names of the functions an op's attributes (a NodeDef's) name."""
    names = []
    for value in attrs.values():
        if value.HasField("func"):
            names.append(value.func.name)
        elif value.HasField("list"):
            names += [f.name for f in value.list.func]
    return names


def _runs(kinds: frozenset, graph, names: list[str], seen: dict) -> bool:
    """Whether any of the functions `names` (in `graph`'s library) runs an op of `kinds`."""
    for name in names:
        if name not in seen:
            seen[name] = False
            function = graph._get_function(name)  # pylint: disable=protected-access
            if function is None:
                continue
            seen[name] = any(node.op in kinds or _runs(kinds, graph, _functions(
                node.attr), seen) for node in function.cached_definition.node_def)
        if seen[name]:
            return True
    return False


def _ops_running(kinds: frozenset, graph) -> list:
    """The ops of `graph` of `kinds`, or running a function (a cond's branch, a loop's
    body, a call) that runs one."""
    seen: dict = {}
    found = []
    for op in graph.get_operations():
        if op.type in kinds:
            found.append(op)
        elif op._is_stateful:  # pylint: disable=protected-access
            names = _functions(op.node_def.attr)
            if names and _runs(kinds, graph, names, seen):
                found.append(op)
    return found


def external_ops(graph) -> list:
    """The ops of `graph` that have an external effect or run a function that has."""
    return _ops_running(EXTERNAL, graph)


def _ancestors(ops: list) -> set:
    """Ids of the ops `ops` depend on (inputs and control inputs), themselves included."""
    found, stack = set(), list(ops)
    while stack:
        op = stack.pop()
        if id(op) in found:
            continue
        found.add(id(op))
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return found


_ASSERT = frozenset({"Assert"})


def _program_asserts(graph) -> list:
    """The program's (and its libraries') own assertions, or the cond, loop or call that
    runs one: one that fails makes the call rerun plainly, which would print or write
    again what the graph already did (F307)."""
    return _ops_running(_ASSERT, graph)


def _janus_checks(graph) -> list:
    """The graph's exactness checks janus made (graphgen/checks.py: a CheckNumerics with
    janus's message; the user's own check_numerics are ordered as in the program)."""
    return [op for op in graph.get_operations() if op.type == "CheckNumerics" and
            op.get_attr("message").decode() in MESSAGES]


def after_guards(asserts: list) -> None:
    """Make the graph's external effects wait for every guard (`asserts`) and every
    exactness check janus made, as the module docstring says; refuse the trace where one
    depends on such an effect."""
    graph = tf.compat.v1.get_default_graph()
    effects = external_ops(graph)
    if not effects:
        return
    effect_ids = {id(op) for op in effects}  # (a cond that prints and asserts: its own)
    asserts = [op for op in dict.fromkeys(list(asserts) + _janus_checks(graph) +
                                          _program_asserts(graph))
               if op.graph is graph and id(op) not in effect_ids and
               op._control_flow_context is None]  # pylint: disable=protected-access
    # (a guard made inside a loop's body or frame cannot order an op outside it)
    if not asserts:
        return
    before = _ancestors(asserts)
    for op in effects:
        if id(op) in before:
            raise ConversionError(f"a test janus guards (or an assertion) reads the result "
                                  f"of an op that prints or writes outside TensorFlow "
                                  f"({op.type}): a "
                                  "failed guard's rerun would print or write it twice")
    manager = getattr(graph, "experimental_acd_manager", None)
    if manager is None:
        raise ConversionError("an op that prints or writes outside TensorFlow, in a graph "
                              "without automatic control dependencies")
    for guard in asserts:
        manager.run_independently(guard)
    for op in effects:
        op._add_control_inputs(asserts)  # pylint: disable=protected-access
