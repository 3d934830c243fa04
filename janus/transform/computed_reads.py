"""Reads of a tensor's value computed with where they stand: no graph break (F461).

`int(t)`, `float(t)`, `t.numpy()` (a scalar's) as an operand of arithmetic or the value
of an augmented assignment, not bound to a name first:

    s.correct += int(tf.reduce_sum(hits))      an augmented count
    total = total + float(loss) * 2            an operand
    s.stats["loss"] += float(l) / n            an item's augmented assignment
    margin = -float(tf.reduce_min(scores))     a sign

A graph computes the fed Python number (graphgen/exact_numbers.py: Python's int and
float arithmetic, checked where TensorFlow's kernels would differ) or the numpy scalar
(graphgen/host_scalars.py: numpy's) as Python does, or fails the trace at that line
(arithmetic it does not take, a numpy scalar of another dtype...), which becomes the
break. The value then goes wherever it goes, as a named read's arithmetic does (`n =
int(t); s.hits += n`: transform/breaks.in_graph_reads). Arithmetic with a numpy call's
value (`x.numpy() * np.ones(2)`) is numpy work: still a break. A vector's `.numpy()`
reduced where it stands (`s.correct += (pred == y).numpy().sum()`) is such a read of
numpy's scalar (`reduced_reads`).
"""
from __future__ import annotations

from typing import Callable

import gast

ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.FloorDiv, gast.Mod)
"""The operators a fed number and a numpy scalar compute as Python and numpy do (or
refuse at their line)."""


def augmented(node, parent) -> bool:
    """Whether `node` is the value of the augmented assignment `parent` of arithmetic
    (`s.hits += node`)."""
    return isinstance(parent, gast.AugAssign) and parent.value is node and \
        isinstance(parent.op, ARITHMETIC)


def computed_with(node, parents: dict, numpy_call: Callable[[object], bool]) -> bool:
    """Whether the read `node` is an operand of arithmetic (`int(t) * 2`, `-float(t)`) or
    the value of an augmented assignment of it (`s.hits += int(t)`), its other operand
    not a numpy call (`numpy_call(expr)`: numpy work)."""
    parent = parents.get(id(node))
    if isinstance(parent, gast.UnaryOp):
        return isinstance(parent.op, (gast.USub, gast.UAdd))
    if isinstance(parent, gast.BinOp) and isinstance(parent.op, ARITHMETIC):
        return not numpy_call(parent.right if parent.left is node else parent.left)
    return augmented(node, parent)  # (a numpy array target: its trace refuses the line)


def reduced_reads(fn: gast.FunctionDef, kept: set[int]) -> set[int]:
    """Ids of the `.numpy()` calls in `kept` (transform/breaks.in_graph_reads) whose array
    is reduced where it stands (`(pred == y).numpy().sum()`, `x.numpy().mean()`): a
    tensor of any rank's (graphgen/host_arrays.py reduces it as numpy does, or refuses)."""
    return {id(node.func.value) for node in gast.walk(fn)
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and
            node.func.attr in ("sum", "mean") and not node.args and not node.keywords and
            id(node.func.value) in kept}
