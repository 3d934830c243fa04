"""Room on the stack for a user's recursion under janus's frames (F349).

Python counts frames against `sys.getrecursionlimit()`. Plainly, `enc(node)` over a
400-long chain is 400 frames; profiled, every call of converted code goes through
janus's runtime (`rt.call`, the effect watch, the callee's converted copy: 3 frames a
level), and the frames of the jitted call itself come first:

    with limits.converted_room():   # a converted run: room for FRAMES_PER_LEVEL frames
        run()                       # per level plain Python had room for
    limits.plain_call(fn, args, kwargs)   # a plain run from inside janus: the limit
                                          # raised by exactly janus's frames above it

so a recursion plain Python completes completes under janus. The limit is the
interpreter's, not the thread's: it is put back only if no one changed it meanwhile
(`raised`). It stays below `CEILING` (recursion/table.py walks node tables up to it too;
Python 3.11 runs a Python-to-Python call without a C frame, but a call through
janus's runtime takes a C frame, ~0.3 KB of an 8 MB main-thread stack each), and never
goes below what the user set.

Where the user's code catches a RecursionError, its outcome depends on the exact depth
at which it is raised; converted code, with more room, raises it at another user depth
than plain Python. `seen()` says whether a converted run met one (`note()`: called
where one passes a runtime's call): the caller then keeps the run's outcome only if it
cannot rerun the call plainly (see fallback/safety.py `run_watched`).
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading

FRAMES_PER_LEVEL = 4  # janus's frames per user call in converted code (3), plus margin
SLACK = 200  # for janus's own calls between (the runtime's hooks, TensorFlow's)
CEILING = 20000
ENTRIES = 1  # Python 3.11 counts a frame entered from C twice: the jitted function's
# `__call__` is (a type slot); the user's plain `fn(x)` is one count (measured)

_JANUS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_state = threading.local()


def depth() -> int:
    """The number of frames on the current thread's stack (O(depth): only on slow
    paths)."""
    frame, count = sys._getframe(1), 0
    while frame is not None:
        count, frame = count + 1, frame.f_back
    return count


def janus_frames() -> int:
    """How many of janus's own frames are innermost on the stack (up to the first frame
    of other code: the user's call of the jitted function, a library)."""
    frame, count = sys._getframe(1), 0
    while frame is not None and frame.f_code.co_filename.startswith(_JANUS_DIR):
        count, frame = count + 1, frame.f_back
    return count


@contextlib.contextmanager
def raised(limit: int):
    """The recursion limit at least `limit` (at most CEILING, unless the user's is
    higher) inside the block."""
    old = sys.getrecursionlimit()
    new = max(old, min(limit, CEILING))
    if new == old:
        yield
        return
    sys.setrecursionlimit(new)
    try:
        yield
    finally:
        if sys.getrecursionlimit() == new:  # (another thread's change stays)
            sys.setrecursionlimit(old)


@contextlib.contextmanager
def converted_room():
    """Room for converted code to recurse as deep as plain Python could from here: the
    levels left below the limit, FRAMES_PER_LEVEL frames each. Notes (`seen`) whether
    the block met a RecursionError."""
    limit, here = sys.getrecursionlimit(), depth()
    outer = getattr(_state, "seen", None)
    _state.seen = False
    try:
        with raised(here + max(limit - here, 0) * FRAMES_PER_LEVEL + SLACK):
            yield
    except RecursionError:
        _state.seen = True
        raise
    finally:
        met = _state.seen
        _state.seen = outer if outer is None else outer or met
        _state.last = met


def note() -> None:
    """A RecursionError passed a runtime's call of converted code."""
    _state.seen = True


def seen() -> bool:
    """Whether the last `converted_room` block of this thread met a RecursionError (raised
    out of it, or raised inside and caught by the user's code)."""
    return getattr(_state, "last", False)


def plain_call(fn, args: tuple, kwargs: dict):
    """`fn(*args, **kwargs)` run plainly from inside janus with the room plain Python had
    at the user's call: the limit raised by janus's frames above it."""
    old = sys.getrecursionlimit()
    new = old + janus_frames() + ENTRIES
    if new > CEILING:  # (as `raised`, inline: a plain call's cost is a few us)
        return fn(*args, **kwargs)
    sys.setrecursionlimit(new)
    try:
        return fn(*args, **kwargs)
    finally:
        if sys.getrecursionlimit() == new:
            sys.setrecursionlimit(old)
