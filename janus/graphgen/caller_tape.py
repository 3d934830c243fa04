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
    other splits               TF's one op, between marks the tape records: each output
                               is handed out through a mark whose backward notes that
                               the gradient being computed reached it, each input the
                               outputs do not all reach goes in through a mark whose
                               backward passes TF's gradient on only if a noted output
                               reaches that input, else None, as Python's tape has it
                               (F147 (3); TF's backward still runs once: the marks are
                               identities). A variable needing a mark where the graph
                               runs otherwise than through its own ConcreteFunction (an
                               XLA variant, a graph loaded from the cache) keeps TF's op.

`TapeView.inexact` also gathers the other reasons a graph is not Python's view under a
tape: a branch or loop on a path (connectivity.unconditional), an item of a list the
feed stacks but the graph may not read (connectivity.every_item_reached), an op without
a gradient on a path from an input to an output, a gradient function of the program's
reading its state (run when the tape first asks: graphgen/python_gradients.py), rows of
an input a loop gathers (an embedding lookup per time step: eagerly IndexedSlices, a row
per lookup, through TF's loop one dense tensor, which Adam and RMSprop apply otherwise:
F161).
"""
from __future__ import annotations

import tensorflow as tf
from tensorflow.python.eager import record
from tensorflow.python.ops.resource_variable_ops import variable_accessed

from janus.graphgen import calls, connectivity, python_gradients
from janus.graphgen.traced_gradients import gathered_in_loops
from janus.operation_hooks import operation_hook


class TapeView:
    """A specialization's graph as a caller's tape sees it (found once, on the first
    call a tape may record)."""

    def __init__(self, concrete, visible: int | None, stacked: list[int]):
        graph = concrete.graph
        self.concrete = concrete
        if hasattr(concrete, "handles"):  # (a graph loaded from the cache: cache/portable.py)
            self.captured = [*concrete.handles, *concrete.function.captured_inputs]
            self.variables = list(concrete.variables)
        else:
            self.captured = list(concrete.captured_inputs)
            self.variables = list(graph.variables)
        self.exact = connectivity.unconditional(graph, visible) and \
            connectivity.lacking_gradient(graph) is None and \
            not python_gradients.reads_state(graph)  # (F341)
        gathered = gathered_in_loops(graph)  # (F161: IndexedSlices eagerly, dense here; a
        # list the feed stacks is read item by item eagerly: dense there too)
        self.gathered = [k for k, p in enumerate(graph.inputs)
                         if id(p) in gathered and k not in stacked]
        self.stacked_exact = not stacked or visible is not None and \
            connectivity.every_item_reached(graph, stacked, visible)
        self.stacked = stacked
        count = len(graph.outputs) if visible is None else visible
        reaches = connectivity.input_reaches(graph, count) if self.exact else []
        self.reaches = reaches  # per output: frozenset of input indices, None if no gradient
        self.detached = tuple(k for k, r in enumerate(reaches) if r is not None and not r)
        # inputs TF's one op differentiates though no output a caller sees reads them
        # (read only for an op whose value is dropped: graphgen/dead_ends.py fetches it;
        # a loop's invariant): TF gives zeros, Python None
        self.phantom = sorted(connectivity.coarse_reaches(graph, len(graph.outputs)) -
                              frozenset().union(*[r for r in reaches if r])) \
            if self.exact else []
        sets = {r for r in reaches if r}
        self.uniform = len(sets) <= 1  # every output reaching some input reaches the same
        self.candidates = sorted(set().union(*sets)) if not self.uniform else []  # (only
        # they tell, per call, which outputs reach no watched input)

    def inexact(self, inputs: list) -> bool:
        """Whether a tape recording this call (`inputs`: the feed's) would not get
        Python's gradients."""
        if not self.exact:
            return True
        if not self._recordable(inputs):
            return True
        if not self.stacked_exact and record.should_record_backprop(
                [inputs[k] for k in self.stacked]):
            return True
        feed = len(inputs)  # (a gathered variable: watched once the call reads it)
        return any(k >= feed or record.should_record_backprop([inputs[k]])
                   for k in self.gathered)

    def _recordable(self, inputs: list) -> bool:
        """Whether TF can build what a tape recording this call needs (calls.py
        `build_tape_functions`: built now, before anything runs); if not, no call of this
        graph is recorded from now on (each runs plainly, as the caller's tape sees it)."""
        for variable in self.variables:  # (accessed first, as TF's call does)
            variable_accessed(variable)
        try:
            calls.build_tape_functions(self.concrete, inputs, self.captured)
        except Exception:  # noqa: BLE001 - TF could not differentiate the graph (F336)
            self.exact = False
            return False
        return True

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

    @operation_hook
    def call(self, call, inputs: list, captured_call=None) -> list:
        """The results of `call(inputs)` (the graph run), as a caller's tape should see
        them: detached where no watched input is reached; where outputs reach different
        watched inputs, run between marks (see the module docstring; `captured_call(
        inputs, captured)`: the graph with its captured inputs replaced, or None)."""
        masked = self._watched(inputs, self.phantom) if self.phantom else frozenset()
        split = False
        if not self.uniform:
            watched = self._watched(inputs, self.candidates)
            groups = {r & watched for r in self.reaches if r is not None and r & watched}
            if len(groups) > 1:
                split = True
                masked |= frozenset(set().union(*groups) - frozenset.intersection(*groups))
        feed = len(inputs)
        if not masked or any(j >= feed for j in masked) and captured_call is None:
            return self.detach(call(inputs), inputs)  # (TF's one op: see the docstring)
        tape_pass = _Pass(self.reaches)
        inputs, captured = list(inputs), list(self.captured)
        for j in sorted(masked):
            if j < feed:
                inputs[j] = _mark(inputs[j], tape_pass.input_backward(j))
            else:
                captured[j - feed] = _mark(captured[j - feed], tape_pass.input_backward(j))
        if any(j >= feed for j in masked):
            results = captured_call(inputs, captured)
        else:
            results = call(inputs)
        results = self.detach(results, inputs)
        if not split:  # (only inputs no output reads: their marks give None)
            return results
        return [_mark(r, tape_pass.output_backward(k))
                if k < len(self.reaches) and self.reaches[k] and isinstance(r, tf.Tensor)
                else r for k, r in enumerate(results)]

    def _watched(self, inputs: list, candidates=None) -> frozenset:
        """The inputs (by graph input index, of `candidates`) a tape records gradients
        for. The graph's variables are marked accessed first, as TF's call does."""
        for variable in self.variables:
            variable_accessed(variable)
        feed, captured = len(inputs), self.captured
        return frozenset(k for k in (self.candidates if candidates is None else candidates)
                         if record.should_record_backprop(
                             [inputs[k] if k < feed else captured[k - feed]]))


class _Pass:
    """Which outputs of one graph call the gradient a tape is computing reached. A tape
    calls the output marks' backward before the graph's, the input marks' after it: an
    output mark called after an input mark starts the next gradient computation."""

    def __init__(self, reaches: list):
        self.reaches = reaches
        self.used: set = set()
        self.inputs_seen = False

    def output_backward(self, k: int):
        def backward(grad):
            if self.inputs_seen:
                self.used, self.inputs_seen = set(), False
            self.used.add(k)
            return [grad]
        return backward

    def input_backward(self, j: int):
        def backward(grad):
            self.inputs_seen = True
            reached = any(self.reaches[k] and j in self.reaches[k] for k in self.used)
            return [grad if reached else None]
        return backward


def _mark(tensor, backward):
    """`tensor` through an identity the tapes record with `backward`."""
    with record.stop_recording():
        marked = tf.identity(tensor)
    record.record_operation("JanusTapeMark", [marked], [tensor], backward)
    return marked
