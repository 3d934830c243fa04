"""A tape used inside a loop or branch the graph builds, while it records outside it.

Eagerly, `tape.stop_recording()` inside a loop body pauses the tape for those ops, and
`tape.watch(x)` / `tape.gradient(...)` act on that iteration's tensors. In a graph, the
loop is one While op (a branch, one If op) that the tape records as a whole; its
gradient (TF's, built from the body function) knows nothing of what the tape was told
inside the body:

    with tf.GradientTape() as tape:             # records outside the loop
        for t in range(n):                      # janus: one tf.while_loop
            with tape.stop_recording():
                baseline = f(w)                 # eager: no gradient through it
            terms.append(g(w) - baseline)       # graph: the While's gradient has it

So the trace refuses `watch`, `stop_recording`, `reset` and `watched_variables` of a
tape (any method of a forward accumulator) entered outside the body being built; the
generation retreats to a specialized plan or runs the call plainly. `gradient` and
`jacobian` are fine there: they differentiate what the tape recorded, ops outside the
body. A tape entered inside the body (a training step per iteration) is that body's own.
"""
from __future__ import annotations

import tensorflow as tf

from janus import user_attributes
from janus.errors import ConversionError

TAPES = (tf.GradientTape, tf.autodiff.ForwardAccumulator)
TOLD = frozenset({"watch", "stop_recording", "reset", "watched_variables"})


def entered(tracer, manager) -> None:
    """A `with` statement enters `manager`: a tape's home is the graph being built."""
    if isinstance(manager, TAPES):
        tracer.tape_homes[id(manager)] = (manager, tf.compat.v1.get_default_graph())


def check_call(tracer, fn) -> None:
    """`fn` is about to be called in the trace: refuse a tape's method where the tape
    records outside the body being built."""
    owner = user_attributes.get(fn, "__self__")
    if isinstance(owner, TAPES) or any(fn is t for t in TAPES):
        tracer.tape_calls += 1  # (graphgen/loop_gradients.py: no batching around them)
    if not isinstance(owner, TAPES) or isinstance(owner, tf.GradientTape) and \
            user_attributes.get(fn, "__name__", "") not in TOLD:
        return
    home = tracer.tape_homes.get(id(owner), (owner, tracer.graph))[1]
    if home is not None and home is not tf.compat.v1.get_default_graph():
        raise ConversionError(
            f"`{type(owner).__name__}.{getattr(fn, '__name__', '?')}()` inside a loop or "
            "branch made a tf.while_loop/tf.cond while the tape records outside it: the "
            "loop's gradient would not see it")
