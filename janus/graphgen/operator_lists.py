"""Lists of fed numbers that a tensor's operator converts (F465).

A library call's arguments are packed before TensorFlow sees them (library_calls.py).
An operator method runs TensorFlow's own conversion of its other operand instead, and
that conversion finds no dtype in janus's stand-ins for the fed numbers:

    seed = s.seed + [0, s.k]      # s.k fed: "Failed to convert elements of
    y = x * (1.0, scale)          #   [0, <known when the graph runs>] to Tensor"

Each such trace failed, and the function made one graph per value of the number until
its limit, then ran plainly, slower than plain Python. While a janus trace runs on
this thread, the converter registered here for lists and tuples (ahead of
TensorFlow's own packing) converts such a list as eager TensorFlow converts the Python
numbers it holds:

    [0, k] to int64 (the operand's dtype)  ->  [0, cast(k, int64)]
    [0, k] with no dtype asked             ->  [0, k as int32] (values.pack_scalars)

A fed float asked for as an int raises TypeError as eager TensorFlow does, so its
dtype hint falls back as it does there.
"""
from __future__ import annotations

import tensorflow as tf

from janus.graphgen import active, host_scalars
from janus.graphgen.host_scalars import HostScalar
from janus.graphgen.values import SymbolicScalar, pack_scalars

FED = (SymbolicScalar, HostScalar)
"""janus's stand-ins for Python and numpy numbers whose value is fed to a graph."""


def fed_numbers_in(value) -> bool:
    """Whether `value` is a fed number or a list/tuple holding one."""
    return isinstance(value, FED) or type(value) in (list, tuple) and any(
        isinstance(v, FED) for v in tf.nest.flatten(value))


def as_dtype(value, dtype):
    """A fed number (or a Python one) as eager TensorFlow converts it to `dtype`."""
    if isinstance(value, HostScalar):
        return host_scalars.converted(value, dtype)
    return value.as_dtype(dtype) if isinstance(value, SymbolicScalar) else \
        tf.constant(value, dtype)


def packed(value, dtype=None):
    """`value` (a list or tuple) with its fed numbers as tensors of `dtype`, or packed as
    TensorFlow packs the Python numbers when no dtype is asked."""
    if dtype is None:
        return pack_scalars(host_scalars.pack_list(value))
    return tf.nest.map_structure(lambda v: as_dtype(v, dtype) if isinstance(v, FED) else v,
                                 value)


def _convert(value, dtype=None, name=None, as_ref=False):
    if as_ref or active.get() is None or not fed_numbers_in(value):
        return NotImplemented  # (TensorFlow's own packing)
    return tf.convert_to_tensor(packed(value, dtype), dtype=dtype, name=name)


tf.register_tensor_conversion_function((list, tuple), _convert, priority=98)
