"""Lists whose length varies from call to call (`DynamicList`) handed to TF ops or to
`zip`/`enumerate` during a trace: ops on the stacked tensor instead.

    tf.add_n(xs)             ->  tf.reduce_sum(stacked, axis=0)
    tf.constant(numbers)     ->  the fed numbers, as TF converts them (graphgen/number_lists.py)
    zip(xs, ys)              ->  DynamicList((xs.stacked, ys.stacked))
    enumerate(xs, 1)         ->  DynamicList((tf.range(len) + 1, xs.stacked))
    len(out)                 ->  its length so far, a fed int (`out` grown in a tf.while_loop)
"""
from __future__ import annotations

import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen import number_lists
from janus.graphgen.values import Accumulator, DynamicList, SymbolicScalar


def stack_args(fn, args):
    """TF list-taking ops applied to a DynamicList, as ops on the stacked tensor."""
    if not args or not isinstance(args[0], DynamicList):
        return None
    if (fn is tf.constant or fn is tf.convert_to_tensor) and args[0].kind is not None:
        def constant(dtype=None, shape=None, name=None, dtype_hint=None):
            if shape is not None:
                raise ConversionError(f"{fn.__name__} of a list of Python numbers of varying "
                                      "length with a shape")
            if dtype is None and dtype_hint is not None:
                try:  # (as TF does: the hint if it converts, else TF's own dtype)
                    return number_lists.constant(args[0], dtype_hint)
                except TypeError:
                    pass
            return number_lists.constant(args[0], dtype)
        return constant
    if args[0].kind is not None:
        if fn is tf.stack or fn is tf.add_n or fn is tf.concat:
            raise ConversionError(f"{fn.__name__} of a list of Python numbers of varying length")
        return None
    stacked = args[0].stacked
    if fn is tf.stack:
        return lambda axis=0, name=None: stacked if axis == 0 else \
            tf.experimental.numpy.moveaxis(stacked, 0, axis)
    if fn is tf.add_n:
        return lambda name=None: tf.reduce_sum(stacked, axis=0)
    if fn is tf.concat:
        def concat(axis, name=None):
            if axis != 0:
                raise ConversionError("tf.concat over a list of varying length needs axis=0")
            return tf.reshape(stacked, tf.concat([[-1], tf.shape(stacked)[2:]], 0))
        return concat
    return None


def _enumerate_arguments(iterable, start=0):
    return iterable, start


def dynamic_zip(fn, args, kwargs):
    """zip/enumerate over lists of varying length, as one DynamicList of tuples."""
    if fn is enumerate:
        # bound as Python binds enumerate's arguments (F36: `enumerate(xs, 1)`)
        items, start = _enumerate_arguments(*args, **kwargs)
        if not isinstance(items, DynamicList) or type(start) is not int and \
                not (isinstance(start, SymbolicScalar) and start.kind is int):
            raise ConversionError("enumerate() of a list of varying length with a start "
                                  "that is not an int")
        index = tf.range(items.length()) + start
        return DynamicList((index, items.stacked), None if items.kind is None else
                           (None, items.kind), items.bound)
    if kwargs or not all(isinstance(a, DynamicList) for a in args):
        raise ConversionError("zip() of a list of varying length with a list of fixed length")
    kinds = tuple(a.kind for a in args)
    bounds = {a.bound for a in args if a.kind is not None}  # (one bound for all their ints)
    return DynamicList(tuple(a.stacked for a in args),
                       kinds if any(k is not None for k in kinds) else None,
                       bounds.pop() if len(bounds) == 1 else None)


def grown_length(items: Accumulator) -> SymbolicScalar:
    """`len()` of a list a tf.while_loop grows (graphgen/exits.py): its items before this
    iteration plus those appended in it, an int known at run time only."""
    if items.base is None:
        raise ConversionError("len() of a list grown inside a generalized loop, whose "
                              "length before the loop is not known")
    return SymbolicScalar(tf.cast(items.base + items.index + items.appends, tf.int64), int)
