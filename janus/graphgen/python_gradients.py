"""Graphs whose gradient runs the program's Python, which reads the program's state.

    @tf.custom_gradient
    def rev(x):
        return tf.identity(x), lambda dy: -LAM * dy       (LAM: guarded, or fed)

    with tf.GradientTape() as tape:                        a caller's tape (or a segment
        loss = step(x)                   # janus.jit         of a split function, under
    tape.gradient(loss, x)                                   the tape of the line before)

TF builds the backward of a graph call once, when a caller's tape first asks for it:
the gradient function runs then, after janus's trace, reading `LAM` as it is at that
moment (a number janus fed is back to the Python float it stands for) and folding it
into the backward kept for every later call (F341). Where the unconverted code behind a
gradient decorator read the program's state (unconverted_reads guarded or fed it), the
trace notes its graph here, and a caller's tape recording a call of it runs that call
plainly (graphgen/caller_tape.py); a tape inside the traced function differentiates
while janus traces, where those reads are guarded.
"""
from __future__ import annotations

import weakref

_GRAPHS: "weakref.WeakSet" = weakref.WeakSet()


def note(graph) -> None:
    """`graph`'s gradient runs Python code reading the program's state."""
    if graph is not None:
        _GRAPHS.add(graph)


def reads_state(graph) -> bool:
    """Whether `graph` was noted (its backward, built later, would fold what it reads)."""
    try:
        return graph in _GRAPHS
    except TypeError:  # (an object no weak reference reaches: a graph from the cache)
        return False
