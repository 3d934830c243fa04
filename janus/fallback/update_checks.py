"""Eager's checks of a variable update's operands, made where a trace updates its local
copy of the variable (fallback/variables.py).

Eagerly each update op checks what it is given; the local copy is computed with TF's
arithmetic and scatter ops, which accept what eager refuses or refuse it elsewhere:

    w.assign_add(x)          w [3], x [1] or 0.1: eager InvalidArgumentError (shapes must
                             be equal); `w + x` broadcasts (the graph changed w: wrong)
    w.assign(x)              x [1]: eager ValueError (not compatible with w's shape); the
                             commit's own check raised inside janus (an internal error)
    w.scatter_nd_update(i, u)  u not i.shape[:-1] + w.shape[K:]: eager InvalidArgumentError;
                             tensor_scatter_nd_update's static check raised inside janus
    w.scatter_update(slices)   scalar values: eager broadcasts them to every row

Operands are converted to the variable's dtype as eager converts them. Where shapes are
known while the trace runs, a mismatch raises what eager raises (`EagerError`, raised
again by the patched method, the user's line: the trace fails and the call runs
plainly); where they are not, the graph checks them (graphgen/checks.require: a failed
check reruns the call plainly, before any variable changed).
"""
from __future__ import annotations

from typing import Callable

import tensorflow as tf

from janus.graphgen import checks


class EagerError(Exception):
    """The update fails as eager's op fails; `error` is what eager raises."""

    def __init__(self, error: Exception):
        super().__init__(str(error))
        self.error = error


def _invalid(message: str) -> EagerError:
    return EagerError(tf.errors.InvalidArgumentError(None, None, message))


def converted(value, var) -> tf.Tensor:
    """`value` as eager's update converts it (`convert_to_tensor(value, var.dtype)`)."""
    try:
        return tf.convert_to_tensor(value, dtype=var.dtype)
    except (TypeError, ValueError) as exc:
        raise EagerError(exc) from None


def assigned(var, value) -> tf.Tensor:
    """`var.assign(value)`'s value: compatible with the variable's declared shape."""
    value = converted(value, var)
    shape = var.shape
    if not shape.is_compatible_with(value.shape):
        name = "" if var.name is None else " " + str(var.name)
        raise EagerError(ValueError(
            f"Cannot assign value to variable '{name}': Shape mismatch.The variable shape "
            f"{shape}, and the assigned value shape {value.shape} are incompatible."))
    if shape.rank is not None and (value.shape.rank is None or any(
            d is not None and v is None for d, v in zip(shape, value.shape))):
        checks.require(_fits(value, shape))
    return value


def same_shape(current: tf.Tensor, delta) -> tf.Tensor:
    """`delta` of `assign_add`/`assign_sub`: of the variable's very shape (eager's
    kernels do not broadcast)."""
    if not current.shape.is_compatible_with(delta.shape):
        raise _invalid(f"Cannot update variable with shape {current.shape} using a Tensor "
                       f"with shape {delta.shape}, shapes must be equal.")
    if not (current.shape.is_fully_defined() and delta.shape.is_fully_defined()):
        checks.require(_equal(tf.shape(current, tf.int64), tf.shape(delta, tf.int64)))
    return delta


def scattered(current: tf.Tensor, indices, updates) -> tf.Tensor:
    """`updates` of `scatter_add(IndexedSlices(updates, indices))` and the like: a scalar
    (broadcast to every row) or of shape indices.shape + current.shape[1:]."""
    indices = tf.convert_to_tensor(indices)

    def wanted():
        return tf.concat([tf.shape(indices, tf.int64), tf.shape(current, tf.int64)[1:]], 0)
    if updates.shape.rank == 0:
        return tf.broadcast_to(updates, wanted())
    expected = indices.shape.concatenate(current.shape[1:])
    if not expected.is_compatible_with(updates.shape):
        raise _invalid(f"Must have updates.shape = indices.shape + params.shape[1:] or "
                       f"updates.shape = [], got updates.shape {updates.shape}, "
                       f"indices.shape {indices.shape}, params.shape {current.shape}")
    if not (expected.is_fully_defined() and updates.shape.is_fully_defined()):
        checks.require(_equal(tf.shape(updates, tf.int64), wanted()))
    return updates


def scattered_nd(current: tf.Tensor, indices, updates) -> tf.Tensor:
    """`updates` of `scatter_nd_add(indices, updates)` and the like: of shape
    indices.shape[:-1] + current.shape[indices.shape[-1]:] (no scalar)."""
    indices = tf.convert_to_tensor(indices)
    if not (indices.shape.is_fully_defined() and current.shape.is_fully_defined() and
            updates.shape.is_fully_defined()):
        index_shape = tf.shape(indices, tf.int64)
        wanted = tf.concat([index_shape[:-1], tf.shape(current, tf.int64)[index_shape[-1]:]],
                           0)
        checks.require(_equal(tf.shape(updates, tf.int64), wanted))
    return updates


def built(make: Callable[[], tf.Tensor]) -> tf.Tensor:
    """The op `make` builds, whose static shape check is the one eager's kernel makes
    (TF raises ValueError building it; eager's kernel InvalidArgumentError)."""
    try:
        return make()
    except ValueError as exc:
        raise _invalid(str(exc)) from None


def _equal(a: tf.Tensor, b: tf.Tensor) -> tf.Tensor:
    """Whether shape vectors `a` and `b` are equal (of any lengths: no op fails)."""
    same_rank = tf.equal(tf.size(a), tf.size(b))
    return tf.logical_and(same_rank, tf.reduce_all(
        tf.equal(tf.concat([a, b], 0), tf.concat([b, a], 0))))


def _fits(value: tf.Tensor, shape: tf.TensorShape) -> tf.Tensor:
    """Whether `value`'s shape has `shape`'s rank and its known dimensions."""
    rank = shape.rank
    actual = tf.shape(value, tf.int64)
    padded = tf.concat([actual, tf.fill([rank], tf.constant(-1, tf.int64))], 0)[:rank]
    known = [i for i, d in enumerate(shape) if d is not None]
    dims = tf.constant([shape[i] for i in known], tf.int64)
    return tf.logical_and(tf.equal(tf.size(actual), rank), tf.reduce_all(
        tf.equal(tf.gather(padded, known), dims)))
