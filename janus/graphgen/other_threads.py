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
where the counts cannot be read, any other thread at all. A thread that only waits
(an idle logger, a finished pool) does not disturb. Once per trace, never per call.
"""
from __future__ import annotations

import sys
import threading

_lock = threading.Lock()
_foreign_calls = [0]  # Python functions TensorFlow's own threads ran (`_count_foreign`)
_hooked: list = []


def _counted(original):
    def call(self, *args, **kwargs):
        _foreign_calls[0] += 1  # (threads may race on it: any change is all it tells)
        return original(self, *args, **kwargs)
    call.__wrapped__ = original
    call.__name__ = getattr(original, "__name__", "__call__")
    return call


def _count_foreign() -> None:
    """Count the Python functions TensorFlow runs on its threads (once per process)."""
    with _lock:
        if _hooked:
            return
        _hooked.append(True)
        try:
            from tensorflow.python.ops import script_ops
        except ImportError:  # pragma: no cover - TensorFlow is a dependency
            return
        registry = script_ops.FuncRegistry
        registry.__call__ = _counted(registry.__call__)


def _schedule(native_id) -> str | None:
    """The scheduler's counts of a thread (they move whenever it runs), or None."""
    try:
        with open(f"/proc/self/task/{native_id}/schedstat") as counts:
            return counts.read()
    except (OSError, TypeError):
        return None


_JANUS_THREADS = ("janus-cache", "janus-xla")
"""Names of janus's own threads (cache/recorder.py, graphgen/xla.py)."""

_UNKNOWN = object()  # (never equal: a thread whose counts cannot be read may have run)


def _others() -> dict:
    """ident -> scheduler counts of every other thread that exists now."""
    me = threading.get_ident()
    found = {}
    known = set()
    for thread in threading.enumerate():
        ident = thread.ident
        known.add(ident)
        if ident == me or ident is None or thread.name.startswith(_JANUS_THREADS):
            continue  # (janus's own: the cache writer, the XLA compiler touch no program
            # state; in a long process they run between any two traces)
        counts = _schedule(getattr(thread, "native_id", None))
        found[ident] = _UNKNOWN if counts is None else counts
    for ident in sys._current_frames():  # (threads TensorFlow made, running Python now)
        if ident != me and ident not in known:
            found[ident] = _UNKNOWN
    return found


class Window:
    """From its making to `disturbed()`: did another thread run (and so may have
    changed what this thread's trace looks at)?"""

    def __init__(self):
        _count_foreign()
        self.foreign = _foreign_calls[0]
        self.before = _others()

    def disturbed(self) -> bool:
        if _foreign_calls[0] != self.foreign:
            return True
        now = _others()
        if now.keys() != self.before.keys():
            return True  # (a thread started or ended meanwhile)
        return any(counts is _UNKNOWN or counts != self.before[ident]
                   for ident, counts in now.items())
