"""Which path a graph's merge ops took, for the tensors they hand back to Python.

A tf.cond branch or a loop that passes a tensor through gives, in a graph, a new tensor
(an output of the If/While op) where Python keeps the very object:

    b = tf.cond(p, lambda: x, lambda: acc)   # eagerly: `b is x` when p holds
    return b                                  # graph: a new tensor either way

For a tensor the graph hands back that may be one of its inputs so, `chosen_input`
builds an int32 tensor saying which input it is on the path the run takes (-1: none):
an If's predicate picks the branch and the input that branch hands back at that
position; a While that ran no iteration hands back its initial value. The host then
hands back that input object itself (`fallback/heap.py`, kind "either").
"""
from __future__ import annotations

import tensorflow as tf

CONTROL_FLOW = frozenset({"If", "StatelessIf", "While", "StatelessWhile", "Case",
                          "StatelessCase"})


def through_identities(tensor):
    while tensor.op.type == "Identity" and tensor.op.inputs:
        tensor = tensor.op.inputs[0]
    return tensor


def merge_output(tensor):
    """(op, output index) of the If/While/Case op whose output `tensor` is (through the
    Identity ops tf.cond puts on its outputs), or None."""
    if not isinstance(tensor, tf.Tensor) or not hasattr(tensor, "op"):
        return None
    try:
        tensor = through_identities(tensor)
    except AttributeError:  # (an eager tensor)
        return None
    if tensor.op.type not in CONTROL_FLOW:
        return None
    return tensor.op, tensor.value_index


def branch_inputs(op, index: int) -> list | None:
    """Per branch of an If/Case op (per body of a While: one), the op input the branch
    hands back unchanged at output `index`, or None; None where the functions cannot be
    read."""
    looping = op.type in ("While", "StatelessWhile")
    offset = 0 if looping else 1
    inputs = list(op.inputs)
    try:
        if op.type in ("If", "StatelessIf"):
            names = [op.get_attr("then_branch").name, op.get_attr("else_branch").name]
        elif looping:
            names = [op.get_attr("body").name]
        else:
            names = [f.name for f in op.get_attr("branches")]
        graphs = [getattr(op.graph._get_function(name), "graph", None) for name in names]
    except (AttributeError, ValueError, TypeError):  # (another TF layout)
        return None
    found = []
    for graph in graphs:
        if graph is None or index >= len(graph.outputs):
            return None
        out = through_identities(graph.outputs[index])
        position = next((j for j, t in enumerate(graph.inputs) if t is out), None)
        found.append(inputs[offset + position] if position is not None and
                     offset + position < len(inputs) else None)
    return found


def chosen_input(tensor, source_of) -> tuple | None:
    """(an int32 tensor, the candidate inputs' sources) where `tensor` may be one of the
    graph's inputs (`source_of(t)`: the Source of input tensor `t`, or None) through
    If/While ops: the position among the sources of the input it is on the path the run
    takes, -1 where it is a new tensor. None where it can be no input."""
    sources: list = []
    index = _index_of(tensor, 0, sources, source_of)
    return None if index is None else (index, sources)


def _index_of(value, depth: int, sources: list, source_of):
    """`chosen_input`'s index tensor for `value` (`sources`: the candidates so far)."""
    source = source_of(value)
    if source is not None:
        if source not in sources:
            sources.append(source)
        return tf.constant(sources.index(source), tf.int32)
    merge = merge_output(value)
    if merge is None or depth > 8:
        return None
    op, index = merge
    passed = branch_inputs(op, index)
    if not passed:
        return None
    picks = [None if v is None else _index_of(v, depth + 1, sources, source_of)
             for v in passed]
    if all(p is None for p in picks):
        return None
    none = tf.constant(-1, tf.int32)
    picks = [none if p is None else p for p in picks]
    if op.type in ("While", "StatelessWhile"):
        initial = _index_of(op.inputs[index], depth + 1, sources, source_of) \
            if index < len(op.inputs) else None
        if passed[0] is not None:  # (the body hands it back: always its input)
            return picks[0]
        if initial is None:
            return None
        return tf.where(tf.equal(op.outputs[0], 0), initial, none)  # (no iteration)
    if op.type in ("If", "StatelessIf"):
        pred = op.inputs[0]
        if pred.dtype != tf.bool:
            pred = tf.not_equal(pred, tf.zeros([], pred.dtype))
        return tf.where(pred, picks[0], picks[1])
    branch = tf.clip_by_value(op.inputs[0], 0, len(picks) - 1)  # (Case: last is default)
    return tf.gather(tf.stack(picks), branch)
