"""Generator rules (session 34) from session 34's round on traces other threads disturb
(F384): a program with a monitor thread that wakes every millisecond and runs a little
Python of its own (a progress bar's monitor, a heartbeat), and one idle in a wait, while
the step's library code changes state as janus traces it (a log added to on every call,
a cache filled once: rules_s31_library_state.py). Traces the heartbeat lands in are
inconclusive (graphgen/other_threads.py): their graph runs the call once, later traces
come less and less often (inconclusive_tries.py `inconclusive_wait`); whatever the timing, each
call's results and the logs must be plain Python's. (The generator's programs run in
one thread otherwise: the deterministic interleavings are tests/test_inconclusive_traces.py
and tests/graphgen/test_other_threads.py.)

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper
from tests.fuzz.rules_s31_library_state import _CHANGES, _LIBRARY, _USES

_THREADS = '''\
import threading as _threading


def _heartbeat(beats=3000):
    """A monitor: wakes every millisecond for a few seconds, counts in its own list."""
    stop, seen = _threading.Event(), [0]
    while seen[0] < beats and not stop.wait(0.001):
        seen[0] += 1


_threading.Thread(target=_heartbeat, name="fuzz-heartbeat", daemon=True).start()
_threading.Thread(target=_threading.Event().wait, args=(30.0,), name="fuzz-idle",
                  daemon=True).start()
'''


@rule(0.3, max_depth=2)
def library_state_with_a_heartbeat(g):
    """(F384) Library code changes state as janus traces the step (a log, a cache)
    while a heartbeat thread wakes every millisecond and another waits idle."""
    _helper(g, _LIBRARY)
    _helper(g, _THREADS)
    change, use = g.choice(_CHANGES), g.choice(_USES)
    return g.choice([
        [change, use],
        [f"if {g.pcond()}:", f"    {change}", use],
        [change],
    ])
