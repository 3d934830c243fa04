"""Library ops that use a resource through its handle, around janus's deferred variable
writes (fallback/variables.py: a write is a local copy until every guard held).

    v.assign_sub(0.1 * v)                   deferred: a local copy of v
    opt_v1.apply_gradients(...)             ResourceApplyGradientDescent(v.handle, ...):
                                            reads the old v, writes it at once (before
                                            the guards), and the copy overwrites it after
    tf.compat.v1.scatter_update(v, i, u)    ResourceScatterUpdate(v.handle, ...): alike
    gen.reset_from_seed(1); gen.normal(...) the draw reads the state the reset deferred

A library call whose ops use the handle of a variable janus holds a deferred write of,
or write a resource other than a variable handed to the call, refuses the trace (it runs
in Python). A variable handed to the call and written through its handle (no deferred
write of it before) is written at once, as a `tf.random.Generator`'s draws move its
state: janus saves it before the graph runs and puts it back if the graph fails
(`Specialization.saved_states`: a failed guard's plain rerun must not apply it twice).
Reads (ReadVariableOp, gathers, a table's lookups) are what janus's own reads make; the
ops of a cond, loop or function call janus's trace builds are judged where they are
built; a function call, cond or loop a library call made (a user's `tf.function`, a
Keras optimizer's `tf.cond`) by what its functions write through the handles it is given
(F187: a user's `tf.function` assigning a variable ran at once, and again in the failed
guard's plain rerun).
"""
from __future__ import annotations

import weakref

import tensorflow as tf

from janus import user_attributes
from janus.errors import ConversionError

_READS = frozenset({"ReadVariableOp", "ResourceGather", "ResourceGatherNd", "VariableShape",
                    "VarIsInitializedOp", "LookupTableFindV2", "LookupTableSizeV2",
                    "LookupTableExportV2"})
_NESTED = frozenset({"If", "StatelessIf", "While", "StatelessWhile", "Case", "StatelessCase",
                     "PartitionedCall", "StatefulPartitionedCall"})


def mark() -> int:
    """How many ops the graph being built has (the start of a library call's ops)."""
    return tf.compat.v1.get_default_graph().num_operations()


def _outermost(tensor):
    """The eager tensor a (nested) graph's captured placeholder stands for, or None."""
    graph = tensor.graph
    while True:
        captured = {id(internal): external for external, internal in
                    getattr(graph, "captures", ())}
        external = captured.get(id(tensor))
        if external is None:
            return None
        if not hasattr(external, "graph") or external.graph is not getattr(
                graph, "outer_graph", None):
            return external  # (an eager handle)
        tensor, graph = external, external.graph


_WRITES = ("Assign", "ResourceScatter", "ResourceApply", "ResourceSparseApply",
           "ResourceStridedSliceAssign", "Stateful", "Rng", "LookupTableInsert",
           "LookupTableRemove", "LookupTableImport", "InitializeTable")
"""Op types (prefixes) that write the resource they are given."""


def _made_since(graph, since: int) -> list:
    """The ops `graph` made after its first `since`. A graph numbers its ops one after the
    other from its first op's id; read by id, not a copy of every op per library call."""
    by_id = graph._nodes_by_id  # pylint: disable=protected-access
    first = min(by_id) if since == 0 else None
    if first is None:
        first = _FIRST_IDS.get(graph)
        if first is None:
            first = _FIRST_IDS[graph] = min(by_id)
    ops = [by_id[i] for i in range(first + since, first + graph.num_operations())
           if i in by_id]
    if len(ops) != graph.num_operations() - since:  # (not numbered so: read them all)
        ops = graph.get_operations()[since:]
    return ops


_FIRST_IDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _variables_in(values) -> dict:
    """{id(handle): variable} of the tf.Variables among `values` (nests of them)."""
    found = {}
    for value in tf.nest.flatten(list(values)):
        if isinstance(value, tf.Variable):
            try:
                found[id(value.handle)] = value
            except (AttributeError, ValueError):  # (a distributed variable: no one handle)
                pass
    return found


_CALLED = {"PartitionedCall": (("f", 0),), "StatefulPartitionedCall": (("f", 0),),
           "If": (("then_branch", 1), ("else_branch", 1)), "While": (("body", 0),)}
"""Ops that run functions of the library: which, and where their arguments start."""


def _writes_args(graph, name: str, seen: dict) -> set[int]:
    """Indices of the arguments function `name` (in `graph`'s library) writes through
    (a write op's resource input, an Identity of one, or handed to a call that does)."""
    if name in seen:
        return seen[name]
    seen[name] = set()
    function = graph._get_function(name)  # pylint: disable=protected-access
    if function is None:
        return set()
    definition = function.cached_definition
    args = {a.name: i for i, a in enumerate(definition.signature.input_arg)}
    alias = dict(args)
    for node in definition.node_def:  # (an Identity of an argument is the argument)
        if node.op == "Identity" and node.input and node.input[0].split(":")[0] in alias:
            alias[node.name] = alias[node.input[0].split(":")[0]]
    written = set()
    for node in definition.node_def:
        inputs = [alias.get(i.split(":")[0]) for i in node.input if not i.startswith("^")]
        if node.op.startswith(_WRITES):
            written |= {i for i in inputs[:1] if i is not None}
        for attr, offset in _CALLED.get(node.op, ()):
            inner = _writes_args(graph, node.attr[attr].func.name, seen)
            written |= {inputs[offset + k] for k in inner
                        if offset + k < len(inputs) and inputs[offset + k] is not None}
    seen[name] = written
    return written


def _writes_through(op, seen: dict) -> set[int]:
    """Indices of `op`'s inputs the functions it runs write through (a user's
    `tf.function` assigning a variable it was handed or captured)."""
    written = set()
    for attr, offset in _CALLED.get(op.type, ()):
        try:
            name = op.get_attr(attr).name
        except ValueError:
            continue
        written |= {offset + k for k in _writes_args(op.graph, name, seen)}
    return written


def check(tracer, since: int, fn, args: tuple, kwargs: dict) -> None:
    """Refuse the ops a library call (`fn`) made since `since` that use a resource's
    handle otherwise than janus can defer; note the variables its ops write at once, to
    save and restore around a graph that fails (the module docstring)."""
    graph = tf.compat.v1.get_default_graph()
    if graph.num_operations() == since:
        return
    pending = {id(var.handle) for var, _ in tracer.shadow.values.values()}
    states = {id(state.handle) for state in tracer.random_states.values()}
    handed, seen = None, {}
    for op in _made_since(graph, since):
        if op.type in _READS:
            continue
        through = _writes_through(op, seen) if op.type in _CALLED else set()
        if op.type in _NESTED and not through:
            continue
        writes = op.type.startswith(_WRITES) or bool(through)
        if not (writes or pending):
            continue
        for index, tensor in enumerate(op.inputs):
            if tensor.dtype != tf.resource or through and index not in through:
                continue
            handle = _outermost(tensor)
            key = id(handle) if handle is not None else None
            if writes and key not in pending and key not in states:
                if handed is None:
                    owner = user_attributes.get(fn, "__self__")
                    handed = _variables_in((owner,) + tuple(args) + tuple(kwargs.values()))
                variable = handed.get(key)
                if variable is not None:  # (saved before the graph runs, put back if it fails)
                    tracer.random_states[id(variable)] = variable
                    states.add(key)
            if key in pending or writes and key not in states:
                name = user_attributes.get(fn, "__qualname__", type(fn).__name__)
                raise ConversionError(
                    f"`{name}` writes a resource through its handle ({op.type}) or uses a "
                    "variable the function wrote before: a graph would change it before "
                    "its guards held, or read it without the earlier write (use the "
                    "variable's methods: `v.assign*`, `v.scatter_*`, a Keras optimizer)")
