"""A `tf.data` iterator advanced eagerly while janus traces: refused before the element is
taken (F431).

Library code the step calls runs as it is while janus traces, and what it runs under
`tf.init_scope()` runs eagerly, at once. An element an iterator hands out there would be
taken once, while tracing (once more for every retrace), and never when the graph runs:

    def take(self):                 # a library's loader, called by the step as a statement
        with tf.init_scope():
            next(self.iterator)     ConversionError before the element is taken: the
                                    call runs plainly, one element per call as in Python

A graph's own `IteratorGetNext` (an iterator advanced in the graph, not eagerly) is not
this: it runs when the graph runs. Outside a trace nothing changes.
"""
from __future__ import annotations

from tensorflow.python.data.ops import iterator_ops
from tensorflow.python.eager import context

from janus.errors import ConversionError
from janus.graphgen import active
from janus.operation_hooks import operation_hook
from janus.patches import once

_METHODS = ("_next_internal", "get_next_as_optional")


def _refuse_while_tracing(iterator) -> None:
    if active.get() is not None and context.executing_eagerly():
        raise ConversionError(
            f"a library call takes an element of a tf.data iterator ({type(iterator).__name__}) "
            "eagerly while janus traces (under tf.init_scope): a graph would take it once, "
            "while tracing, and never when it runs")


def _wrapped(original):
    @operation_hook  # (the iterator's own errors, OutOfRangeError, are the program's)
    def take(self, *args, **kwargs):
        _refuse_while_tracing(self)
        return original(self, *args, **kwargs)

    take.janus_wraps = original
    return take


@once
def install() -> None:
    """Wrap the eager iterator's element-taking methods (once per process, on the first
    trace); another TF layout without them keeps its own."""
    for name in _METHODS:
        original = getattr(iterator_ops.OwnedIterator, name, None)
        if callable(original):
            setattr(iterator_ops.OwnedIterator, name, _wrapped(original))
