"""An index of a list janus holds as stacked tensors, as TF's slicing takes it.

    for i in range(len(xs)):      (the length fed: `i` a Python int janus feeds)
        xs[i] *= 0.5              items.stacked[<i's tensor>]

A SymbolicScalar (duck-typed here: `tensor`, `kind`; graphgen/values.py imports this
module) of kind int or bool becomes its tensor, also as a slice's bound (fuzz v79 seed
3325 raised TF's TypeError inside janus); a float janus feeds is refused, and the line
runs in Python, which raises its own TypeError.
"""
from __future__ import annotations

import tensorflow as tf

from janus.errors import ConversionError


def as_index(key):
    """`key` of `items[key]` for TF's slicing of the stacked items."""
    if isinstance(key, slice):
        return slice(as_index(key.start), as_index(key.stop), as_index(key.step))
    kind = getattr(key, "kind", None)
    if kind is None or not hasattr(key, "tensor"):
        return key
    if kind not in (int, bool):
        raise ConversionError(f"a list index that is a Python {kind.__name__} janus feeds")
    return tf.cast(key.tensor, tf.int64)
