"""Whether other threads may have run Python while a trace ran (F372).

A trace compares state before and after it (graphgen/leftover_tensors.py: the heap it
reaches; graphgen/host_state.py: Python's `random`, Keras' name counters) and puts back
what changed. Another thread running meanwhile changes that state too:

    thread A: step(x)             traced: the trace reaches `per`
    thread B: step(y)             runs plainly meanwhile ("another thread is
                                  generating"): `per['b'].append(1)`
    loader:   random.random()     draws while the step traces

What changed is then not the trace's alone: undone, it would lose the other thread's
writes (rewind its draws), and taken as the trace's, it refuses a function for what it
never did. A `Window` says whether that may be so: a thread of `threading` that ran at
all during it (its scheduler counts in `/proc/self/task/<tid>/schedstat` moved, or it
started or ended), a thread TensorFlow runs Python on (`tf.py_function`,
`Dataset.from_generator`: counted by `FuncRegistry.__call__`, or seen running Python), or,
where the counts cannot be read, any other thread at all — except one blocked the whole
time in a known wait that runs no Python (`_blocked`: a lock's `acquire` in
`Condition.wait`, under `Event.wait`, `Queue.get`, a `Barrier`; a join): its same
frame object at the same call, not the main thread (signal handlers), no profile hook
(F384: traces in a process with an idle thread janus cannot count were all
inconclusive). A thread that only waits (an idle logger, a finished pool) does not
disturb. Once per trace, never per call.
"""
from __future__ import annotations

import ctypes
import dis
import gc
import os
import sys
import threading

from janus.patches import once

_foreign_calls = [0]  # Python functions TensorFlow's own threads ran (`_count_foreign`)


def _counted(original):
    def call(self, *args, **kwargs):
        _foreign_calls[0] += 1  # (threads may race on it: any change is all it tells)
        return original(self, *args, **kwargs)
    call.__wrapped__ = original
    call.__name__ = getattr(original, "__name__", "__call__")
    return call


@once
def _count_foreign() -> None:
    """Count the Python functions TensorFlow runs on its threads (once per process)."""
    try:
        from tensorflow.python.ops import script_ops
    except ImportError:  # pragma: no cover - TensorFlow is a dependency
        return
    registry = script_ops.FuncRegistry
    registry.__call__ = _counted(registry.__call__)


def _held_libc():
    """The C library with calls that keep the interpreter's lock (`ctypes.PyDLL`), or None.

    Reading the counts with Python's `open` lets go of the lock at each system call: a
    waiting thread then runs Python right there, inside the window being measured, and
    its counts move (every window of a trace with a busy writer thread looked disturbed:
    F433's remainder). Read holding the lock, only a thread that really ran meanwhile
    moves."""
    try:
        libc = ctypes.PyDLL(None)
        libc.open.argtypes, libc.open.restype = [ctypes.c_char_p, ctypes.c_int], ctypes.c_int
        libc.read.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
        libc.read.restype = ctypes.c_ssize_t
        libc.close.argtypes, libc.close.restype = [ctypes.c_int], ctypes.c_int
        return libc
    except (OSError, AttributeError):  # pragma: no cover - not a C library with these
        return None


_LIBC = _held_libc() if sys.platform.startswith("linux") else None
_BUFFER = ctypes.create_string_buffer(256)  # (one thread reads at a time: the lock held)


def _schedule(native_id) -> str | None:
    """The scheduler's counts of a thread (they move whenever it runs), or None."""
    if native_id is None:
        return None
    path = f"/proc/self/task/{native_id}/schedstat"
    if _LIBC is None:
        try:
            with open(path) as counts:
                return counts.read()
        except OSError:
            return None
    descriptor = _LIBC.open(path.encode(), os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    if descriptor < 0:
        return None
    try:
        size = _LIBC.read(descriptor, _BUFFER, len(_BUFFER) - 1)
    finally:
        _LIBC.close(descriptor)
    return _BUFFER.raw[:size].decode() if size > 0 else None


_JANUS_THREADS = ("janus-cache", "janus-xla")
"""Names of janus's own threads (cache/recorder.py, graphgen/xla.py)."""

_UNKNOWN = object()  # (never equal: a thread whose counts cannot be read may have run)

_WAITS = {"acquire"}
"""Methods that block in C and run no Python until they return (a lock's: it returns a
bool, so no garbage collection runs on its way out either)."""


def _wait_calls(function) -> frozenset:
    """Offsets of `function`'s calls of a `_WAITS` method that no loop of its own can
    come back to (a frame at one, then at it again, never returned from it)."""
    code = getattr(function, "__code__", None)
    if code is None:
        return frozenset()
    instructions = list(dis.get_instructions(code))
    if not all(hasattr(i, "positions") for i in instructions):
        return frozenset()  # (3.10: none taken as idle)
    lines = {i.positions.lineno for i in instructions
             if i.opname in ("LOAD_METHOD", "LOAD_ATTR") and i.argval in _WAITS}
    back = [(i.argval, i.offset) for i in instructions  # (a loop: target .. its jump)
            if "JUMP" in i.opname and isinstance(i.argval, int) and i.argval <= i.offset]
    return frozenset(i.offset for i in instructions
                     if i.opname == "CALL" and i.positions.lineno in lines and
                     not any(start <= i.offset <= end for start, end in back))


_KNOWN_WAITS = {function.__code__: _wait_calls(function) for function in (
    threading.Condition.wait, getattr(threading.Thread, "_wait_for_tstate_lock", None))
    if getattr(function, "__code__", None) is not None}
"""Code of the standard library's waits -> the offsets where a frame blocks in C."""

_COLLECTS_BETWEEN = sys.version_info >= (3, 12)
"""Whether a thread returning from a call may collect garbage (finalizers: Python) before
its next instruction (3.12 collects at the interpreter's periodic checks)."""


def _hooked() -> bool:
    """Whether Python may run on a thread as its calls return (a profile hook's
    `c_return`; 3.12's `sys.monitoring`): then no blocked thread is taken as idle."""
    if sys.getprofile() is not None or getattr(threading, "_profile_hook", None):
        return True
    monitoring = getattr(sys, "monitoring", None)
    return monitoring is not None and any(monitoring.get_tool(tool) for tool in range(6))


class _Blocked:
    """A thread whose counts cannot be read, blocked in a known wait (`_blocked`): equal
    to a later look only while it is the same frame at the same call."""

    def __init__(self, frame):
        self.frame, self.at = frame, frame.f_lasti

    def __eq__(self, other):
        return type(other) is _Blocked and other.frame is self.frame and \
            other.at == self.at

    __hash__ = None


class _Look:
    """A thread's scheduler counts and its `_blocked` state: equal to a later look when
    the counts did not move, or when it is the same blocked frame at the same call (a
    thread woken from its wait that only waited for the interpreter's lock moves its
    counts yet runs no Python: F433's remainder under a loaded machine)."""

    def __init__(self, counts: str, blocked):
        self.counts, self.blocked = counts, blocked

    def __eq__(self, other):
        return type(other) is _Look and (other.counts == self.counts or (
            self.blocked is not _UNKNOWN and other.blocked == self.blocked))

    __hash__ = None


def _blocked(ident, frames: dict, main, hooked: bool):
    """`ident`'s thread as a `_Blocked`, or `_UNKNOWN`: it runs, or may (not a known wait;
    the main thread: signal handlers run Python on it mid-wait; a profile hook)."""
    frame = frames.get(ident)
    if hooked or frame is None or ident == main or \
            frame.f_lasti not in _KNOWN_WAITS.get(frame.f_code, ()):
        return _UNKNOWN
    return _Blocked(frame)


def _others() -> dict:
    """ident -> scheduler counts (or `_Blocked`, or `_UNKNOWN`) of every other thread
    that exists now."""
    me = threading.get_ident()
    main = threading.main_thread().ident
    frames = sys._current_frames()
    frames.pop(me, None)  # (this frame: kept in its own local, a cycle holding the
    # caller's frames, their arguments, until a collection: F440)
    hooked = _hooked()
    found = {}
    known = set()
    for thread in threading.enumerate():
        ident = thread.ident
        known.add(ident)
        if ident == me or ident is None or thread.name.startswith(_JANUS_THREADS):
            continue  # (janus's own: the cache writer, the XLA compiler touch no program
            # state; in a long process they run between any two traces)
        counts = _schedule(getattr(thread, "native_id", None))
        blocked = _blocked(ident, frames, main, hooked)
        found[ident] = blocked if counts is None else _Look(counts, blocked)
    for ident in frames:  # (threads TensorFlow or `_thread` made, with Python frames now)
        if ident != me and ident not in known:
            found[ident] = _blocked(ident, frames, main, hooked)
    return found


def _collections() -> int:
    """Garbage collections so far (a collection runs finalizers: Python, on any thread)."""
    return sum(generation["collections"] for generation in gc.get_stats())


class Window:
    """From its making to `disturbed()`: did another thread run (and so may have
    changed what this thread's trace looks at)?"""

    def __init__(self):
        _count_foreign()
        self.foreign = _foreign_calls[0]
        self.collections = _collections()
        self.before = _others()

    def disturbed(self) -> bool:
        if _foreign_calls[0] != self.foreign:
            return True
        now = _others()
        if now.keys() != self.before.keys():
            return True  # (a thread started or ended meanwhile)
        collected = _COLLECTS_BETWEEN and _collections() != self.collections
        for ident, counts in now.items():
            before = self.before[ident]
            if counts is _UNKNOWN or counts != before:
                return True
            if collected and (type(counts) is _Blocked or counts.counts != before.counts):
                return True  # (a blocked thread may have run finalizers between two waits)
        return False
