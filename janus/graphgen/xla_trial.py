"""Deciding, on real calls, whether a specialization keeps its XLA variant
(graphgen/xla.py compiles it; this module only measures and decides).

A trial alternates real calls between the XLA variant (the candidate) and the plain
graph, in interleaved rounds (graphgen/trial.py: x p p x x p p x ..., an untimed call of
each first, early end on a clear loss). XLA is kept only when it is at least `MIN_GAIN`
faster by both of the trial's measures (the ratio of medians and the median of per-round
ratios); anything else, a tie included, keeps the plain graph: a variant that measured
slower is never kept.

A kept variant is watched: its recent calls (`WATCH` of them) are compared with the
plain graph's median of the last trial, and it is measured again by a new trial when
they are slower, or after `RECHECK_AFTER` calls (doubling each time). At most
`MAX_RECHECKS` such trials run per specialization; one that finds XLA no longer faster
turns it off for good, which `after_call` reports so the caller warns.

`verdict` is pure (times in, decision out): tests feed it made-up timings.

A decision is recorded in the graph cache (`decision`); a later process running the
same specialization takes it over (`recorded_off`, `keep_recorded`): no compilation
where XLA was off, no new trial where it was on (the variant is compiled in the
background and kept, watched as above against the recorded plain median).
"""
from __future__ import annotations

import collections
import statistics

from janus.graphgen import trial as trial_mod
from janus.graphgen.trial import EARLY_ROUNDS, ROUNDS  # noqa: F401 - (tests read them here)
from janus.operation_hooks import operation_hook

MIN_GAIN = 1.05     # XLA is kept only when at least this much faster (both measures)
WATCH = 8           # recent calls of a kept variant compared with the plain graph
RECHECK_AFTER = 200  # calls of a kept variant before it is measured again (doubles)
MAX_RECHECKS = 3    # trials after the first, per specialization


def verdict(xla: list[float], plain: list[float]) -> tuple[bool, float, str]:
    """(keep XLA, its gain, the decision as text) from the timed calls of a trial;
    `xla[i]` and `plain[i]` are round i's calls."""
    rounds = min(len(xla), len(plain))
    if rounds == 0:
        return False, 0.0, "off (no timed calls)"
    gain = trial_mod.gain(xla, plain)
    measured = (f"median {trial_mod.ms(statistics.median(xla))} with XLA vs "
                f"{trial_mod.ms(statistics.median(plain))} without, "
                f"{rounds} interleaved rounds of real calls")
    if gain >= MIN_GAIN:
        return True, gain, f"on ({gain:.2f}x faster than without: {measured})"
    return False, gain, (f"off (XLA was {gain:.2f}x the speed without it, under the "
                         f"{MIN_GAIN:.2f}x required: {measured})")


class _Runner:
    """One trial call on the XLA variant, shaped like a Specialization for the caller."""

    def __init__(self, spec, variant):
        self.spec, self.variant = spec, variant
        self.feed, self.effects, self.result = spec.feed, spec.effects, spec.result

    @operation_hook
    def call(self, inputs: list):
        return self.variant.call(inputs)


class XlaTrial(trial_mod.Rounds):
    """Real calls alternating between the XLA variant and the plain graph (see the
    module docstring); `recheck` is the number of trials before this one."""

    def __init__(self, variant, recheck: int = 0):
        super().__init__("xla", "plain")
        self.variant = variant
        self.recheck = recheck

    def runner(self, spec):
        """What this call runs: the XLA variant, or `spec` itself (its plain graph)."""
        return _Runner(spec, self.variant) if self.turn == "xla" else spec

    def conclude(self, spec) -> bool:
        """Keep the faster variant in `spec` and note the decision; True when a kept
        variant was turned off by this (re)check."""
        keep, _, text = verdict(self.times["xla"], self.times["plain"])
        spec.trial = None
        if keep:
            spec.accelerated = self.variant
            self.variant.watch = _Watch(statistics.median(self.times["plain"]),
                                        self.recheck, RECHECK_AFTER * 2 ** self.recheck)
            spec.xla = text if not self.recheck else \
                f"{text[:-1]}; measured again {self.recheck}x)"
            return False
        spec.accelerated = None
        if self.recheck:
            spec.xla = f"{text[:-1]}; measured again after it was kept: turned off)"
            return True
        spec.xla = text
        return False


class _Watch:
    """A kept variant's recent call times, against the plain graph's last median."""

    def __init__(self, plain_median: float, rechecks: int, calls_left: int):
        self.plain_median = plain_median
        self.rechecks = rechecks
        self.calls_left = calls_left
        self.recent: collections.deque = collections.deque(maxlen=WATCH)

    def due(self, seconds: float) -> bool:
        """Note one call; True when the variant should be measured again."""
        self.calls_left -= 1
        self.recent.append(seconds)
        if self.rechecks >= MAX_RECHECKS:
            return False
        slower = len(self.recent) == WATCH and \
            statistics.median(self.recent) > self.plain_median
        return slower or self.calls_left <= 0


def after_call(spec, trial, used_xla: bool, seconds: float) -> str:
    """Bookkeeping after a graph call of `spec` that took `seconds` (under the jit's
    lock; `trial` is the one the call ran under, if any; `used_xla` whether it ran the
    XLA variant). Returns "decided" when
    `spec.xla` changed, "dropped" when a kept variant was turned off by a new
    measurement (the caller warns), else ""."""
    if trial is not None:
        if spec.trial is not trial:
            return ""  # concluded or failed meanwhile
        trial.record("xla" if used_xla else "plain", seconds)
        if not trial.done:
            return ""
        return "dropped" if trial.conclude(spec) else "decided"
    variant = spec.accelerated
    watch = getattr(variant, "watch", None)
    if used_xla and watch is not None and watch.due(seconds):
        spec.accelerated = None  # the trial's plain turns run the plain graph
        spec.trial = XlaTrial(variant, recheck=watch.rechecks + 1)
        spec.xla = f"measuring again (kept before: {spec.xla})"
        return "decided"
    return ""


RECORDED = "as measured by an earlier process"


def decision(spec) -> dict | None:
    """The XLA decision of `spec` as recorded in the graph cache (None: none made here).
    keep: XLA on; text: `spec.xla`; plain_s: the plain graph's median a kept variant is
    watched against; rechecks: trials after the first so far."""
    text = spec.xla
    if RECORDED in text:
        return None  # taken over from the record: nothing new
    watch = getattr(spec.accelerated, "watch", None)
    if text.startswith("on") and watch is not None:
        return {"keep": True, "text": text, "plain_s": float(watch.plain_median),
                "rechecks": int(watch.rechecks)}
    if text.startswith("off"):
        return {"keep": False, "text": text, "plain_s": 0.0, "rechecks": 0}
    return None


def _recorded_text(text: str) -> str:
    return f"{text[:-1]}; {RECORDED})" if text.endswith(")") else f"{text} ({RECORDED})"


def recorded_off(spec, recorded: dict) -> None:
    """XLA stays off for `spec`, as recorded: nothing is compiled or measured."""
    spec.xla = _recorded_text(recorded["text"])


def keep_recorded(spec, variant, recorded: dict) -> None:
    """The compiled `variant` serves `spec` at once, as recorded (no trial), watched."""
    rechecks = recorded["rechecks"]
    variant.watch = _Watch(recorded["plain_s"], rechecks, RECHECK_AFTER * 2 ** rechecks)
    spec.trial = None
    spec.accelerated = variant
    spec.xla = _recorded_text(recorded["text"])


def failed(spec, exc: BaseException) -> None:
    """An XLA call of `spec` failed (trial or kept): the plain graph serves from now on."""
    first = (str(exc).splitlines() or [""])[0][:120]
    spec.xla = f"off (failed: {type(exc).__name__}: {first})" if first else \
        f"off (failed: {type(exc).__name__})"
    spec.trial = spec.accelerated = None
