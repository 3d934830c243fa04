"""What an exception holds once it leaves janus: its janus frames' locals let go.

An exception keeps the frames it was raised through (its traceback), and each frame
keeps its locals. Plain Python's exception from a step keeps the caller's frames and
the step's; janus's keeps janus's frames between them too: the call's arguments, the
trace and its heap snapshots, a graph's inputs, the exceptions janus caught on the way
(a failed graph, a trace that raised: `__context__`), each of those frames with
theirs. A caller that keeps the exception (a log of failures, a retry loop, a test
harness) kept all of that, and a janus frame holding an exception whose traceback holds
that frame (`error = exc`) is a cycle: freed only by the collector, calls later.

    try:                                 except BaseException as exc:
        <the call>                 ->        release(exc)   # janus's finished frames
    ...                                      raise          # cleared: their locals go

`release` clears the finished janus frames (janus's files, its generated code) of the
exception's traceback and of its chain (`__cause__`, `__context__`), and the finished
janus frames that called the one that caught it (a frame keeps its caller, `f_back`):
their file, line and function stay (tracebacks print as before), their locals go. The
user's frames (converted copies included) are left as they are: plain Python keeps
those too. (F441)
"""
from __future__ import annotations

import inspect

from janus.recursion.frames import JANUS_FILES

_SUSPENDABLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
MAX_EXCEPTIONS = 16
"""Exceptions of a chain looked at, at most."""


def _janus_code(code) -> bool:
    filename = code.co_filename
    return (filename in JANUS_FILES or filename.startswith("<janus")) and \
        not code.co_flags & _SUSPENDABLE  # (clearing a suspended generator closes it)


def release(exc: BaseException | None) -> None:
    """Clear the locals of the finished janus frames `exc` (and its chain) was raised
    through. Frames still running (the caller's own, an enclosing jitted call's) are
    left."""
    seen: set = set()
    pending = [exc]
    while pending and len(seen) < MAX_EXCEPTIONS:
        exc = pending.pop()
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        tb = exc.__traceback__
        if tb is not None:
            _clear_callers(tb.tb_frame.f_back)
        while tb is not None:
            _clear(tb.tb_frame)
            tb = tb.tb_next
        pending += [exc.__cause__, exc.__context__]


def _clear(frame) -> bool:
    """Clear a finished janus frame; whether it was one."""
    if not _janus_code(frame.f_code):
        return False
    try:
        frame.clear()
    except RuntimeError:  # (still running: an enclosing call's frame)
        return False
    return True


def _clear_callers(frame) -> None:
    """The finished janus frames that called the frame that caught the exception (a
    frame keeps its caller's, `f_back`: one that returned the exception, or an object
    holding it, keeps it in a local: a cycle), out to a running or another's frame."""
    for _ in range(64):
        if frame is None or not _clear(frame):
            return
        frame = frame.f_back
