"""TensorFlow's warning when a graph call fails, kept off the user's stderr.

A janus graph that fails (an in-graph guard, `checks.require`, an op plain Python would
raise on too) makes TensorFlow's executor abort the call's rendezvous, which logs

    W0000 ... local_rendezvous.cc:412] Local rendezvous is aborting with status:
    INVALID_ARGUMENT: assertion failed: [janus-guard-0]  [[{{node Assert/Assert}}]]

on the process's stderr (absl's LOG_EVERY_POW_2: the 1st, 2nd, 4th, 8th... failure of
the process). The call then reruns plainly, and plain Python prints nothing of it
(probe h2 x01: an every-k-steps branch `if s.step % 3 == 0: s.log.append(y)`).

So while janus's graphs run, absl's minimum log level (TensorFlow's C++ logging, what
TF_CPP_MIN_LOG_LEVEL sets) is at least ERROR: `quiet()` before the call, `loud()`
after it, counted across threads (the first raises it, the last puts back the level it
found, unless someone changed it meanwhile). Only INFO and WARNING lines logged during
janus's own graph calls are dropped; errors, and everything logged outside them (the
user's eager ops, tf.data, TF's start-up lines), stay. Where the library does not export
absl's `SetMinLogLevel`, both are no-ops (the warning shows, as before).
"""
from __future__ import annotations

import ctypes
import mmap
import os
import re
import threading

import tensorflow as tf

_ERROR = 2  # absl::LogSeverityAtLeast::kError
_KNOWN = ("_ZN4absl12lts_2025081411MinLogLevelEv",  # (absl's get, then its set)
          "_ZN4absl12lts_2025081414SetMinLogLevelENS0_18LogSeverityAtLeastE")
_SYMBOLS = re.compile(rb"_ZN4absl\w{0,30}?1(?:4SetMinLogLevelENS0_18LogSeverityAtLeastE|"
                      rb"1MinLogLevelEv)")

_lock = threading.Lock()
_active = 0     # graph calls under way
_found = -1     # the level the first of them found
_functions = None  # (get, set), or () where absl's are not found


def _absl_functions() -> tuple:
    """absl's `MinLogLevel` and `SetMinLogLevel` in TensorFlow's framework library."""
    path = os.path.join(os.path.dirname(tf.__file__), "libtensorflow_framework.so.2")
    try:
        lib = ctypes.CDLL(path)
        names = [name for name in _KNOWN if hasattr(lib, name)]
        if len(names) != 2:  # another absl release: its names, read once from the library
            with open(path, "rb") as file, \
                    mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
                names = sorted({m.decode() for m in _SYMBOLS.findall(data)})
            names.sort(key=lambda name: "SetMinLogLevel" in name)  # (get first)
        if len(names) != 2:
            return ()
        get, put = getattr(lib, names[0]), getattr(lib, names[1])
    except (OSError, AttributeError, ValueError):
        return ()
    get.restype, get.argtypes = ctypes.c_int, []
    put.restype, put.argtypes = None, [ctypes.c_int]
    return get, put


def quiet() -> None:
    """A janus graph call starts: TensorFlow's INFO/WARNING lines off until `loud()`."""
    global _active, _found, _functions
    with _lock:
        if _functions is None:
            _functions = _absl_functions()
        _active += 1
        if _active == 1 and _functions:
            _found = _functions[0]()
            if _found < _ERROR:
                _functions[1](_ERROR)


def loud() -> None:
    """The graph call that `quiet()` began has ended."""
    global _active
    with _lock:
        _active -= 1
        if _active == 0 and _functions and _found < _ERROR and _functions[0]() == _ERROR:
            _functions[1](_found)
