"""`janus.jit(...)` called again and again for one function: said once, loudly.

    for batch in data:
        step = janus.jit(make_step(cfg))   # (or janus.jit(lambda x: ...))
        step(batch)

Each new jitted function profiles its first calls and builds its graphs afresh, which it
drops with it: 36 ms an iteration where the plain function takes 0.4 ms (F382; TensorFlow
warns about `tf.function` retracing alike). janus counts the jitted functions `janus.jit`
makes per code object (held weakly: a function's code, a lambda's, a method's), and when
`REMADE` of them were made within `WINDOW` seconds and all but the last two are gone
already, each after at most `FEW` calls (made, called a few times and dropped: not a
factory jitting many closures that stay in use, nor a sweep training each for long), it
warns once per code object, naming the function and its line and what to do. (Running
the later ones' first calls plainly was withdrawn in session 33: a sweep jitting one step
per setting, each run a few calls, lost its graphs.)
"""
from __future__ import annotations

import collections
import threading
import time
import weakref

REMADE = 8
"""Jitted functions made for one code object within `WINDOW` before janus says so."""

WINDOW = 60.0
"""Seconds within which `REMADE` of them count as made again and again."""

FEW = 16
"""Calls each dropped one ran at most, for the warning."""

class _Made:
    """The last `REMADE` jitted functions made for one code object: when, held weakly, and
    their counters (which outlive them)."""

    def __init__(self):
        self.made: collections.deque = collections.deque(maxlen=REMADE)
        self.warned = False

    def again_and_again(self, now: float) -> bool:
        if len(self.made) < REMADE or now - self.made[0][0] > WINDOW:
            return False
        dropped = [stats for _, ref, stats in self.made if ref() is None]
        return len(dropped) >= REMADE - 2 and all(s.calls <= FEW for s in dropped)


_made: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def note(jitted, fn) -> str | None:
    """Note `jitted`, just made by `janus.jit` for `fn`: the warning to give (once per code
    object), or None. `remade(jitted)` says whether it starts plain."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    now = time.monotonic()
    with _lock:
        made = _made.get(code)
        if made is None:
            made = _made[code] = _Made()
        if made.warned:
            jitted._remade = True
            return None
        made.made.append((now, weakref.ref(jitted), jitted.stats))
        if not made.again_and_again(now):
            return None
        made.warned = True
        made.made.clear()
        jitted._remade = True
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", "the function")
    return (f"janus.jit(...) is called again and again for the same function {name} "
            f"({code.co_filename}:{code.co_firstlineno}): {REMADE} jitted functions of it "
            f"made within {WINDOW:.0f} s, each profiling and building its graphs afresh "
            "(slower than the function run plainly). Make the jitted function once, outside "
            "the loop, and call it there (pass what changes as arguments).")


def forget() -> None:
    """Forget every count and warning (tests: the same function jitted by many tests is
    not a loop)."""
    with _lock:
        _made.clear()


def remade(jitted) -> bool:
    """Whether `jitted` was made after its code object's warning (it starts plain)."""
    return getattr(jitted, "_remade", False)
