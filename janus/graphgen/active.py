"""The trace running on this thread, if any.

A module of its own, below `tracer` and `values`: the symbolic stand-ins in `values`
ask it for the current trace (to format themselves into a print), and the `Tracer`
sets it while it runs, so neither has to import the other.
"""
from __future__ import annotations

import contextlib
import threading

_current = threading.local()


def get():
    """The `Tracer` running on this thread, or None."""
    return getattr(_current, "tracer", None)


def current():
    """The `Tracer` running on this thread; RuntimeError when none is."""
    tracer = get()
    if tracer is None:
        raise RuntimeError("no janus trace is active")
    return tracer


@contextlib.contextmanager
def running(tracer):
    """Make `tracer` the current trace of this thread for the block."""
    previous = getattr(_current, "tracer", None)
    _current.tracer = tracer
    try:
        yield tracer
    finally:
        _current.tracer = previous
