"""Interleaved trials: real calls alternating between two ways of running one
specialization, timed alike, and the comparison that decides between them.

Used by graphgen/xla_trial.py (the XLA variant against the plain graph),
graphgen/plain_trial.py (the graph against plain Python) and fallback/trial.py (a
segment's graph against its plain stretch). One of the two is the
*candidate* (what the trial may switch to), the other the *incumbent* (what runs when
the trial finds no clear gain).

`Rounds` chooses which of the two a call runs: one untimed call of each (a first call
pays one-time costs), then `ROUNDS` timed rounds in the order c i i c c i i c ... (each
round is one call of each, adjacent, so a change of the machine's load hits both alike).
It ends early once every timed candidate call was slower than every timed incumbent
call, or `CLEAR_WIN` times faster than every one (`EARLY_ROUNDS` rounds at least: a
graph call of 12 ms against its 170 ms eager stretch needs no more plain runs).

`gain` compares the timed calls by two robust measures at once and returns the smaller:
the ratio of the medians of all timed calls (incumbent / candidate), and the median of
the per-round ratios (incumbent_i / candidate_i). A caller keeps the candidate only when
it is at least as much faster as it requires. Times are wall time (`time.perf_counter`):
a graph's ops run on TensorFlow's own threads, which the calling thread's CPU time does
not see (it made a tiny graph look faster than the eager ops it replaced).

Pure bookkeeping (times in, decisions out): tests feed it made-up timings.
"""
from __future__ import annotations

import statistics

ROUNDS = 6          # timed rounds (one call of each) before the decision
EARLY_ROUNDS = 2    # rounds after which a clear loss (or win) of the candidate ends it
CLEAR_WIN = 3.0     # a candidate this many times faster than every incumbent call wins


def ms(seconds: float) -> str:
    """`seconds` as milliseconds, for decision texts."""
    return f"{seconds * 1e3:.3g} ms"


def gain(candidate: list[float], incumbent: list[float]) -> float:
    """How many times faster the candidate ran than the incumbent, by the more cautious of
    two measures (see the module docstring); `candidate[i]` and `incumbent[i]` are round
    i's calls. 0.0 without timed calls."""
    rounds = min(len(candidate), len(incumbent))
    if rounds == 0:
        return 0.0
    c_median, i_median = statistics.median(candidate), statistics.median(incumbent)
    paired = statistics.median(i / c if c > 0 else float("inf")
                               for c, i in zip(candidate[:rounds], incumbent[:rounds]))
    return min(i_median / c_median if c_median > 0 else float("inf"), paired)


class Rounds:
    """Which of two kinds of call runs next, and the timed calls so far (see the module
    docstring); kinds are named by the caller ("xla"/"plain", "plain"/"graph")."""

    def __init__(self, candidate: str, incumbent: str, rounds: int = ROUNDS):
        self.candidate, self.incumbent = candidate, incumbent
        self.rounds = rounds
        self.times: dict[str, list[float]] = {candidate: [], incumbent: []}
        self.untimed = {candidate: 1, incumbent: 1}  # each kind's first call warms it up
        self.turn = candidate
        self._timed = 0  # timed calls so far (drives the c i i c order)

    def record(self, kind: str, seconds: float) -> None:
        """A call of `kind` (what `turn` chose) took `seconds`: note it and choose the
        next one. A call that was not this turn's (another thread's, started before the
        turn changed) does not count."""
        if kind != self.turn:
            return
        other = self.incumbent if kind == self.candidate else self.candidate
        if self.untimed[kind]:
            self.untimed[kind] -= 1
            self.turn = other
            return
        self.times[kind].append(seconds)
        self._timed += 1
        self.turn = self.candidate if self._timed % 4 in (0, 3) else self.incumbent

    @property
    def done(self) -> bool:
        cand, inc = self.times[self.candidate], self.times[self.incumbent]
        rounds = min(len(cand), len(inc))
        if rounds >= self.rounds:
            return True
        return rounds >= EARLY_ROUNDS and len(cand) == len(inc) and \
            (min(cand) > max(inc) or max(cand) * CLEAR_WIN < min(inc))

    def medians(self) -> tuple[float, float]:
        """(candidate, incumbent) medians of the timed calls (inf without any)."""
        cand, inc = self.times[self.candidate], self.times[self.incumbent]
        return (statistics.median(cand) if cand else float("inf"),
                statistics.median(inc) if inc else float("inf"))

    def gain(self) -> float:
        return gain(self.times[self.candidate], self.times[self.incumbent])
