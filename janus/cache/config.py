"""Where the graph cache lives and how big it may grow.

`janus.cache.settings` is process-wide; attributes are read at the moment they are
needed, so changing them (or the environment) after `import janus` takes effect.

directory: the cache directory. None means `$JANUS_CACHE_DIR`, else
    `$XDG_CACHE_HOME/janus`, else `~/.cache/janus`.
enabled: record specializations on disk (`JANUS_CACHE=0` turns it off).
warm_start: let a later process reuse a recorded profile and plan (`JANUS_WARM_START=0`
    turns it off; `JANUS_WARM_START=record` records for later processes but starts cold).
warm_start_same_process: also let a new JitFunction of the same function in the process
    that recorded it start warm (off: within a process janus behaves as without a cache).
max_entries_per_function / max_entries: bounds; past them the least used
    specializations are evicted (fewest graph runs, then least recently used).
flush_interval: seconds between counter flushes (counters are also flushed at exit).
max_record_bytes / max_graph_bytes: the largest cache file janus reads (JSON records,
    indexes and warm-start states / graph files); a larger one is not read (one warning,
    treated as corrupt: regenerated) and not written, so whatever is on disk costs a
    bounded time and memory (files.read_bytes).
"""
from __future__ import annotations

import dataclasses
import os


def _env_on(name: str, default: bool = True) -> bool:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    return value.strip().lower() not in ("0", "false", "no", "off")


def default_directory() -> str:
    env = os.environ.get("JANUS_CACHE_DIR")
    if env:
        return os.path.abspath(os.path.expanduser(env))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "janus")


@dataclasses.dataclass
class CacheSettings:
    directory: str | None = None
    enabled: bool | None = None
    warm_start: bool | None = None
    warm_start_same_process: bool = False
    max_entries_per_function: int = 16
    max_entries: int = 256
    flush_interval: float = 5.0
    max_failures_kept: int = 32
    max_record_bytes: int = 128 * 2**20
    max_graph_bytes: int = 512 * 2**20

    def resolved_directory(self) -> str:
        if self.directory:
            return os.path.abspath(os.path.expanduser(self.directory))
        return default_directory()

    def bound(self, name: str) -> int:
        """The size bound `name` (max_record_bytes, max_graph_bytes); its default if it was
        set to anything but a positive int."""
        value = getattr(self, name)
        if type(value) is int and value > 0:
            return value
        return next(f.default for f in dataclasses.fields(self) if f.name == name)

    def is_enabled(self) -> bool:
        return _env_on("JANUS_CACHE") if self.enabled is None else bool(self.enabled)

    def warm_start_enabled(self) -> bool:
        """Whether warm-start states are recorded (and, unless record-only, used)."""
        if not self.is_enabled():
            return False
        return _env_on("JANUS_WARM_START") if self.warm_start is None else bool(self.warm_start)

    def warm_start_used(self) -> bool:
        """Whether this process starts warm from states other processes recorded."""
        record_only = os.environ.get("JANUS_WARM_START", "").strip().lower() == "record"
        return self.warm_start_enabled() and not (self.warm_start is None and record_only)


settings = CacheSettings()
