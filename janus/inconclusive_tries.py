"""Tries another thread made inconclusive (a mixin of `JitFunction`, with generation.py).

A trace that changed state while another thread ran (F372: errors.py InconclusiveTrace)
runs its call with its graph and is not kept; a call whose last profiled call saw library
code change the program's state while another thread ran Python is not traced at all
(F470: profiler/thread_writes.py): it runs profiled (`ThreadWait`). Either way the calls
that would trace wait a while first, longer after each such try in a row
(`inconclusive_wait`), and janus never gives up for good (F384).
"""
from __future__ import annotations

from janus.errors import EagerRun as _Eager, FallbackCategory, InconclusiveTrace

LOUD_INCONCLUSIVE = 4
"""Traces in a row inconclusive because another thread ran as they changed state
(errors.py InconclusiveTrace: each runs its call and is not kept): after the n-th, the
next `2**(n-1) - 1` calls that would trace run plainly (`inconclusive_wait`), so a thread
that always runs costs O(log calls) traces and one that runs now and then (a progress
bar's monitor, a heartbeat) delays a graph a while, never for good (F384); past this
many, janus says so once."""


def inconclusive_wait(streak: int) -> int:
    """Calls that run plainly instead of tracing after the `streak`-th inconclusive trace
    in a row: 0, 1, 3, 7, 15 ... (the traces of N calls: about log2(N))."""
    return 2 ** min(streak - 1, 40) - 1


RETRACE_WAITS = _Eager(FallbackCategory.BUSY, "the last tries were inconclusive (another "
                       "thread ran as state changed): calls that would trace run plainly "
                       "for a while", "plain")


class ThreadWait(_Eager):
    """A call that would trace, run profiled instead: the last profiled call's library
    code changed the program's state while another thread ran Python, so a trace's
    changes could not be told from the thread's (profiler/thread_writes.py, F470)."""

    def __init__(self, where: tuple, what: str):
        function, filename, lineno = where
        super().__init__(FallbackCategory.BUSY, (
            f"{function} ({filename}:{lineno}) calls library code that changes {what} "
            "while another thread runs Python: a trace could not tell its change from the "
            "thread's; calls run profiled (and plainly) until the thread stops"), "profiled")


class InconclusiveTries:
    """The waits after inconclusive tries (see the module docstring)."""

    def _inconclusive(self, exc: InconclusiveTrace, context: tuple):
        """A trace that changed state while another thread ran (F372): its graph runs this
        call, with the trace's changes as the call's, and is not kept; the calls that would
        trace wait a while first, longer after each such trace in a row
        (`LOUD_INCONCLUSIVE`, F384: giving up for good left a function eager for a
        thread's bad timing)."""
        spec = exc.made
        spec.context = context
        with self._lock:
            self._wait_after_inconclusive(exc.reason)
            self.last_decision = "graph of an inconclusive trace (another thread ran)"
        return spec

    def _wait_after_inconclusive(self, reason: str) -> None:
        """Another inconclusive try in a row (under the lock): the calls that would trace
        run plainly for a while (`inconclusive_wait`); loud past `LOUD_INCONCLUSIVE`."""
        self.inconclusive += 1
        wait = inconclusive_wait(self.inconclusive)
        self.retrace_after = self.stats.calls + wait
        if self.inconclusive >= LOUD_INCONCLUSIVE:
            self.last_failure_reason = f"{reason}: {self.inconclusive} traces in a " \
                f"row; the calls that would trace run plainly, the next {wait} first"
            self._warn_once("inconclusive", f"{self.__qualname__}: {self.inconclusive} "
                            f"traces in a row were inconclusive ({reason}); janus "
                            "keeps retrying, less and less often, and runs the calls "
                            "in between plainly (janus.explain shows it)")

    def after_thread_wait(self, step: ThreadWait) -> None:
        """After a call run profiled for `step` (under the lock): still another thread's
        meanwhile, wait longer before the next try; none, the next call traces."""
        if self.profile.thread_writes:
            self._wait_after_inconclusive(step.reason)
        else:
            self.inconclusive, self.retrace_after = 0, 0
