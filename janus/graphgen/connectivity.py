"""Whether a gradient reaches a source whichever way the graph's branches and loops go.

A tape in Python records what ran. After

    y = a * 2.0 if tf.reduce_sum(t) > 0 else b * 3.0     # t > 0 this call
    for x in xs:                                         # xs empty this call
        h = h * w + x

`tape.gradient(y, b)` and `tape.gradient(h, w)` are None: no op that ran read `b` or `w`.
A graph runs the same code as one If op and one While op, and TF's gradient of those
gives `b` and `w` zeros whatever ran (F138). A Keras optimizer skips a None gradient and
applies a zero one (its moments move): the difference is not cosmetic.

`reach(targets)` walks the graph back from the targets and tells, per tensor, how the
gradient's paths to it go:

    UNCONDITIONAL     some path runs whatever happens (no If, or an If whose branches
                      all read it; a While's own loop variable, passed through)
    Iterations(...)   every path enters a loop body: reached once those loops ran at
                      least so many times (a While's first output counts them), or
                      goes through ops a loop ran speculatively (`speculative`: once
                      the loop went on past its first exit test)
    CONDITIONAL       every path goes through a branch that does not read it, or through
                      a loop nested where its count cannot be asked
    None              not reached (TF's gradient is None too)

graphgen/traced_gradients.py uses it where a traced tape differentiates (refuse, or
check the loops ran);
`unconditional`, `input_reaches` and `lacking_gradient` where a graph is called under a
tape recording outside it (graphgen/caller_tape.py).

A branch, loop body or called function is read from the FuncGraph TF made while tracing
(cond_v2 wraps an If in a call where a tape records) or, in a graph imported from a
GraphDef (loaded from the cache), from its function library, converted once. A call whose
function is nowhere (janus's InvokeOp) is read as reading all its inputs.
"""
from __future__ import annotations

import dataclasses
import weakref

import tensorflow as tf
from tensorflow.python.framework import ops as tf_ops
from tensorflow.python.framework import function_def_to_graph


BRANCHES = {"If", "StatelessIf"}
CASES = {"Case", "StatelessCase"}
LOOPS = {"While", "StatelessWhile"}
CALLS = {"PartitionedCall", "StatefulPartitionedCall"}
_NO_GRADIENT = {"StopGradient", "PreventGradient", "ZerosLike", "OnesLike", "Shape",
                "ShapeN", "Size", "Rank", "Assert", "CheckNumerics", "CheckNumericsV2"}


@dataclasses.dataclass(frozen=True)
class Iterations:
    """Reached once each of `counts` ((loop op, at least), ...) held."""
    counts: tuple


UNCONDITIONAL = Iterations(())
CONDITIONAL = "conditional"


def better(new, old) -> bool:
    """Whether reach `new` is better known than `old` (unconditional > after iterations >
    conditional > not reached)."""
    if old is None:
        return new is not None
    if old == UNCONDITIONAL:
        return False
    if old is CONDITIONAL:
        return new is not CONDITIONAL and new is not None
    return new == UNCONDITIONAL


def _join(path, edge):
    """The reach of a path extended by an edge."""
    if path is CONDITIONAL or edge is CONDITIONAL:
        return CONDITIONAL
    return Iterations(path.counts + edge.counts) if edge.counts else path


def reach(targets: list, nested: bool = False) -> dict:
    """{id(tensor): reach} for every tensor the targets' gradient may flow into (in the
    targets' graph). `nested`: inside a branch or loop body (a loop there cannot have its
    count checked from outside: its paths are conditional)."""
    found: dict = {}
    work = []
    for t in targets:
        if _carries_gradient(t) and better(UNCONDITIONAL, found.get(id(t))):
            found[id(t)] = UNCONDITIONAL
            work.append(t)
    while work:
        t = work.pop()
        path = found[id(t)]
        op = t.op
        if op.type in _NO_GRADIENT or not op.inputs:
            continue
        for x, edge in _edges(op, t.value_index, nested):
            if not _carries_gradient(x):
                continue
            r = _join(_join(path, edge), _speculated(x.op))
            if better(r, found.get(id(x))):
                found[id(x)] = r
                work.append(x)
    return found


_SPECULATIVE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def last_op_id(graph) -> int:
    """The id of the last op `graph` made (-1: none yet)."""
    return max(graph._nodes_by_id.keys(), default=-1)  # pylint: disable=protected-access


def speculative(graph, after: int, last: int, went_on) -> None:
    """The ops of `graph` with ids in (`after`, `last`] ran speculatively: Python runs them
    only where `went_on` (an int32 0/1 tensor) is 1 (the rest of a loop's peeled first
    iteration after its exit test, graphgen/exits.py): a gradient reaching a source only
    through them is Python's once `went_on >= 1`, None otherwise (F181)."""
    _SPECULATIVE.setdefault(graph, []).append((after, last, went_on.op))


def _speculated(op):
    """The reach an edge into an output of `op` adds: UNCONDITIONAL, or Iterations of the
    `went_on` of the speculative stretch `op` belongs to."""
    for after, last, went_on in _SPECULATIVE.get(op.graph, ()):
        if after < op._id <= last:  # pylint: disable=protected-access
            return Iterations(((went_on, 1),))
    return UNCONDITIONAL


def differentiable(dtype) -> bool:
    """Whether a tensor of `dtype` can carry a gradient (floats, complex, resource and
    variant handles)."""
    return dtype.is_floating or dtype.is_complex or dtype in (tf.resource, tf.variant)


def _carries_gradient(t) -> bool:
    return differentiable(t.dtype.base_dtype)


def _edges(op, output: int, nested: bool):
    """[(input tensor, reach of the edge)] from `op`'s output `output` back to its inputs."""
    if op.type in BRANCHES:
        graphs = [_function_graph(op, "_true_graph", "then_branch"),
                  _function_graph(op, "_false_graph", "else_branch")]
        return _branch_edges(op, output, graphs, list(op.inputs)[1:])
    if op.type in CASES:
        graphs = getattr(op, "_branch_graphs", None) or \
            [_library_graph(op.graph, f.name) for f in _attr(op, "branches") or [None]]
        return _branch_edges(op, output, graphs, list(op.inputs)[1:])
    if op.type in LOOPS:
        return _loop_edges(op, output, nested)
    if op.type in CALLS:  # (cond_v2 wraps an If in one where a tape records)
        called = _function_graph(op, None, "f")
        if called is not None:
            return _branch_edges(op, output, [called], list(op.inputs))
    return [(x, UNCONDITIONAL) for x in op.inputs]


def _attr(op, name: str):
    try:
        return op.get_attr(name)
    except (ValueError, AttributeError):
        return None


def _function_graph(op, traced: str | None, attr: str):
    """The FuncGraph of `op`'s function attribute `attr`: the one TF kept on the op while
    tracing (`traced`: `_true_graph`, `_body_graph`...), else from the libraries of the
    graphs around it. None where it is nowhere."""
    graph = getattr(op, traced, None) if traced else None
    if graph is not None:
        return graph
    function = _attr(op, attr)
    name = getattr(function, "name", None)
    return None if not name else _library_graph(op.graph, name)


_LIBRARY_GRAPHS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_AROUND: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""A FuncGraph converted from a library's FunctionDef -> the graph whose library held it
(its own nested functions are found there)."""


def _library_graph(graph, name: str):
    """The FuncGraph of function `name` of the library of `graph` or a graph around it:
    the one TF made while tracing, else its FunctionDef converted (once per graph)."""
    while graph is not None:
        known = _LIBRARY_GRAPHS.setdefault(graph, {})
        if name in known:
            return known[name]
        if graph._is_function(name):  # pylint: disable=protected-access
            function = graph._get_function(name)  # pylint: disable=protected-access
            made = getattr(function, "graph", None)
            if made is None:
                definition = getattr(function, "cached_definition", None) or \
                    getattr(function, "definition", None)
                made = _converted(definition, graph) if definition is not None else None
            known[name] = made
            return made
        graph = _AROUND.get(graph) or getattr(graph, "outer_graph", None)
    return None


def _converted(definition, around):
    try:
        made = function_def_to_graph.function_def_to_graph(definition)
    except Exception:  # noqa: BLE001 - not readable here: the op counts as one-sided
        return None
    _AROUND[made] = around
    return made


def _branch_edges(op, output: int, graphs: list, inputs: list):
    if any(g is None for g in graphs):  # (branches not at hand: read as one-sided)
        return [(x, CONDITIONAL) for x in inputs]
    reads = [_reads(g, output) for g in graphs]
    edges = []
    for k, x in enumerate(inputs):
        got = [r[k] if k < len(r) else None for r in reads]
        if all(r is None for r in got):
            continue
        edges.append((x, UNCONDITIONAL if all(r == UNCONDITIONAL for r in got)
                      else CONDITIONAL))
    return edges


_READS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _reads(graph, output: int) -> list:
    """[reach of each input of `graph` (a branch, a loop body, a called function) from
    its output `output`], found once per graph and output (the graphs do not change)."""
    known = _READS.setdefault(graph, {})
    if output not in known:
        inner = reach([graph.outputs[output]], nested=True)
        known[output] = [inner.get(id(p)) for p in graph.inputs]
    return known[output]


def _loop_edges(op, output: int, nested: bool):
    """A While's output j after n iterations reads input k if the body's per-iteration
    reads lead from k to j in exactly n steps; zero steps: j itself."""
    body = _function_graph(op, "_body_graph", "body")
    inputs = list(op.inputs)
    if body is None:
        return [(x, CONDITIONAL) for x in inputs]
    reads = {}  # body output j -> {input k: reach within one iteration}
    distance = {output: 0}
    frontier = [output]
    edges = [(inputs[output], UNCONDITIONAL)]
    conditional = set()
    while frontier:  # shortest number of iterations from each input to `output`
        nxt = []
        for j in frontier:
            if j not in reads:
                reads[j] = dict(enumerate(_reads(body, j)))
            for k, r in reads[j].items():
                if r is None:
                    continue
                if r != UNCONDITIONAL:
                    conditional.add(k)
                elif k not in distance:
                    distance[k] = distance[j] + 1
                    nxt.append(k)
        frontier = nxt
    for k, d in distance.items():
        if d == 0:
            continue
        # n > d iterations reach k too if a step can repeat: the output or k reads
        # itself each iteration (a loop variable carried on, or passed through)
        padded = reads[output].get(output) == UNCONDITIONAL or \
            reads.get(k, {}).get(k) == UNCONDITIONAL
        if nested or not padded:
            edges.append((inputs[k], CONDITIONAL))
        else:
            edges.append((inputs[k], Iterations(((op, d),))))
    edges += [(inputs[k], CONDITIONAL) for k in conditional if k not in distance]
    return edges


def unconditional(graph, visible: int | None) -> bool:
    """Whether every input of `graph` that the gradient of its first `visible` outputs
    reaches (the others only make ops run: graphgen/dead_ends.py) is reached whatever its
    branches and loops do. `visible` unknown (a graph from elsewhere): False if it has a
    branch or loop."""
    control = BRANCHES | CASES | LOOPS | CALLS  # (a call may hold a branch)
    if not any(op.type in control for op in graph.get_operations()):
        return True
    if visible is None:
        return False
    found = reach(list(graph.outputs)[:visible])
    if not all(found.get(id(p)) in (None, UNCONDITIONAL) for p in graph.inputs):
        return False
    # A tape that may differentiate its own gradient (persistent, or nested) has TF
    # export the outputs of the graph's If/While ops as the call's side outputs and
    # differentiate them too: an input only they reach gets zeros, Python None
    # (`V1.assign_add(...)` in a branch, read only for the update).
    exported = reach([t for op in graph.get_operations() if op.type in control
                      for t in op.outputs])
    return all(found.get(id(p)) is not None or exported.get(id(p)) is None
               for p in graph.inputs)


def every_item_reached(graph, stacked: list, visible: int) -> bool:
    """Whether each item of the inputs at indices `stacked` (a list of tensors the feed
    stacks on the host: a tape sees `tf.stack(xs)` go in) is reached by the first
    `visible` outputs wherever the input is: TF's gradient of the stacked input has
    zeros for an item the graph never reads, Python's tape None (fuzz seed 1820194,
    `xs[-1]` only). Items are told apart where the graph unpacks the input or slices one
    item at a constant index; any other reader (a loop, a gather) counts as not known."""
    found = reach(list(graph.outputs)[:visible])
    for index in stacked:
        placeholder = graph.inputs[index]
        if not differentiable(placeholder.dtype) or found.get(id(placeholder)) is None:
            continue  # (not reached: None for every item, as in Python)
        count = placeholder.shape[0] if placeholder.shape.rank else None
        if count is None:
            return False
        items = set()
        for reader in _readers(placeholder):
            read = _items_read(reader, found, count)
            if read is None:
                return False
            items |= read
        if items != set(range(count)):
            return False
    return True


def input_reaches(graph, count: int) -> list:
    """Per output of the first `count` of `graph`: the frozenset of the indices of the
    graph's inputs its gradient reaches, or None for an output that carries none."""
    reaches = []
    for output in list(graph.outputs)[:count]:
        if not _carries_gradient(output):
            reaches.append(None)
            continue
        found = reach([output])
        reaches.append(frozenset(k for k, p in enumerate(graph.inputs)
                                 if found.get(id(p)) is not None))
    return reaches


def coarse_reaches(graph, count: int) -> frozenset:
    """The indices of `graph`'s inputs TF's gradient of the graph as one op may connect to
    its first `count` outputs: every input of an op on a path (a branch or loop connects
    all of its inputs, where `reach` follows what each output reads)."""
    seen, work = set(), [t for t in list(graph.outputs)[:count] if _carries_gradient(t)]
    while work:
        t = work.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if t.op.type in _NO_GRADIENT:
            continue
        work += [x for x in t.op.inputs if _carries_gradient(x)]
    return frozenset(k for k, p in enumerate(graph.inputs) if id(p) in seen)


def lacking_gradient(graph) -> str | None:
    """The type of an op on a path from an input of `graph` to an output that has no
    gradient (TF differentiates every such path of a called graph under a tape), or
    None. Branches, loop bodies and called functions are searched as well."""
    return _lacking(graph, set())


def _lacking(graph, seen: set) -> str | None:
    if id(graph) in seen:
        return None
    seen.add(id(graph))
    backward = reach(list(graph.outputs))
    forward = _from_inputs(graph)
    for op in graph.get_operations():
        if op.type in _NO_GRADIENT or not op.inputs:
            continue
        if not any(id(t) in backward for t in op.outputs) or \
                not any(id(x) in forward for x in op.inputs):
            continue
        if op.type in BRANCHES | CASES | LOOPS | CALLS:
            for inner in function_graphs(op):
                found = _lacking(inner, seen) if inner is not None else None
                if found is not None:
                    return found
            continue
        try:
            tf_ops.get_gradient_function(op)
        except LookupError:
            return op.type
    return None


def _from_inputs(graph) -> set:
    """ids of the tensors a differentiable input of `graph` flows into."""
    found = set()
    work = [p for p in graph.inputs if differentiable(p.dtype.base_dtype)]
    found.update(id(p) for p in work)
    while work:
        t = work.pop()
        for op in t.consumers():
            for out in op.outputs:
                if id(out) not in found and differentiable(out.dtype.base_dtype):
                    found.add(id(out))
                    work.append(out)
    return found


def function_graphs(op) -> list:
    """The FuncGraphs an If, Case, While or call op runs (None where not at hand)."""
    if op.type in BRANCHES:
        return [_function_graph(op, "_true_graph", "then_branch"),
                _function_graph(op, "_false_graph", "else_branch")]
    if op.type in LOOPS:
        return [_function_graph(op, "_body_graph", "body")]
    if op.type in CASES:
        graphs = getattr(op, "_branch_graphs", None)
        if graphs:
            return list(graphs)
        names = _attr(op, "branches") or []
        return [_library_graph(op.graph, f.name) for f in names]
    return [_function_graph(op, None, "f")]


def _readers(tensor) -> list:
    """The ops reading `tensor`, through Identity ops."""
    readers = []
    for op in tensor.consumers():
        readers += _readers(op.outputs[0]) if op.type == "Identity" else [op]
    return readers


def _items_read(op, found: dict, count: int) -> set | None:
    """The items (of `count`) `op` hands on toward the outputs, or None: not known."""
    if all(found.get(id(t)) is None for t in op.outputs):
        return set()
    if op.type == "Unpack":
        return {k for k, t in enumerate(op.outputs) if found.get(id(t)) is not None}
    if op.type == "StridedSlice" and op.get_attr("shrink_axis_mask") & 1:
        begin = tf.get_static_value(op.inputs[1])
        if begin is not None and len(begin) and -count <= int(begin[0]) < count:
            return {int(begin[0]) % count}
    return None
