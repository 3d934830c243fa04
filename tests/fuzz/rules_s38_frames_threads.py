"""Generator rules (session 38) from F439, F445 and F433.

- A helper asks who called it: `sys._getframe(1)`, `inspect.stack()[1]`, a logger's
  `findCaller(stacklevel=2)`, a warning with `stacklevel=3` through two helpers; the
  file's basename and the line number feed the result (so the program's file must be
  named alike on both sides, F439, and no frame of janus's may show, F445:
  transform/caller_frames.py, user_logging.py; also in the warm mode's processes).
- A library's log a writer thread keeps writing to (the same dict and set, its own key)
  while the step's trace writes there too through library code, then makes the trace fail
  (a graph break: a host read of a tensor): the trace's own writes are put back, the
  thread's kept, and the plain run writes once (F433: graphgen/own_writes.py).

The library is a module the program writes under a `site-packages` directory (janus
takes it for a library's code, runtime.user_file). Registered in `rules.RULES` on
import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_FRAMES = '''\
import inspect as f_inspect
import logging as f_logging
import os as f_os
import sys as f_sys
import warnings as f_warnings


def f_caller():
    """The caller's file basename length and line (its frame)."""
    frame = f_sys._getframe(1)
    return len(f_os.path.basename(frame.f_code.co_filename)) + frame.f_lineno


def f_stacked():
    """The caller's file basename length and line (`inspect.stack`)."""
    caller = f_inspect.stack(0)[1]
    return len(f_os.path.basename(caller.filename)) + caller.lineno


def f_logged():
    """The caller's file, line and function, as logging finds them for a record."""
    path, line, name, _ = f_logging.getLogger("fuzz_s38").findCaller(False, 2)
    return len(f_os.path.basename(path)) + line + len(name)


def f_inner_warn():
    f_warnings.warn("deep", UserWarning, stacklevel=3)


def f_warned():
    """A warning through two helpers naming the step's line."""
    with f_warnings.catch_warnings(record=True) as caught:
        f_warnings.simplefilter("always")
        f_inner_warn()
    return sum(len(f_os.path.basename(w.filename)) + w.lineno for w in caught
               if w.category.__name__ != "JanusWarning")
'''

_ASKS = ["f_caller()", "f_stacked()", "f_logged()", "f_warned()"]


@rule(0.4, max_depth=2)
def helper_names_its_caller(g):
    """(F439, F445) A helper reads the frame that called it (file basename, line); the value
    feeds the result, the heap or a Python number."""
    _helper(g, _FRAMES)
    ask = g.choice(_ASKS)
    use = g.choice([
        f"acc = acc + tf.cast({ask} % 97, acc.dtype)",
        f"out.append({ask} % 97)",
        f"k = k + {ask} % 97",
    ])
    return g.choice([
        [use],
        [f"if {g.pcond()}:", f"    {use}"],
        [f"if {g.tcond()}:", f"    {use}"],
        ["for _ in range(2):", f"    {use}"],
    ])


_WRITER = '''\
import os
import sys
import tempfile
import threading as _wthreading
import time as _wtime

_WLIB = os.path.join(tempfile.gettempdir(), "fuzz_s38_library", "site-packages")
_WSRC = """
class KeyLog:
    def __init__(self):
        self.history = {}
        self.marks = set()

    def log(self, value):
        self.history[len(self.history)] = value

    def mark(self, value):
        self.marks.add(value)
"""


def _wwrite():
    """The library's module, written once."""
    if not os.path.exists(os.path.join(_WLIB, "fuzz_s38keylog.py")):
        os.makedirs(_WLIB, exist_ok=True)
        temporary = os.path.join(_WLIB, "fuzz_s38keylog.%d.tmp" % os.getpid())
        with open(temporary, "w") as written:
            written.write(_WSRC)
        os.replace(temporary, os.path.join(_WLIB, "fuzz_s38keylog.py"))


_wwrite()
if _WLIB not in sys.path:
    sys.path.append(_WLIB)
import fuzz_s38keylog  # noqa: E402

WLOG = fuzz_s38keylog.KeyLog()
WLOG.history["beat"] = 0  # (the writer's key: there before the step's first log)


def _wbeat(seconds=2.0):
    """A writer: every millisecond for two seconds (of the clock: many programs' writers
    alive at once do not stretch it), the same key and mark again."""
    stop, end = _wthreading.Event(), _wtime.monotonic() + seconds
    while _wtime.monotonic() < end and not stop.wait(0.001):
        WLOG.history["beat"] = 0
        WLOG.marks.add("beat")


_wthreading.Thread(target=_wbeat, name="fuzz-writer", daemon=True).start()


def wlen():
    """How much the step's log holds, as one number (the writer's key counted once)."""
    return len(WLOG.history) + 100 * len(WLOG.marks - {"beat"})
'''

_WRITES = [
    "tf.nest.map_structure(WLOG.log, float(n))",
    "tf.nest.map_structure(WLOG.log, 1.0)",
    "tf.nest.map_structure(WLOG.mark, n % 3)",
]
_BREAKS = [
    "acc = acc + float(np.asarray(tf.reduce_sum(acc)) * 0.0)",
    "k = k + int(tf.reduce_sum(acc).numpy() > 1e9)",
]
_WUSES = [
    "k = k + wlen()",
    "acc = acc + tf.cast(wlen(), acc.dtype) * 0.001",
    "out.append(wlen())",
]


@rule(0.3, max_depth=2)
def library_log_with_a_writer_thread(g):
    """(F433) Library code logs while janus traces the step, and a writer thread writes
    to the same log all the while; the step then breaks the graph (the trace fails)."""
    _helper(g, _WRITER)
    write, broken, use = g.choice(_WRITES), g.choice(_BREAKS), g.choice(_WUSES)
    return g.choice([
        [write, broken, use],
        [write, use, broken],
        [f"if {g.pcond()}:", f"    {write}", broken, use],
        [broken, write, use],
    ])
