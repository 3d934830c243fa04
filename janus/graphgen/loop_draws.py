"""numpy draws in the body of a loop that breaks on a tensor (graphgen/exits.py).

    for t in range(N):                  c = <count after iteration 0, at its exit test
        u = rng.uniform()        ->           if it stopped there>
        if <tensor test>:               while i < N and not stop:
            break                           u = buffer[c]; c = c + 1   (d draws: c + j)
        v = rng.random()                    stop = <tensor test>       (count at the test)
                                            c = c_at_test if stop else c + 1 ...
                                        count = c   (a graph output: the write-back redraws
                                                     exactly that many; K = c0 + N * d)

Each stream (graphgen/host_draws.py) the peeled first iteration drew from d times is a
loop variable, its count an int64 tensor: the body (traced once) must draw d times from
it too, and from no stream the first iteration did not draw from. Where an iteration
stops at an exit test, the draws Python made before the test count, those after do not
(the count at the test, as every carried value: `Exit.counts`). The loop's number of
iterations must be static (a range's length): K, the uniforms fed, is the count before
the loop plus N * d.
"""
from __future__ import annotations

import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen.loop_values import choose


def _as_count(value) -> tf.Tensor:
    return tf.constant(value, tf.int64) if isinstance(value, int) else tf.cast(value, tf.int64)


def snapshot(tracer) -> dict:
    """Each stream's count now (at an exit test)."""
    return {k: s.count for k, s in tracer.draw_streams.items()}


def _at_stop(record, key, after, start: int = 0) -> tf.Tensor:
    """The stream's count after an iteration: at the first exit test that stopped it."""
    after = _as_count(after)
    for (condition, _, _), counts in reversed(list(zip(record.recorded, record.counts))):
        after = choose(condition, _as_count(counts.get(key, start)), after)
    return after


class LoopDraws:
    """The streams one generalized loop draws from, their counts carried as its state."""

    def __init__(self, tracer):
        self.tracer = tracer
        self.before = {k: s.bound for k, s in tracer.draw_streams.items()}
        self.per: dict = {}
        self.keys: list = []
        self.first_bound: dict = {}
        self.marks: dict = {}
        self.saved_graph = None

    def start(self, first, trips) -> list:
        """After the peeled iteration `first`: the drawing streams' counts (loop state)."""
        streams = self.tracer.draw_streams
        for key, stream in streams.items():
            drawn = stream.bound - self.before.get(key, 0)
            if drawn:
                self.per[key] = drawn
                self.first_bound[key] = stream.bound
        self.keys = list(self.per)
        if self.keys and not isinstance(trips, int):
            raise ConversionError("numpy draws in a loop whose number of iterations is not "
                                  "known when traced (no bound on the uniforms to feed)")
        self.trips = trips
        return [_at_stop(first, k, streams[k].count) for k in self.keys]

    def enter(self, counts) -> None:
        """At the top of the loop body: each stream reads from its carried count."""
        tracer = self.tracer
        self.marks = {k: s.bound for k, s in tracer.draw_streams.items()}
        for key, count in zip(self.keys, counts):
            tracer.draw_streams[key].count = count
        self.saved_graph = tracer.draw_graph
        tracer.draw_graph = tf.compat.v1.get_default_graph()

    def leave(self) -> None:
        """At the end of the loop body's trace (also where it failed)."""
        self.tracer.draw_graph = self.saved_graph

    def after_body(self, record) -> list:
        """The counts after one iteration (the body drew as the first iteration did)."""
        streams = self.tracer.draw_streams
        for key, stream in streams.items():
            if stream.bound - self.marks.get(key, stream.bound) != self.per.get(key, 0):
                raise ConversionError("a loop's body draws from a numpy RNG other than "
                                      "its first iteration did")
        return [_at_stop(record, k, streams[k].count) for k in self.keys]

    def finish(self, counts) -> None:
        """After the loop: each stream's count is the loop's output, its bound static."""
        for key, count in zip(self.keys, counts):
            stream = self.tracer.draw_streams[key]
            stream.count = count
            stream.bound = self.first_bound[key] + (self.trips - 1) * self.per[key]
