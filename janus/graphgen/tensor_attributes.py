"""Attributes of a graph tensor whose answer differs from the eager tensor's it stands
for (janus runs a call made inside a graph plainly, so a traced call is an eager one),
answered as the eager call sees them (F373):

    y.device, y.backing_device      '/job:localhost/replica:0/task:0/device:CPU:0' where
                                    the process sees one device (eagerly every op is placed
                                    there, whatever the tf.device scope); refused where it
                                    sees more (eager placement depends on kernels, scopes)
    y.name, y.op, y.graph,          AttributeError("Tensor.name is undefined when eager
    y.value_index                   execution is enabled."), as eagerly
    y._op, y._name, y._shape ...    AttributeError (a graph tensor's only), as eagerly
    y.__class__                     EagerTensor (as `type(y)`: graphgen/eager_queries.py)
    y.consumers, y._id              refused (eagerly `consumers()` raises, `_id` is new
                                    on each call: the graph's would be the trace's)
    y.cpu(), y.is_packed ...        refused (an eager tensor's only; `y.numpy` is
                                    host_scalars'/host_arrays')

The same for a tf.IndexedSlices or tf.SparseTensor of graph tensors (`g.device` of an
embedding's gradient reads its values' device). The graph answered '' for `.device` and
the graph's names for the rest: `if "GPU" in y.device:` flipped. graphgen/attributes.py
asks `eager_attribute` for `y.name`; graphgen/eager_queries.py for `getattr(y, name)`.
"""
from __future__ import annotations

import tensorflow as tf
from tensorflow.python.framework.ops import EagerTensor

from janus.errors import ConversionError
from janus.operation_hooks import operation_hook

UNANSWERED = object()
"""`eager_attribute`'s result where the graph tensor's own attribute is the eager one's."""

_DEVICES = ("device", "backing_device")
_REFUSED = ("consumers", "_id")
_COMPOSITE_READS = {tf.IndexedSlices: ("device", "name", "op", "graph"),
                    tf.SparseTensor: ("op", "graph")}
"""The attributes a composite reads from its component tensors (what it lacks, it lacks
in both modes)."""

_probe: list = []
_device: list = []


def eager_tensor() -> EagerTensor:
    """An eager tensor (made outside any graph): what a graph tensor stands for."""
    if not _probe:
        with tf.init_scope():
            _probe.append(tf.constant(0.0))
    return _probe[0]


def eager_device() -> str:
    """The device an eager op is placed on, where the process sees only one (the logical
    devices are fixed once TensorFlow initialized); a ConversionError where it sees
    several (a GPU's ops land on it or on the CPU by their kernels)."""
    if not _device:
        devices = tf.config.list_logical_devices()
        _device.append(eager_tensor().device if len(devices) == 1 else None)
    if _device[0] is None:
        raise ConversionError("reads the device of a tensor the graph computes where "
                              "several devices are visible (eagerly it depends on where "
                              "its op's kernel ran)")
    return _device[0]


def is_symbolic_composite(value) -> bool:
    """A tf.IndexedSlices or tf.SparseTensor of graph tensors."""
    reads = _COMPOSITE_READS.get(type(value))
    return reads is not None and not isinstance(_component(value), EagerTensor)


def _component(value):
    return value.values if isinstance(value, tf.IndexedSlices) else value.indices


@operation_hook
def _undefined(message: str) -> None:
    """The user's `y.name` raising as eagerly (the user's error, not janus's)."""
    raise AttributeError(message)


def in_callback(tracer, what: str) -> None:
    """Refuse inside a callback TensorFlow traces (`tf.map_fn(lambda t: ...)`): there
    plain Python is eager or in a graph as the library runs it."""
    if tracer.callback_depth:
        raise ConversionError(f"{what} inside a callback TensorFlow traces (plain Python "
                              "answers as the library runs it: eagerly or in a graph)")


def eager_has(value, name: str) -> bool:
    """`hasattr(value, name)` as eagerly (`value` a graph tensor or is_symbolic_composite)."""
    if type(value) in _COMPOSITE_READS:
        if name not in _COMPOSITE_READS[type(value)]:
            return hasattr(value, name)
        value = _component(value)
    return name in _DEVICES or hasattr(eager_tensor(), name) or \
        name in getattr(value, "__dict__", ())


def eager_attribute(tracer, value, name: str):
    """`value.name` as the eager tensor it stands for answers it (`value` a graph tensor
    or is_symbolic_composite), raising what eager raises; UNANSWERED where the graph's
    own attribute is the same."""
    if type(value) in _COMPOSITE_READS:
        if name not in _COMPOSITE_READS[type(value)]:
            return UNANSWERED
        value = _component(value)
    if name == "__class__":  # (as `type(y)`: graphgen/eager_queries.py)
        in_callback(tracer, "`.__class__` of a tensor")
        return type(eager_tensor())
    if name not in _DEVICES and name not in _REFUSED and (
            hasattr(value, name) == hasattr(eager_tensor(), name) or
            name in getattr(value, "__dict__", ())):
        return UNANSWERED  # (`y.shape`, `y.dtype`: the usual reads; the tensor's own,
        # set as eagerly: `v[1:3].assign`, which TF's slicing of a variable sets)
    in_callback(tracer, f"`.{name}` of a tensor")
    if name in _DEVICES:
        return eager_device()
    if name in _REFUSED:
        raise ConversionError(f"reads `.{name}` of a tensor the graph computes (eagerly "
                              "it is another: `consumers()` raises, `_id` is new on each "
                              "call)")
    try:
        getattr(eager_tensor(), name)
    except AttributeError as exc:  # (`y.name`, `y.op`: undefined eagerly)
        _undefined(str(exc))
    raise ConversionError(f"reads `.{name}` of a tensor the graph computes, which only "
                          "an eager tensor has (that line runs in Python)")
