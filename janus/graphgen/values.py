"""Trace-time stand-ins for Python values that have no fixed size in a general graph."""
from __future__ import annotations

import tensorflow as tf

from janus.errors import ConversionError


class DynamicList:
    """A Python list of same-shaped tensors whose length is known only at run time,
    held as one stacked tensor `[n, ...]`."""

    def __init__(self, stacked):
        self.stacked = stacked

    def length(self):
        return tf.shape(self.stacked)[0]

    def __getitem__(self, key):
        if isinstance(key, slice):
            return DynamicList(self.stacked[key])
        return self.stacked[key]

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
