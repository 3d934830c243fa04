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

`plain_call` is on every path that runs the user's function plainly from inside janus:
the fast paths of `JitFunction.__call__` (a function settled plain, a plain decision's
calls), `_eager`'s plain runs, `run_watched`'s reruns, a split function's run
(fallback/segmented.py). Its cost is what keeps a function janus cannot speed up as fast
as plain (F350): from a `__call__`'s fast path one frame checked (its caller: the
user's, or janus's, then the walk of janus's frames), two `setrecursionlimit` calls and a
non-blocking acquire of `_owner`, ~0.6 us on a loaded 2-core machine. The limit is
the interpreter's: one thread at a time (the `_owner` lock's, reentrant: a recursion
through jitted functions raises it per level) raises it, so the raises of one thread
nest and are put back in order; another thread's plain call meanwhile runs without the
room (with the owner's instead). Where the limit cannot be put back at once (the call
ended deeper than the user's limit: a jitted function called a few frames under it),
it is put back at the next plain call's end.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading

from janus.operation_hooks import operation_hook

FRAMES_PER_LEVEL = 4  # janus's frames per user call in converted code (3), plus margin
SLACK = 200  # for janus's own calls between (the runtime's hooks, TensorFlow's)
CEILING = 20000
_JANUS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_JANUS_FILES = frozenset(os.path.join(folder, name)  # (a set's `in`: cheaper than
                         for folder, _, names in os.walk(_JANUS_DIR)  # `startswith`)
                         for name in names if name.endswith(".py"))
_state = threading.local()


def depth() -> int:
    """The number of frames on the current thread's stack (O(depth): only on slow
    paths)."""
    frame, count = sys._getframe(1), 0
    while frame is not None:
        count, frame = count + 1, frame.f_back
    return count


def janus_frames() -> int:
    """How many recursion counts janus's own frames innermost on the stack take (up to
    the first frame of other code: the user's call of the jitted function, a library).
    Python 3.11 counts a frame entered through a type's call slot twice (the slot's C
    call, then the frame): janus's `__call__`s (`JitFunction`, `BoundJitFunction`, a
    split function's; measured)."""
    frame, count = sys._getframe(1), 0
    while frame is not None and frame.f_code.co_filename in _JANUS_FILES:
        count += 2 if frame.f_code.co_name == "__call__" else 1
        frame = frame.f_back
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
def converted_room(own_frames: int = 0):
    """Room for converted code to recurse as deep as plain Python could from here: the
    levels left below the limit, FRAMES_PER_LEVEL frames each. Notes (`seen`) whether
    the block met a RecursionError. (`own_frames`: unused since F368's revert.)"""
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


@operation_hook
def plain_call(fn, args: tuple, kwargs: dict, extra: int = 0):
    """`fn(*args, **kwargs)` run plainly from inside janus with the room plain Python had
    at the user's call: the limit raised by janus's frames above it (this one
    included), and `extra` frames plain Python does not have (a segment's own function).
    From a `__call__`'s fast path (its caller the user's code) one frame is checked,
    not walked. See the module docstring for threads."""
    if not _owner.acquire(False):  # (another thread's plain call raised the limit)
        return fn(*args, **kwargs)
    try:
        if _owed is not None:
            _settle_owed()
        caller = sys._getframe(1)
        above = caller.f_back
        if caller.f_code.co_name == "__call__" and \
                (above is None or above.f_code.co_filename not in _JANUS_FILES):
            counts = 3 + extra  # (this frame, and the `__call__` through its slot: 2)
        else:
            counts = janus_frames() + extra
        old = sys.getrecursionlimit()
        new = old + counts
        if new > CEILING:
            return fn(*args, **kwargs)
        sys.setrecursionlimit(new)
        try:
            return fn(*args, **kwargs)
        finally:
            if _owed is None and sys.getrecursionlimit() == new:
                try:  # (`_put_back`, inline: the common case)
                    sys.setrecursionlimit(old)
                except RecursionError:
                    _put_back(old, new)
            else:
                _put_back(old, new)
    finally:
        _owner.release()


_owner = threading.RLock()  # held by the thread whose plain calls raise the limit
_owed = None  # (limit, raised): to put back while the limit is still `raised` (the owner's)


def _put_back(old: int, new: int) -> None:
    """The limit back to `old` after `plain_call` raised it to `new`, unless someone set it
    meanwhile; if this frame is too deep for `old`, later (`_owed`)."""
    global _owed
    now = sys.getrecursionlimit()
    if _owed is not None and _owed == (new, now):
        now = new  # (an inner call's raise not put back yet: this end puts back both)
    if now != new:
        return
    try:
        sys.setrecursionlimit(old)
        _owed = None
    except RecursionError:  # ("cannot set the recursion limit ... at the recursion depth")
        _owed = (old, sys.getrecursionlimit())


def _settle_owed() -> None:
    """Put back a limit an earlier plain call could not (`_owed`), if no one set it since."""
    global _owed
    limit, raised = _owed
    if sys.getrecursionlimit() != raised:
        _owed = None
        return
    try:
        sys.setrecursionlimit(limit)
        _owed = None
    except RecursionError:  # (still too deep)
        pass


@operation_hook
def entry_call(fn, args: tuple, kwargs: dict, extra: int = 0):
    """`plain_call` from `JitFunction.__call__`'s fast paths."""
    return plain_call(fn, args, kwargs, extra)


@operation_hook
def callee_call(fn, args: tuple, kwargs: dict):
    """A user's function converted code calls and janus runs plainly, as it is. (F368's
    plain room for it was reverted in session 33: its room computation starved a trace
    of a 480-level recursion, fuzz v83 seed 81; F368 is open again.)"""
    return fn(*args, **kwargs)
