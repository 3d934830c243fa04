"""The generalization ladder: the more general plan that follows a host guard which keeps
failing (append-only lists, Python numbers fed as tensors, dynamic dimensions, lists of
varying length)."""
from __future__ import annotations

import tensorflow as tf

from janus.graphgen.plan import Plan


def next_plan(plan: Plan, guard, value, spec):
    """The next rung of the ladder for a host guard that keeps failing, or None."""
    expr = guard.source.expr
    if guard.kind == "len" and expr in spec.appended_only:
        return plan.with_append_only(expr)
    if guard.kind == "value" and type(guard.expected) in (int, float) and \
            type(value) is type(guard.expected):
        return plan.with_scalar(expr)
    if guard.kind == "tensor" and tf.is_tensor(value) and hasattr(value, "shape"):
        dtype, shape = guard.expected
        if value.dtype.name == dtype and len(value.shape) == len(shape):
            dims = [i for i, (a, b) in enumerate(zip(shape, value.shape)) if a != b]
            return plan.with_dynamic_dims(expr, dims)
    if guard.kind == "tensor_list" and isinstance(value, list) and value and tf.is_tensor(value[0]):
        dtype, shape = guard.expected
        dims = [i for i, (a, b) in enumerate(zip(shape, value[0].shape)) if a != b]
        return plan.with_dynamic_dims(expr + "[*]", dims)
    if guard.kind == "len" and isinstance(value, list) and value and \
            all(tf.is_tensor(v) for v in value):
        return plan.with_dynamic_list(expr)
    return None
