"""What a caller's gradient tape sees of a graph call, and when that is Python's view.

    with tf.GradientTape() as tape:
        loss, acc = step(x)          # step: janus.jit; a graph runs
    tape.gradient(acc, w)            # Python: None (acc reads no variable)

TF records a graph call as one op reading all its inputs and making all its outputs,
and differentiates all of them together: `tape.gradient(acc, w)` is zeros, where the
tape of the plain call (one record per op) has None, and an op without a gradient
(`tf.unique`) anywhere on a path fails the call (LookupError) even if the caller never
asks for that path (F147). Per output, for the inputs the tapes watch:

    an output reaching none    handed out detached (a copy the tapes did not see: None)
    outputs reaching the same  one op reading those inputs: the same gradients
    other splits               TF's one op (left as TF has it: a target reading only
                               outputs that do not reach a watched input gets zeros for
                               it, Python None; a record per group of outputs would run
                               TF's backward once per group, and the everyday case, a
                               segment's outputs all summed into one loss, would pay)

`TapeView.inexact` also gathers the other reasons a graph is not Python's view under a
tape: a branch or loop on a path (connectivity.unconditional), an item of a list the
feed stacks but the graph may not read (connectivity.every_item_reached), an op without
a gradient on a path from an input to an output.
"""
from __future__ import annotations

import tensorflow as tf
from tensorflow.python.eager import record
from tensorflow.python.ops.resource_variable_ops import variable_accessed

from janus.graphgen import connectivity


class TapeView:
    """A specialization's graph as a caller's tape sees it (found once, on the first
    call a tape may record)."""

    def __init__(self, concrete, visible: int | None, stacked: list[int]):
        graph = concrete.graph
        if hasattr(concrete, "handles"):  # (a graph loaded from the cache: cache/portable.py)
            self.captured = [*concrete.handles, *concrete.function.captured_inputs]
            self.variables = list(concrete.variables)
        else:
            self.captured = list(concrete.captured_inputs)
            self.variables = list(graph.variables)
        self.exact = connectivity.unconditional(graph, visible) and \
            connectivity.lacking_gradient(graph) is None
        self.stacked_exact = not stacked or visible is not None and \
            connectivity.every_item_reached(graph, stacked, visible)
        self.stacked = stacked
        count = len(graph.outputs) if visible is None else visible
        reaches = connectivity.input_reaches(graph, count) if self.exact else []
        self.reaches = reaches  # per output: frozenset of input indices, None if no gradient
        self.detached = tuple(k for k, r in enumerate(reaches) if r is not None and not r)
        sets = {r for r in reaches if r}
        self.uniform = len(sets) <= 1  # every output reaching some input reaches the same
        self.candidates = sorted(set().union(*sets)) if not self.uniform else []  # (only
        # they tell, per call, which outputs reach no watched input)

    def inexact(self, inputs: list) -> bool:
        """Whether a tape recording this call (`inputs`: the feed's) would not get
        Python's gradients."""
        if not self.exact:
            return True
        if not self.stacked_exact and record.should_record_backprop(
                [inputs[k] for k in self.stacked]):
            return True
        return False

    def detach(self, results, inputs: list) -> list:
        """`results` with the outputs that reach no watched input replaced by copies no
        tape saw (their gradient is None, as in Python)."""
        detached = self.detached
        if not self.uniform:
            watched = self._watched(inputs)
            detached = tuple(k for k, r in enumerate(self.reaches)
                             if r is not None and not r & watched)
        if not isinstance(results, (list, tuple)):
            results = [results]
        if not detached:
            return results
        results = list(results)
        with record.stop_recording():
            for k in detached:
                if k < len(results) and isinstance(results[k], tf.Tensor):
                    results[k] = tf.identity(results[k])
        return results

    def _watched(self, inputs: list) -> frozenset:
        """The inputs (by graph input index) a tape records gradients for. The graph's
        variables are marked accessed first, as TF's call of the graph does."""
        for variable in self.variables:
            variable_accessed(variable)
        feed, captured = len(inputs), self.captured
        return frozenset(k for k in self.candidates if record.should_record_backprop(
            [inputs[k] if k < feed else captured[k - feed]]))
