"""A bias's gradient in a graph sums as eager code's does.

In a graph (only there), oneDNN's layout pass fuses the `Conv2DBackpropFilter` and the
`BiasAddGrad` that read the same incoming gradient into one kernel, which sums the bias's
gradient in another order than eager's `BiasAddGrad` (a LeNet's conv biases left eager's
values at the first training step a graph ran; not a Grappler pass: the call options
cannot turn it off). While janus traces, the `BiasAddGrad` of `BiasAdd`'s gradient reads
the incoming gradient through a `Snapshot` (a copy Grappler keeps):

    BiasAddGrad(g)              ->  BiasAddGrad(Snapshot(g))
    Conv2DBackpropFilter(.., g)     Conv2DBackpropFilter(.., g)     (not fused: eager's sum)

Anywhere else (eager code, other graphs) the gradient is TensorFlow's own, unchanged.
"""
from __future__ import annotations

from tensorflow.python.framework import ops
from tensorflow.python.ops import gen_array_ops

from janus.graphgen import active
from janus.patches import once


@once
def install() -> None:
    """Wrap `BiasAdd`'s registered gradient (once per process, on the first trace, and
    only where TensorFlow runs oneDNN's graph rewrites)."""
    if not _onednn():
        return
    entry = getattr(ops._gradient_registry, "_registry", {}).get("BiasAdd")
    if not isinstance(entry, dict) or not callable(entry.get("type")):
        return  # (another TF layout: its gradient stays)
    original = entry["type"]

    def bias_add_gradient(op, received):
        if active.get() is None or not ops.inside_function():
            return original(op, received)
        copy = gen_array_ops.snapshot(received)
        # (the input's gradient stays `received` itself: the copy feeds BiasAddGrad only)
        return [received if g is copy else g for g in original(op, copy)]

    bias_add_gradient.janus_wraps = original
    entry["type"] = bias_add_gradient


def _onednn() -> bool:
    try:
        from tensorflow.python.util import _pywrap_util_port
        return bool(_pywrap_util_port.IsMklEnabled())
    except (ImportError, AttributeError):
        return True  # (unknown: the copy is harmless)
