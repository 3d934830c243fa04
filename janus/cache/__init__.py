"""The graph cache you can see: every specialization janus makes is recorded on disk.

    ~/.cache/janus (or $JANUS_CACHE_DIR, or janus.cache.settings.directory)

For each specialization: the function (qualname, module, file, source hash), the TF
and janus versions, the guards in readable form with their source lines, the
generated source, the graph (GraphDef pbtxt with its function library), the op
histogram and the counters, summed over every process that ran it. Browse it with
the `janus` command (`janus cache list`, `show`, `export`, `stats`, `clear`).

The recorder (it subscribes to janus.events; it writes from a background thread and at
exit, never on the hot path) and warm start need TensorFlow: they load with the jit API
(janus/function.py calls `start_recording()`), or on first use of their names here
(PEP 562), so that `import janus` and `janus cache ...` start without TensorFlow.
`JANUS_CACHE=0` or `janus.cache.settings.enabled = False` turns recording off.

Warm start (`warm_start(fn)`): a later process restores the profile and plan an
earlier one recorded for the same source and versions, and skips profiling.

The cache is untrusted input. Nothing read from it is `eval`-ed, `exec`-ed, imported or
unpickled: recorded sources are a validated grammar walked with getattr/getitem
(graphgen/sources.py), code janus generates from them holds only checked paths, modules
a record names are used only if already imported, and every record is sealed with an
HMAC under a per-user key kept outside the cache, owned by you, and private (0700
directories, 0600 files). Anything else is one warning, then janus regenerates
(files.py). Writers and evictors of several processes keep the index and the records
consistent under one lock (store.py).
"""
from __future__ import annotations

import importlib
import os

from janus.cache.record import CorruptEntry
from janus.cache.config import CacheSettings, settings
from janus.cache.store import CacheStore, CacheWarning

_RECORDING = ("recorder", "abandoned_warm_start", "is_warm", "warm_start")


def start_recording() -> None:
    """Load the recorder and warm start (they import TensorFlow) and install the recorder;
    their names become this package's (`janus.cache.recorder` is the Recorder, not its
    module, even when the module was imported directly before)."""
    recording = importlib.import_module("janus.cache.recorder")
    warm = importlib.import_module("janus.cache.warm")
    globals().update(recorder=recording.recorder, warm_start=warm.warm_start,
                     is_warm=warm.is_warm, abandoned_warm_start=warm.abandoned_warm_start)
    recording.recorder.install()


def __getattr__(name: str):
    if name in _RECORDING:
        start_recording()
        return globals()[name]
    raise AttributeError(f"module 'janus.cache' has no attribute {name!r}")


def _recorder():
    """The recorder if it was loaded (nothing is recorded before the jit API is), else None."""
    found = globals().get("recorder")
    return found if hasattr(found, "flush") else None


def directory() -> str:
    """The cache directory in use."""
    return settings.resolved_directory()


def flush() -> None:
    """Write everything recorded so far (it also happens in the background and at exit)."""
    active = _recorder()
    if active is not None:
        active.flush()


def store(path: str | None = None) -> CacheStore:
    """The cache directory as a CacheStore (for reading: `.scan()`)."""
    return CacheStore(path or directory())


def location(fn) -> str | None:
    """Where this jitted function's records are, once it made a graph and they were flushed."""
    from janus.cache import record as rec
    jit = fn if hasattr(fn, "specializations") else getattr(fn, "jit", fn)
    try:
        from janus.transform import convert
        converted = convert(jit.fn)
    except Exception:  # noqa: BLE001
        converted = None
    path = os.path.join(directory(), rec.identify(jit, converted).key)
    return path if os.path.isdir(path) else None


def record_ids(fn) -> list[str]:
    """Cache ids of the specializations this process recorded for `fn` (after a flush)."""
    jit = fn if hasattr(fn, "specializations") else getattr(fn, "jit", fn)
    active = _recorder()
    return active.sids_of(jit) if active is not None else []


__all__ = ["CacheSettings", "CacheStore", "CacheWarning", "CorruptEntry", "abandoned_warm_start",
           "directory", "flush", "is_warm", "location", "record_ids", "settings", "store",
           "warm_start"]
