"""The graph cache you can see: every specialization janus makes is recorded on disk.

    ~/.cache/janus (or $JANUS_CACHE_DIR, or janus.cache.settings.directory)

For each specialization: the function (qualname, module, file, source hash), the TF
and janus versions, the guards in readable form with their source lines, the
generated source, the graph (GraphDef pbtxt with its function library), the op
histogram and the counters, summed over every process that ran it. Browse it with
the `janus` command (`janus cache list`, `show`, `export`, `stats`, `clear`).

Importing this package starts the recorder (it subscribes to janus.events; it
writes from a background thread and at exit, never on the hot path).
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

import os

from janus.cache.record import CorruptEntry
from janus.cache.recorder import recorder
from janus.cache.config import CacheSettings, settings
from janus.cache.store import CacheStore, CacheWarning
from janus.cache.warm import abandoned_warm_start, is_warm, warm_start

recorder.install()


def directory() -> str:
    """The cache directory in use."""
    return settings.resolved_directory()


def flush() -> None:
    """Write everything recorded so far (it also happens in the background and at exit)."""
    recorder.flush()


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
    return recorder.sids_of(jit)


__all__ = ["CacheSettings", "CacheStore", "CacheWarning", "CorruptEntry", "abandoned_warm_start",
           "directory", "flush", "is_warm", "location", "record_ids", "settings", "store",
           "warm_start"]
