"""Per-function counters: how each call ran and where the time went."""
from __future__ import annotations

import collections
import dataclasses


OTHER = "(other)"


@dataclasses.dataclass
class Stats:
    calls: int = 0
    graph_calls: int = 0
    profile_calls: int = 0
    fallback_calls: int = 0
    generations: int = 0
    generation_failures: int = 0
    internal_errors: int = 0
    segmented_calls: int = 0  # calls run split at graph breaks (fallback/segmented.py)
    segment_graph_calls: int = 0  # segments of those calls that ran as graphs
    plain_calls: int = 0  # calls run plainly: their graph does not pay (graphgen/plain_trial.py)
    guard_failures: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    fallback_reasons: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    time_profiling: float = 0.0
    time_generating: float = 0.0
    time_graph: float = 0.0
    time_fallback: float = 0.0
    time_guards: float = 0.0
    time_plain: float = 0.0

    def count(self, counter: collections.Counter, key, limit: int) -> bool:
        """counter[key] += 1, keeping at most `limit` distinct keys (later ones are
        counted under OTHER). False when the limit was hit."""
        if key in counter or len(counter) < limit:
            counter[key] += 1
            return True
        counter[OTHER] += 1
        return False

    def as_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["guard_failures"] = dict(self.guard_failures)
        d["fallback_reasons"] = dict(self.fallback_reasons)
        return d

    def __str__(self) -> str:
        return (f"calls={self.calls} graph={self.graph_calls} profiled={self.profile_calls} "
                f"fallback={self.fallback_calls} generations={self.generations}" +
                (f" plain={self.plain_calls}" if self.plain_calls else ""))
