"""Trace-time stand-ins for Python values that have no fixed size in a general graph."""
from __future__ import annotations

import tensorflow as tf

from janus.errors import ConversionError


class DynamicList:
    """A Python list of same-shaped tensors whose length is known only at run time,
    held as one stacked tensor `[n, ...]` (or a tuple of them: `zip` of such lists,
    whose items are tuples)."""

    def __init__(self, stacked):
        self.stacked = stacked

    def length(self):
        lengths = [tf.shape(s)[0] for s in tf.nest.flatten(self.stacked)]
        return lengths[0] if len(lengths) == 1 else tf.reduce_min(tf.stack(lengths))

    def item(self, index):
        return tf.nest.map_structure(lambda s: tf.gather(s, index), self.stacked)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return DynamicList(tf.nest.map_structure(lambda s: s[key], self.stacked))
        return tf.nest.map_structure(lambda s: s[key], self.stacked)

    def __len__(self):
        raise ConversionError("len() of a list whose length varies from call to call is a "
                              "tensor here; it cannot be used as a Python int")

    def __iter__(self):
        raise ConversionError("a list whose length varies from call to call can only be "
                              "iterated by a plain `for` loop without break/return")

    def __repr__(self):
        return f"DynamicList({self.stacked!r})"


class Accumulator:
    """A list being appended to inside a `tf.while_loop` body: one TensorArray write
    per iteration."""

    def __init__(self, array: tf.TensorArray, index):
        self.array = array
        self.index = index
        self.appends = 0

    def append(self, value):
        self.array = self.array.write(self.index + self.appends, value)
        self.appends += 1

    def __iadd__(self, values):
        for value in values:
            self.append(value)
        return self

    def extend(self, values):
        self.__iadd__(values)

    def __len__(self):
        raise ConversionError("len() of a list grown inside a generalized loop")

    def __iter__(self):
        raise ConversionError("reading a list while it is grown inside a generalized loop")


class AppendOnlyList:
    """A heap list the function only appends to: its length and items are not read, so
    they are not assumed (no guard on the length); the appended items are written back
    with `list.extend` after the graph ran. Any read fails the trace (janus then
    goes back to a copy of the whole list)."""

    def __init__(self):
        self.items: list = []

    def append(self, value):
        self.items.append(value)

    def extend(self, values):
        self.items.extend(values)

    def __iadd__(self, values):
        self.items.extend(values)
        return self


class DynamicLength:
    """`len()` of a DynamicList: an int32 scalar tensor that converts to the dtype
    it meets, as a Python int would (`tf.add_n(losses) / len(losses)`)."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __index__(self):
        raise ConversionError("the length of a list of varying length is used as a Python int")


def _convert_length(value, dtype=None, name=None, as_ref=False):
    return tf.cast(value.tensor, dtype or tf.int32)


tf.register_tensor_conversion_function(DynamicLength, _convert_length)
