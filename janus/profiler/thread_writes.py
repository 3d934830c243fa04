"""Library calls that change the program's state while another thread runs Python: no
trace while they do (F470).

    PBAR.add(1, values=[...])       a Progbar counts in Python (`_seen_so_far`)
    (a monitor thread, meanwhile)   wakes every millisecond, counts in its own list

A trace runs library code as it is, so what that code changes in the program's state is
the trace's; a trace that fails puts it back (graphgen/own_writes.py) and the call runs
plainly, making its own change once. When another thread ran Python during that library
call, whose change it was cannot be told: it is kept, and the plain rerun makes it again
(a count once too many). So while profiling (plain runs: every change is the call's own
to make), when other threads exist, `Looks` looks at the state a trace would reach
around each library call the program makes; the calls that changed it, in a profiled
call during which another thread ran, are noted (`Profile.thread_writes`, the last
profiled call's). While the last profiled call noted one, janus does not trace
(inconclusive_tries.py `ThreadWait`): the call runs profiled again, telling whether the thread
still runs, less and less often (the calls in between run plainly), and the first call
that notes none lets the next one trace.

Without other threads nothing is looked at (a failed trace's own changes are put back
exactly); a thread that only waits does not run during the call.
"""
from __future__ import annotations

import contextlib

from janus.graphgen import leftover_tensors, other_threads, own_writes


class Looks:
    """The state one profiled call can reach, looked at around its library calls."""

    def __init__(self, function, args: tuple, kwargs: dict):
        self.window = other_threads.Window()
        self.seen: dict = {}
        self.changed: list = []  # (site key, where, what), in call order
        self.depth = 0
        if self.window.before:  # (other threads exist: janus's own are not counted)
            cells = tuple(getattr(function, "__closure__", None) or ())
            holders = leftover_tensors.state_reached(
                function, args, kwargs, getattr(function, "__globals__", {}), cells)
            self.seen = {id(h): (h, own_writes.copy_state(h)) for h in holders}

    @contextlib.contextmanager
    def call(self, key: tuple, where: tuple, fn, args: tuple, kwargs: dict):
        """Around one library call of the profiled program at site `key`."""
        if not self.seen or self.depth or own_writes.looked_past(fn, args, kwargs):
            yield
            return
        self._changes()  # (the program's own writes since the last look: not the call's)
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            changes = self._changes()
            if changes:
                self.changed.append((key, where, changes[0]))

    def _changes(self) -> list:
        """Descriptions of the holders changed since the last look (each looked at anew)."""
        found = []
        for ident, (holder, before) in list(self.seen.items()):
            try:
                if own_writes.unchanged(holder, before):
                    continue
                self.seen[ident] = (holder, own_writes.copy_state(holder))
            except Exception:  # noqa: BLE001 - a holder that cannot be read: not looked at
                continue
            found.append(f"a {type(holder).__name__}")
        return found

    def record(self, profile) -> None:
        """After the profiled call: the library calls that changed the state, when another
        thread ran during the call (`Profile.thread_writes`: the last call's only)."""
        disturbed = bool(self.changed) and self.window.disturbed()
        profile.thread_writes = [(where, what) for _, where, what in self.changed[:4]] \
            if disturbed else []
