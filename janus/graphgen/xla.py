"""XLA as a per-specialization decision, measured (opt-in: `janus.config.xla = True`).

XLA helps some graphs (fused RNN/LM cells) and hurts others (convolutions on CPU), and
cannot compile graphs of dynamic size. So janus tries it only on a specialization whose
inputs all have static shapes and that has no in-graph guards or recursion, after the
specialization has run a few times: it builds the same graph with `jit_compile=True`,
runs real calls alternately on both (the XLA variant's first call, which compiles, is
not timed) and keeps the faster one. A variant that fails to compile fails before it
changes anything, and the call runs on the plain graph instead.
"""
from __future__ import annotations

import statistics

ROUNDS = 4          # timed calls per variant
MIN_GAIN = 1.03     # XLA must be at least this much faster to be kept


def eligible(spec) -> bool:
    static = all(all(d is not None for d in shape) for _, _, (_, shape) in spec.inputs)
    return static and not spec.in_graph and not spec.subgraphs and not spec.xla


class XlaTrial:
    def __init__(self, candidate):
        self.candidate = candidate
        self.times = {"xla": [], "plain": []}
        self.compiled = False
        self.turn = "xla"

    def runner(self, spec):
        return self.candidate if self.turn == "xla" else spec

    def record(self, seconds: float) -> None:
        if self.turn == "xla" and not self.compiled:
            self.compiled = True  # the first XLA call compiled: not timed
        else:
            self.times[self.turn].append(seconds)
        self.turn = "plain" if self.turn == "xla" else "xla"

    @property
    def done(self) -> bool:
        return min(len(t) for t in self.times.values()) >= ROUNDS

    def conclude(self, spec) -> None:
        """Keep the faster variant in `spec` and note the decision."""
        xla, plain = (statistics.median(self.times[k]) for k in ("xla", "plain"))
        gain = plain / xla
        if gain >= MIN_GAIN:
            for field in ("concrete", "feed", "result", "effects", "inputs"):
                setattr(spec, field, getattr(self.candidate, field))
            spec.xla = f"on ({gain:.2f}x faster than without)"
        else:
            spec.xla = f"off (XLA was {gain:.2f}x the speed without it)"
        spec.trial = None

    def failed(self, spec, exc: Exception) -> None:
        spec.xla = f"off (does not compile: {type(exc).__name__}: {str(exc).splitlines()[0][:120]})"
        spec.trial = None
