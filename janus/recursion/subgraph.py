"""SubGraph and InvokeOp: a recursive function as one batched, level-by-level graph.

A SubGraph is the converted body of a recursive function, traced once per Case
with a `NodeProxy` standing for the node: its structural reads answer from the
case, its data reads are per-node tensors, and each recursive call on a child
is an InvokeOp, answered with that child's result. The body of each case runs
vectorized (`pfor`, as `tf.vectorized_map` does) over all nodes of that case on the
current level (across all trees of the call); a `tf.while_loop` walks the levels bottom-up,
scattering results into a buffer that InvokeOps gather from. Gradients flow
through the whole loop.
"""
from __future__ import annotations

import dataclasses

import tensorflow as tf
from tensorflow.python.ops import gen_resource_variable_ops
from tensorflow.python.ops.parallel_for import control_flow_ops as _pfor_control
from tensorflow.python.ops.parallel_for import pfor as _pfor

from janus.errors import ConversionError
from janus.graphgen.dead_ends import after_raising_ops
from janus.recursion.cases import Case


@dataclasses.dataclass(frozen=True)
class InvokeOp:
    """A recursive call site inside a case: recurse on `node.<path>`."""

    case: int
    slot: int
    path: str

    def describe(self) -> str:
        return f"InvokeOp(case {self.case}, slot {self.slot}: node.{self.path})"


@dataclasses.dataclass(frozen=True)
class SubGraph:
    function: str          # qualified name of the recursive function
    node_index: int        # which positional argument is the node
    cases: tuple           # Case, ...

    @property
    def invoke_ops(self) -> list[InvokeOp]:
        return [InvokeOp(c, k, p) for c, case in enumerate(self.cases)
                for k, p in enumerate(case.children)]

    def describe(self) -> str:
        lines = [f"SubGraph {self.function}: {len(self.cases)} case(s), "
                 f"{len(self.invoke_ops)} InvokeOp(s)"]
        for c, case in enumerate(self.cases):
            lines.append(f"  case {c}: {case.describe()}")
        lines += ["  " + op.describe() for op in self.invoke_ops]
        return "\n".join(lines)


class NodeProxy:
    """The node of one invocation inside a case trace."""

    def __init__(self, case: Case, inputs: dict, children: list, path: str = ""):
        self.case = case
        self.inputs = inputs
        self.children = children
        self.path = path

    def read(self, name: str):
        path = f"{self.path}.{name}" if self.path else name
        for test_path, expected in self.case.tests:
            if test_path == path:
                if isinstance(expected, tuple) and expected[:1] == ("type",):
                    return NodeProxy(self.case, self.inputs, self.children, path)
                return expected
        if path in self.inputs:
            return self.inputs[path]
        raise ConversionError(f"node.{path} was not read while profiling this structure")

    def invoke(self):
        """The result of recursing on this (child) node: an InvokeOp."""
        try:
            slot = self.case.children.index(self.path)
        except ValueError:
            raise ConversionError(f"recursion on node.{self.path} was not seen while "
                                  "profiling") from None
        return self.children[slot]


def run_batched(subgraph: SubGraph, run_case, table: dict):
    """All invocations of a call's roots: returns the results of the roots, stacked.

    `run_case(case_index, node_proxy)` runs the converted body for one node.
    `table` maps the names of `table.table_layout` to graph tensors.
    """
    cases = subgraph.cases
    result_spec = cases[0].result
    leaves = _spec_leaves(result_spec)
    for case in cases[1:]:
        if _spec_leaves(case.result) != leaves:
            raise ConversionError("the recursive function returns differently shaped results "
                                  "for different node structures")
    def run(c, case, rows, count):
        """The case body over `count` of its nodes (rows of its table), batched: one row
        per node per leaf. Each node's children are gathered straight from the buffers
        inside the vectorized body (one gather per child per leaf, no copies)."""
        inputs = {path: table[f"input_{c}_{k}"][rows] for k, (path, _) in enumerate(case.inputs)}
        child_rows = table[f"children_{c}"][rows]
        child_columns = [child_rows[:, k] for k in range(len(case.children))]
        buffers = buffers_ref[0]

        def per_node(i):
            node_inputs = {path: tf.gather(column, i) for path, column in inputs.items()}
            structured = []
            for column in child_columns:
                row = tf.gather(column, i)
                structured.append(_pack(result_spec, [tf.gather(b, row) for b in buffers]))
            result = run_case(c, NodeProxy(case, node_inputs, structured))
            return after_raising_ops([tf.convert_to_tensor(t) for t in _flatten(result)])

        return _pfor_control.pfor(per_node, count, fallback_to_while_loop=True)

    everything = slice(None)
    buffers_ref = [None]
    leaf_results = [run(c, case, everything, tf.shape(table[f"children_{c}"])[0])
                    for c, case in enumerate(cases) if not case.children]
    buffers = [tf.concat([r[i] for r in leaf_results], 0) if leaf_results else
               tf.zeros([0, *shape], dtype) for i, (dtype, shape) in enumerate(leaves)]

    def level_body(level, buffers):
        buffers_ref[0] = buffers
        new = []
        for c, case in enumerate(cases):
            if case.children:
                splits = table[f"splits_{c}"]
                new.append(run(c, case, slice(splits[level], splits[level + 1]),
                               splits[level + 1] - splits[level]))
        return level + 1, [tf.concat([b] + [r[i] for r in new], 0) for i, b in enumerate(buffers)]

    invariants = (tf.TensorShape([]), [tf.TensorShape([None, *shape]) for _, shape in leaves])
    _, buffers = tf.while_loop(lambda level, _: level < table["num_levels"], level_body,
                               (tf.constant(1), buffers), shape_invariants=invariants)
    return [tf.gather(b, table["roots"]) for b in buffers]


def unstack_roots(stacked_leaves: list, count: int) -> list:
    """Per root, its result leaves: one unstack per leaf (one op, one op back in the
    gradient) rather than a slice per root."""
    columns = [tf.unstack(leaf, num=count) for leaf in stacked_leaves]
    return [list(row) for row in zip(*columns)]


def result_of_root(subgraph: SubGraph, rows: list, index: int):
    return _pack(subgraph.cases[0].result, rows[index])


def _is_spec(x) -> bool:
    return isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) and \
        isinstance(x[1], tuple)


def _spec_leaves(spec) -> list:
    if _is_spec(spec):
        return [spec]
    if isinstance(spec, (list, tuple)):
        return [leaf for item in spec for leaf in _spec_leaves(item)]
    raise ConversionError("a recursive function must return tensors or tuples of tensors")


def _flatten(value) -> list:
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _flatten(item)]
    return [value]


def _pack(spec, leaves: list):
    return _build(spec, iter(leaves))


def _build(spec, leaves):
    if _is_spec(spec):
        return next(leaves)
    return type(spec)(_build(item, leaves) for item in spec)


@_pfor.RegisterPFor("ResourceGather")
def _convert_resource_gather(pfor_input):
    """Batch a gather from a loop-invariant variable (embedding lookups in a case body)."""
    resource, resource_stacked, _ = pfor_input.input(0)
    indices, indices_stacked, _ = pfor_input.input(1)
    batch_dims = pfor_input.get_attr("batch_dims")
    if resource_stacked or batch_dims != 0:
        raise ValueError("janus: ResourceGather with a per-iteration variable is not batched")
    dtype = pfor_input.get_attr("dtype")
    result = gen_resource_variable_ops.resource_gather(resource, indices, dtype=dtype)
    return _pfor.wrap(result, indices_stacked)
