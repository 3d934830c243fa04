"""A traced tensor indexed by scalar integer tensors: one `Pack` and the `StridedSlice`.

Where eager code indexes with Python ints, `probs[0, action]`, the trace indexes with a
tensor (an action sampled in the graph, a fed counter), and TensorFlow's `__getitem__`
then builds begin, end and strides each as a `Pack` run per call (constant folding is off
in janus's graphs: graphgen/calls.py) and `index + 1` for every end: five kernels for
`x[0, t]`, per iteration in a loop (an actor-critic episode: F450). Each item of such a
key is one index (a shrunk axis), and for a shrunk axis `StridedSlice` computes the end
itself (`begin + 1`, after wrapping a negative begin and checking it is in range), so
end and strides can be constants:

    x[0, t]       ->  strided_slice(x, Pack([0, t]), [0, 0], [1, 1], shrink_axis_mask=0b11)
    (3 Pack, AddV2,   (1 Pack, the same op: same values, negative indices and
     StridedSlice)     out-of-range errors; the same gradient)

Only keys of Python ints and scalar int32/int64 tensors of one dtype, at least one
tensor (no slices, `...` or `None`); anything else is TensorFlow's own `__getitem__`. Only
while janus traces, in the graphs plain Python runs eagerly (graphgen/tensor_rows.py's
`eager_in_plain`).
"""
from __future__ import annotations

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import ops
from tensorflow.python.ops import array_ops

from janus.graphgen import active
from janus.graphgen.tensor_rows import eager_in_plain
from janus.operation_hooks import operation_hook
from janus.patches import once

_INDEX_DTYPES = (tf.int32, tf.int64)


def _python_int(s) -> bool:
    return isinstance(s, (int, np.integer)) and not isinstance(s, (bool, np.bool_))


def _scalar_index(s) -> bool:
    return isinstance(s, ops.SymbolicTensor) and s.dtype in _INDEX_DTYPES and \
        s.shape.rank == 0


def indexed(tensor, key):
    """`tensor[key]` as one `Pack` of the indices and a `StridedSlice` of constant end and
    strides, or None where the key is not ints and scalar int tensors of one dtype, at
    least one of them a tensor (see the module docstring)."""
    items = key if isinstance(key, tuple) else (key,)
    tensors = [s for s in items if _scalar_index(s)]
    if not tensors or not all(_python_int(s) or _scalar_index(s) for s in items):
        return None
    dtype = tensors[0].dtype
    if any(t.dtype != dtype for t in tensors):
        return None  # (TensorFlow's stack of them refuses: its error stays)
    bounds = np.iinfo(dtype.as_numpy_dtype)
    if any(_python_int(s) and not bounds.min <= int(s) <= bounds.max for s in items):
        return None
    count = len(items)
    with ops.name_scope(None, "strided_slice", [tensor, *tensors]) as name:
        begin = tf.stack([s if _scalar_index(s) else tf.constant(int(s), dtype)
                          for s in items])
        return array_ops.strided_slice(
            tensor, begin, tf.zeros([count], dtype), tf.ones([count], dtype),
            shrink_axis_mask=(1 << count) - 1, name=name)


@once
def install() -> None:
    """Hook `__getitem__` of graph tensors (once per process): during a janus trace, in a
    graph plain Python runs eagerly, a key of scalar int tensors slices as `indexed`."""
    cls = ops.SymbolicTensor
    original = cls.__getitem__

    # (an error raised in it, TF's refusal of a key included, is the user's operation
    # failing, as before: fallback/safety.py's operation hooks)
    @operation_hook
    def index_item(self, key):  # __getitem__
        tracer = active.get()
        if tracer is not None and tracer.graph is not None and \
                not ops._numpy_style_slicing and eager_in_plain(tracer):
            try:
                result = indexed(self, key)
            except (ValueError, TypeError):  # (an index its shape refuses while building:
                result = None  # TF's own `__getitem__` raises it, as before: fuzz v107 seed 178)
            if result is not None:
                return result
        return original(self, key)

    cls.__getitem__ = index_item
