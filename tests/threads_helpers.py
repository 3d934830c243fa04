"""A thread that runs between two points of a call, deterministically (Barriers, not
sleeps), for tests of what janus does while another thread runs during a trace.

    def step(x, sync):
        sync()          # (a library call: runs as it is, also while janus traces)
        sync()          # (the worker ran `work` in between)

    meet, current = threading.Barrier(2, timeout=120), [0]
    thread = threading.Thread(target=meet_each_call, args=(meet, current, work))
    thread.start()
    for i in range(n):
        current[0] = i
        g(x, meet.wait)
    current[0] = None
    meet.wait()         # (the worker returns)
"""
from __future__ import annotations

import threading
from typing import Callable


def meet_each_call(meet: threading.Barrier, current: list, work: Callable[[], object]) -> None:
    """Meets each execution of the step's `meet.wait(); meet.wait()` (profiled, traced,
    run plainly: any number per call) and does `work` between them, once per call
    (`current[0]`, set by the caller; None ends it)."""
    seen = set()
    while True:
        meet.wait()
        if current[0] is None:
            return
        if current[0] not in seen:
            seen.add(current[0])
            work()
        meet.wait()


def counted(monkeypatch, owner, name: str) -> list:
    """Counts the calls of `owner.name` (patched for the test): `[calls]`."""
    calls, original = [0], getattr(owner, name)

    def counting(*args, **kwargs):
        calls[0] += 1
        return original(*args, **kwargs)
    monkeypatch.setattr(owner, name, counting)
    return calls
