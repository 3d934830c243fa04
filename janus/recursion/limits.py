"""Room on the stack for a user's recursion under janus's frames (F349).

Python counts frames against `sys.getrecursionlimit()`. Plainly, `enc(node)` over a
400-long chain is 400 frames; profiled, every call of converted code goes through
janus's runtime (`rt.call`, the effect watch, the callee's converted copy: 3 frames a
level), and the frames of the jitted call itself come first:

    with limits.converted_room():   # a converted run: room for FRAMES_PER_LEVEL frames
        run()                       # per level plain Python had room for
    limits.plain_call(fn, args, kwargs)   # a plain run from inside janus: the limit
                                          # raised by exactly janus's frames above it

so a recursion plain Python completes completes under janus. A trace has its own room
(`trace_room`, 2-3 frames a level: a 480-level recursion traced under a deep stack met
a RecursionError in janus's tracer, F368). A plain run inside a converted one (a helper
janus does not convert: `callee_call`; a settled callee, a segment's stretch:
`plain_call`) gets plain Python's room back, computed from a *context* of the thread:

    (frame, limit)   a call made from `frame` has plain Python's room under `limit`

opened by a converted run at its entry and by a plain run inside one at its call; the
limit at a frame is the innermost context's plus the counts janus added on the way
out to it (recursion/frames.py: janus's frames, blocks, thunks; O(frames between),
each a cached look-up). A plain run lowers the limit to plain Python's; janus's code it
runs again (a converted run, a trace) opens its own room, never lower than the limit
it meets (`raised`), so converted code and traces keep at least their room. The limit
is the interpreter's, not the thread's: it is put back only if no one changed it
meanwhile (`raised`). It stays below `CEILING` (recursion/table.py walks node tables up
to it too; Python 3.11 runs a Python-to-Python call without a C frame, but a call
through janus's runtime takes a C frame, ~0.3 KB of an 8 MB main-thread stack each),
and never goes below what the user set. Each change janus made is kept (per thread) until
put back: the program's own limit, what its `sys.getrecursionlimit()` says in converted
code and in a trace, is the one before them (`user_limit`, F425).

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
non-blocking acquire of `_owner`, ~0.6 us on a loaded 2-core machine (`entry_call`,
outside converted runs: no walk). Inside a converted run, a plain callee pays the walk
out to its context: ~2.1 us over a direct call a few frames from it, +0.14 us a frame
(F368, measured). The limit is the interpreter's: one thread at a time (the `_owner`
lock's, reentrant: a recursion through jitted functions raises it per level) raises it,
so the raises of one thread nest and are put back in order; another thread's plain
call meanwhile runs without the room (with the owner's instead). Where the limit cannot be put back at once (the call
ended deeper than the user's limit: a jitted function called a few frames under it),
it is put back at the next plain call's end.
"""
from __future__ import annotations

import contextlib
import sys
import threading

from janus.operation_hooks import operation_hook
from janus.recursion import frames
from janus.transform import caller_frames

FRAMES_PER_LEVEL = 4  # janus's frames per user call in converted code (3), plus margin
SLACK = 200  # for janus's own calls between (the runtime's hooks, TensorFlow's)
CEILING = 20000
_state = threading.local()


def depth() -> int:
    """The number of frames on the current thread's stack (O(depth): only on slow
    paths)."""
    frame, count = sys._getframe(1), 0
    while frame is not None:
        count, frame = count + 1, frame.f_back
    return count


def _context():
    """The innermost context of this thread: (frame, limit), a call made from `frame` has
    plain Python's room under `limit` (a converted run's entry, a plain run's call); None
    outside them."""
    if not _rooms_open:
        return None
    contexts = getattr(_state, "contexts", None)
    return contexts[-1] if contexts else None


def _plain_limit(frame) -> int | None:
    """The limit under which a call made from `frame` has plain Python's room: inside a
    context, its limit plus what janus added on the way out to it (`frames.extra_counts`:
    janus's frames, blocks, thunks; the user's frames count for themselves); else the
    limit raised by janus's frames innermost (the user's code above them). None when it
    cannot be told (the context's frame is not on the way)."""
    context = _context()
    if context is None:
        return sys.getrecursionlimit() + frames.janus_frames(frame, _RAISERS)
    counts = frames.extra_counts(frame, context[0])
    return None if counts is None else context[1] + counts


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
    _raises().append((old, new))
    try:
        yield
    finally:
        _state.raises.pop()
        if sys.getrecursionlimit() == new:  # (another thread's change stays)
            sys.setrecursionlimit(old)


@contextlib.contextmanager
def converted_room(own_frames: int = 0):
    """Room for converted code to recurse as deep as plain Python could from here: the
    levels left below the limit, FRAMES_PER_LEVEL frames each. Notes (`seen`) whether
    the block met a RecursionError. Opens a context: the limit plain Python has at the
    block's frame (`own_frames`: its function's frames plain Python has not, a
    segment's), from which a plain call inside gets plain Python's room back."""
    limit, here = sys.getrecursionlimit(), depth()
    entry = sys._getframe(2)  # (the frame entering the block: under contextlib's __enter__)
    plain = _plain_limit(entry)
    outer = getattr(_state, "seen", None)
    _state.seen = False
    try:
        with _opened(None if plain is None else (entry, plain + own_frames)), \
                raised(here + max(limit - here, 0) * FRAMES_PER_LEVEL + SLACK):
            yield
    except RecursionError:
        _state.seen = True
        raise
    finally:
        met = _state.seen
        _state.seen = outer if outer is None else outer or met
        _state.last = met


@contextlib.contextmanager
def _opened(context):
    """`context` (frame, limit) the innermost of this thread inside the block."""
    global _rooms_open
    contexts = getattr(_state, "contexts", None)
    if contexts is None:
        contexts = _state.contexts = []
    if context is not None:
        contexts.append(context)
    with _rooms_lock:
        _rooms_open += 1
    try:
        yield
    finally:
        if context is not None:
            contexts.pop()
        with _rooms_lock:
            _rooms_open -= 1


@contextlib.contextmanager
def trace_room():
    """Room for a trace of converted code from here: FRAMES_PER_LEVEL frames for each
    level plain Python has left (a trace takes 2-3 a level: the runtime's call, the
    converted copy). Never lowers the limit: a trace inside a converted run keeps that
    run's room. (A trace had none of its own: a 480-level recursion traced under a
    deep stack met a RecursionError in the tracer, quick fuzz v83 seeds 81, 145.)"""
    here = depth()
    plain = _plain_limit(sys._getframe(2))
    limit = sys.getrecursionlimit() if plain is None else plain
    with raised(here + max(limit - here, 0) * FRAMES_PER_LEVEL + SLACK):
        yield


def _raises() -> list:
    """This thread's changes of the limit by janus still in force, outermost first:
    (the limit before, the limit janus set); `entry_call`'s raise by its own frames is
    not kept (the plain run it makes reads that limit anyway)."""
    raises = getattr(_state, "raises", None)
    if raises is None:
        raises = _state.raises = []
    return raises


def user_limit() -> int:
    """The recursion limit the program set, as `sys.getrecursionlimit()` says it in plain
    Python: the limit before janus's outermost change on this thread, or the one the
    program set since (a limit that is not the one janus set last, or one janus changed
    again after: F425). Read for the program's `sys.getrecursionlimit()` in converted
    code and in a trace (graphgen/process_state.py), and per call by the guard of a
    graph whose trace read it. Outside janus's changes: the interpreter's limit."""
    now = _get_limit()
    raises = getattr(_state, "raises", None)
    if not raises or now != raises[-1][1]:
        return now  # (none open, or the program set it inside)
    for i in range(len(raises) - 1, 0, -1):
        if raises[i][0] != raises[i - 1][1]:  # (the program set it between two of janus's)
            return raises[i][0]
    return raises[0][0]


def note() -> None:
    """A RecursionError passed a runtime's call of converted code."""
    _state.seen = True


def seen() -> bool:
    """Whether the last `converted_room` block of this thread met a RecursionError (raised
    out of it, or raised inside and caught by the user's code)."""
    return getattr(_state, "last", False)


@operation_hook
def entry_call(fn, args: tuple, kwargs: dict, extra: int = 0):
    """`plain_call` from `JitFunction.__call__`'s fast paths: where the user's code called
    the `__call__` (no converted run open, nothing owed), the limit raised by 3 (this
    frame, and the `__call__` through its slot: 2) and `extra`, without a walk (F350)."""
    above = _getframe(1).f_back
    if _rooms_open or _owed is not None or above is None or \
            above.f_code.co_filename in frames.JANUS_FILES or _reads_caller(fn):
        return plain_call(fn, args, kwargs, extra)
    if not _acquire(False):  # (another thread's plain call raised the limit)
        return fn(*args, **kwargs)
    try:
        old = _get_limit()
        new = old + 3 + extra
        if new > CEILING:
            return fn(*args, **kwargs)
        _set_limit(new)  # (not kept for `user_limit`: the plain run reads this limit
        try:             # itself, and ~0.3 us a call here, F425)
            return fn(*args, **kwargs)
        finally:
            if _owed is None and _get_limit() == new:
                try:  # (`_put_back`, inline: the common case)
                    _set_limit(old)
                except RecursionError:
                    _put_back(old, new)
            else:
                _put_back(old, new)
    finally:
        _release()


@operation_hook
def plain_call(fn, args: tuple, kwargs: dict, extra: int = 0):
    """`fn(*args, **kwargs)` run plainly from inside janus with the room plain Python had
    at the user's call: the limit raised by janus's frames above it (this one
    included), and `extra` frames plain Python does not have (a segment's own function);
    inside a converted run, the limit put at the room plain Python has there (lowered
    from the run's), a context for the calls inside (janus's code they run opens its own
    room: converted runs and traces). See the module docstring for threads."""
    if _reads_caller(fn):  # (from a stand-in of the user's frame: F445)
        through = caller_frames.stand_in(_getframe(1))
        if through is not None:
            fn, args, kwargs, extra = through, (fn, args, kwargs), {}, extra + 1
    if not _acquire(False):  # (another thread's plain call raised the limit)
        return fn(*args, **kwargs)
    try:
        if _owed is not None:
            _settle_owed()
        here = _getframe()
        new = _plain_limit(here)
        if new is None or new + extra > CEILING:
            return fn(*args, **kwargs)
        new += extra
        old = _get_limit()
        if new != old:
            try:
                _set_limit(new)
            except RecursionError:  # (deeper than plain Python's limit here: miscounted)
                return fn(*args, **kwargs)
        contexts = getattr(_state, "contexts", None) if _rooms_open else None
        if contexts:
            contexts.append((here, new))
        raises = _raises() if new != old else None
        if raises is not None:
            raises.append((old, new))
        try:
            return fn(*args, **kwargs)
        finally:
            if contexts:
                contexts.pop()
            if raises is not None:
                raises.pop()
            if new == old:
                pass
            elif _owed is None and _get_limit() == new:
                try:  # (`_put_back`, inline: the common case)
                    _set_limit(old)
                except RecursionError:
                    _put_back(old, new)
            else:
                _put_back(old, new)
    finally:
        here = None  # (its own frame: kept, a cycle holding the callers' locals, F435)
        _release()


@operation_hook
def callee_call(fn, args: tuple, kwargs: dict):
    """A user's function converted code calls and janus runs plainly (a helper with a
    `try`, a lambda run as it is): with plain Python's room there, not the converted
    run's (F368). Outside a converted run, the call as it is (a helper reading frames:
    from a stand-in of the user's frame, F445)."""
    if not _rooms_open or not getattr(_state, "contexts", None):
        return caller_frames.call(fn, args, kwargs)
    return plain_call(fn, args, kwargs)


_reads_caller = caller_frames.reads_caller
_owner = threading.RLock()  # held by the thread whose plain calls raise the limit
_acquire, _release = _owner.acquire, _owner.release
_get_limit, _set_limit, _getframe = sys.getrecursionlimit, sys.setrecursionlimit, sys._getframe
_rooms_open = 0  # converted runs open on any thread: plain calls look for theirs only then
_rooms_lock = threading.Lock()
_RAISERS = frozenset({plain_call.__code__})  # (its raise counts the frames above it:
# `janus_frames` stops there; `entry_call`'s function is the user's, where a walk stops)
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
