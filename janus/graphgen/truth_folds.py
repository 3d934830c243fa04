"""`any(...)` / `all(...)` over items whose truth only the graph knows.

    if all(tf.reduce_all(tf.math.is_finite(g)) for g in grads):
                                 ->  if tf.reduce_all(tf.stack([<item tests>])):
    if any(tf.norm(w) > 1.0 for w in weights):
                                 ->  if tf.reduce_any(tf.stack([<item tests>])):

Python's builtins ask each item's truth in C, which a symbolic tensor refuses (janus gave
up on the function). Here the items are taken one at a time: Python values decide as
Python does (the first that decides stops the fold), a tensor item's truth joins the
result's tensor. Python would not have taken the items after a tensor item that decided
at run time: they must not write the heap, variables or print (else the trace is refused,
and the line runs in Python); their ops run either way (an op that fails there fails the
graph: the call reruns plainly). A non-scalar tensor item raises Python's ValueError.
"""
from __future__ import annotations

import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen.value_kinds import is_symbolic
from janus.graphgen.values import MixedBool, SymbolicScalar
from janus.operation_hooks import operation_hook


def _truth(item):
    """A scalar bool tensor for an item the graph decides, None for a Python value, False
    for a tensor of more than one element."""
    if isinstance(item, (SymbolicScalar, MixedBool)):
        item = item.tensor
    if not is_symbolic(item):
        return None
    if item.shape.rank is None:
        raise ConversionError("any()/all() of a tensor whose rank is not known")
    if item.shape.rank and item.shape.is_fully_defined() and item.shape.num_elements() == 1:
        item = tf.reshape(item, [])  # (one element: its truth, as in Python)
    return tf.cast(item, tf.bool) if item.shape.rank == 0 else False


@operation_hook
def truth_fold(tracer, fn, iterable):
    """`fn(iterable)` for `fn` the builtin `any` or `all` (the module docstring): a Python
    bool, or one the graph decides (a fed bool: a Python bool again after the run)."""
    decisive = fn is any  # the item truth that ends the fold (and is its value then)
    truths, before, stopped = [], None, False
    for item in iterable:
        truth = _truth(item)
        if truth is False:  # (eager's error: raised here, in a hook of the user's call)
            raise ValueError("The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
        if truth is not None:
            if before is None:  # (later items: taken only where this one did not decide)
                before = (tracer.ledger.mark(), tracer.shadow.writes)
            truths.append(truth)
        elif bool(item) is decisive:
            stopped = True  # (whatever the tensor items were, the fold's value)
            break
    if before is not None and before != (tracer.ledger.mark(), tracer.shadow.writes):
        raise ConversionError(f"the items of {fn.__name__}() after one the graph decides "
                              "write the heap, variables or print (Python would stop there)")
    if stopped or not truths:
        return decisive if stopped else not decisive
    stacked = tf.stack(truths)
    return SymbolicScalar(tf.reduce_any(stacked) if fn is any else tf.reduce_all(stacked),
                          bool)
