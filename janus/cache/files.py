"""Cache files you can trust: private, owned by you, sealed, written atomically.

- Directories are created 0700 and files 0600, with those modes at creation
  (`os.mkdir(path, 0o700)`, `os.open(..., 0o600)`), never opened up and chmod-ed later.
- Before anything is read, the file (via the open descriptor) and its directory must be
  owned by the current user and not writable by group or others; symlinks are refused.
  Anything else is `UnsafeEntry`: skipped with a warning, never used.
- Every JSON record is *sealed*: it carries `mac`, an HMAC-SHA256 of its canonical JSON
  under a per-user key kept outside the cache directory (`$JANUS_CACHE_KEY_FILE`, else
  `$XDG_CONFIG_HOME/janus/cache.key`, else `~/.config/janus/cache.key`; 32 random bytes,
  0600). A record that was modified, truncated, or written under another key (a cache
  copied from another user or machine) does not unseal: `CorruptEntry`, then janus
  regenerates. The seal is what lets a later process trust a recorded graph; the
  grammar of sources (graphgen/sources.py) is what keeps even a sealed record from
  running code of its own.
- Every read is bounded (`settings.max_record_bytes`, `max_graph_bytes`; the key: 32
  bytes): a larger file is `TooLarge` before anything of it is read, so a huge or
  sparse file costs nothing; a writer refuses to write one (it would never be read).
- A file is written to a private temporary name in the same directory, flushed, fsync-ed
  and `os.replace`-d into place: readers see the old file or the new one, never a torn one.
"""
from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import stat
import threading

from janus.cache.config import settings

FORMAT = 2
KEY_BYTES = 32
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # (a FIFO put where a file was: no wait for a writer)
_key_lock = threading.Lock()
_keys: dict[str, bytes] = {}


class CorruptEntry(Exception):
    """A cache file that exists but cannot be used; the message says which and why."""


class OldEntry(CorruptEntry):
    """A record an older janus wrote (another format): not an error, just regenerated."""


class UnsafeEntry(CorruptEntry):
    """A cache file or directory someone else owns or may write: never read."""


class UnusableKey(CorruptEntry):
    """The cache key file is not a key: nothing can be sealed or unsealed (no entry is
    at fault; the cache is not used at all)."""


class TooLarge(CorruptEntry):
    """A cache file over its size bound: not read, or not written."""


def check_size(path: str, size: int, bound: str | int) -> None:
    """TooLarge if `size` bytes exceed `bound`: a janus.cache.settings size bound's name, or
    a number of bytes."""
    limit = settings.bound(bound) if isinstance(bound, str) else bound
    if size > limit:
        where = f" (janus.cache.settings.{bound})" if isinstance(bound, str) else ""
        raise TooLarge(f"{path} is {_megabytes(size)}, over the {_megabytes(limit)} limit "
                       f"for janus cache files{where}")


def _megabytes(n: int) -> str:
    return f"{n} bytes" if n < 2**20 else f"{n / 2**20:.1f} MB"


def uid() -> int:
    """The user cache files must belong to (tests simulate others by patching os.getuid)."""
    return os.getuid() if hasattr(os, "getuid") else -1


def problem_with(st: os.stat_result, directory: bool = False, private: bool = False) -> str:
    """'' if a file/directory with this stat may be trusted, else why not (`private`:
    not even readable by others)."""
    if uid() < 0:   # no POSIX ownership (Windows): nothing to check
        return ""
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if directory and not stat.S_ISDIR(st.st_mode):
        return "is not a directory"
    if not directory and not stat.S_ISREG(st.st_mode):
        return "is not a regular file"
    if st.st_uid != uid():
        return f"is owned by another user (uid {st.st_uid})"
    if st.st_mode & 0o022:
        return f"is writable by group or others (mode {stat.S_IMODE(st.st_mode):03o})"
    if private and st.st_mode & 0o077:
        return f"is readable by group or others (mode {stat.S_IMODE(st.st_mode):03o})"
    return ""


def check_dir(path: str) -> None:
    """UnsafeEntry unless `path` is a directory of ours that only we may write."""
    trouble = problem_with(os.lstat(path), directory=True)
    if trouble:
        raise UnsafeEntry(f"{path} {trouble}")


def ensure_dir(path: str) -> None:
    """Create `path` (0700) if missing, else check it. Parents above it are created with
    the default mode only if missing (they are not the cache's)."""
    try:
        check_dir(path)
        return
    except FileNotFoundError:
        pass
    parent = os.path.dirname(path)
    if parent and not os.path.isdir(parent):
        os.makedirs(parent, exist_ok=True)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    else:
        st = os.lstat(path)
        if stat.S_IMODE(st.st_mode) & 0o700 != 0o700:
            os.chmod(path, 0o700)   # a umask that took our own bits: give back ours only
    check_dir(path)


def _open_private(path: str) -> int:
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600)


def atomic_write(path: str, data: bytes | str, bound: str | int = "max_record_bytes") -> None:
    """Write `data` to `path` (0600) so that no reader ever sees a partial file; TooLarge
    (nothing written) if it is over `bound` (see check_size), which readers would refuse."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    check_size(path, len(data), bound)
    directory = os.path.dirname(path) or "."
    base = os.path.basename(path)
    for attempt in range(100):
        tmp = os.path.join(directory, f".tmp-{os.getpid()}-{threading.get_ident()}-"
                                      f"{attempt}-{base}")
        try:
            fd = _open_private(tmp)
            break
        except FileExistsError:
            continue
    else:
        raise OSError(errno.EEXIST, f"no temporary name free in {directory}")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_bytes(path: str, check_directory: bool = True, private: bool = False,
               bound: str | int = "max_record_bytes") -> bytes:
    """The bytes of a cache file, after checking the file and its directory are ours.
    FileNotFoundError if it is missing; UnsafeEntry if it may not be trusted; TooLarge if
    it is over `bound` (see check_size: checked before reading, and at most one byte more
    than the bound is ever read, should the file grow meanwhile)."""
    if check_directory:
        check_dir(os.path.dirname(os.path.abspath(path)))
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | _NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeEntry(f"{path} is a symbolic link") from None
        raise
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        trouble = problem_with(st, private=private)
        if trouble:
            raise UnsafeEntry(f"{path} {trouble}")
        check_size(path, st.st_size, bound)
        limit = settings.bound(bound) if isinstance(bound, str) else bound
        data = f.read(limit + 1)
        check_size(path, len(data), bound)
        return data


# -- sealing -------------------------------------------------------------------------------

def key_path() -> str:
    env = os.environ.get("JANUS_CACHE_KEY_FILE")
    if env:
        return os.path.abspath(os.path.expanduser(env))
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "janus", "cache.key")


def _load_key(path: str) -> bytes:
    try:
        data = read_bytes(path, private=True, bound=KEY_BYTES)
    except TooLarge:
        data = b""
    if len(data) != KEY_BYTES:
        raise UnusableKey(f"{path} is not a janus cache key (32 bytes): the cache is neither "
                           "read nor written until it is; delete it (janus makes a new one and "
                           "regenerates the entries) or set JANUS_CACHE_KEY_FILE")
    return data


def key() -> bytes:
    """This user's cache key, created on first use (32 random bytes, 0600)."""
    path = key_path()
    cached = _keys.get(path)
    if cached is not None:
        return cached
    with _key_lock:
        try:
            value = _make_key(path)
        except CorruptEntry:
            raise
        except OSError as exc:
            raise OSError(f"no usable cache key at {path} ({exc.strerror or exc}); "
                          "JANUS_CACHE_KEY_FILE names another place") from None
        _keys[path] = value
        return value


def _make_key(path: str) -> bytes:
    try:
        return _load_key(path)
    except FileNotFoundError:
        pass
    ensure_dir(os.path.dirname(path))
    tmp = f"{path}.tmp-{os.getpid()}-{threading.get_ident()}"
    fd = _open_private(tmp)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(os.urandom(KEY_BYTES))
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)   # atomic and exclusive: a racing process wins or we do
        except FileExistsError:
            pass
    finally:
        os.unlink(tmp)
    return _load_key(path)


def canonical(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True).encode("ascii")


def mac(value: dict) -> str:
    body = {k: v for k, v in value.items() if k != "mac"}
    return hmac.new(key(), canonical(body), hashlib.sha256).hexdigest()


def seal(value: dict) -> str:
    """The JSON text of `value` with its `mac`."""
    sealed = dict(value, mac=mac(value))
    return json.dumps(sealed, indent=1, sort_keys=True) + "\n"


def unseal(data: bytes, path: str) -> dict:
    """The record in `data`, if its mac matches; CorruptEntry otherwise."""
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise CorruptEntry(f"{path}: not valid JSON ({len(data)} bytes; {exc})") from None
    if not isinstance(value, dict):
        raise CorruptEntry(f"{path}: expected a JSON object")
    found = value.get("format")
    if type(found) is int and 0 < found < FORMAT:
        raise OldEntry(f"{path}: written by an older janus (record format {found})")
    if found != FORMAT:
        raise CorruptEntry(f"{path}: unknown record format {found!r}")
    recorded = value.get("mac")
    try:
        expected = mac(value)
    except (ValueError, RecursionError) as exc:
        raise CorruptEntry(f"{path}: not canonical JSON ({exc})") from None
    if not isinstance(recorded, str) or not hmac.compare_digest(recorded, expected):
        raise CorruptEntry(f"{path}: its checksum does not match (modified, truncated, or "
                           "written under another user's key)")
    del value["mac"]
    return value
