"""Generator rules (session 39) for F470: library code that counts or logs in Python (a
Progbar, a library's log) while a heartbeat thread runs Python of its own, in a step
whose trace then fails (`np.asarray` of a tensor of the trace) or keeps going. A trace
that ran such a call while the thread ran could not tell its change from the thread's;
a failed one's plain rerun made it again (a count once too many). janus now profiles,
not traces, while that is so (janus/profiler/thread_writes.py); whatever the timing,
each call's results and the counts must be plain Python's.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper
from tests.fuzz.rules_s30_library_objects import _BAR
from tests.fuzz.rules_s31_library_state import _LIBRARY
from tests.fuzz.rules_s34_threads import _THREADS

_COUNTS = [
    "PBAR.add(1, values=[('x', tf.reduce_max(x))])",
    "PBAR.add(1)",
    "tf.nest.map_structure(SLOG.log, 1.0)",
    "tf.nest.map_structure(SARGS.log.log, float(n))",
]

_READS = [
    "acc = acc + tf.cast(pseen() + slen(), acc.dtype) * 0.001",
    "out.append(pseen() + slen())",
]

_FAILS = [
    "acc = acc + float(np.asarray(tf.reduce_sum(acc))) * 0.0",  # (a trace fails here)
    "acc = acc * 1.0",
]


@rule(0.4, max_depth=2)
def library_counts_beside_a_heartbeat(g):
    """(F470) A library counts or logs while a heartbeat thread runs Python; the step's
    trace may then fail."""
    _helper(g, _BAR)
    _helper(g, _LIBRARY)
    _helper(g, _THREADS)
    count, read, fail = g.choice(_COUNTS), g.choice(_READS), g.choice(_FAILS)
    return g.choice([
        [count, read, fail],
        [f"if {g.pcond()}:", f"    {count}", fail, read],
        [count, fail],
    ])
