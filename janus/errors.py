"""Exceptions janus raises and the reasons it records for running eagerly."""
from __future__ import annotations

import enum
import traceback


class FallbackCategory(enum.Enum):
    """Why a call ran imperatively instead of as a graph."""

    UNSUPPORTED = "unsupported construct"
    GUARD_FAILURE = "guard failure"
    LIMIT = "limit reached"
    PROFILING = "profiling"
    INTERNAL = "internal error"
    BUSY = "another thread is profiling or generating"


class EagerRun:
    """A call that runs eagerly: why, and how ("plain", "mixed" or "profiled")."""

    def __init__(self, category: FallbackCategory, reason: str, mode: str = "plain"):
        self.category, self.reason, self.mode = category, reason, mode


class ConversionError(Exception):
    """janus cannot turn this code into a graph; the call runs eagerly instead.

    Carries where (function, file, line) and what the user can do about it.
    """

    def __init__(self, reason: str, *, function: str = "?", filename: str = "?",
                 lineno: int = 0, hint: str = "this function runs eagerly"):
        self.reason = reason
        self.function = function
        self.filename = filename
        self.lineno = lineno
        self.hint = hint
        super().__init__(self.describe())

    def located(self, function: str, filename: str, lineno: int) -> "ConversionError":
        """Fill in what is not known yet of the location."""
        if self.lineno == 0:
            self.lineno = lineno
        if self.function == "?":
            self.function = function
        if self.filename == "?":
            self.filename = filename
        self.args = (self.describe(),)
        return self

    def describe(self) -> str:
        where = f" ({self.filename}:{self.lineno})" if self.filename != "?" else ""
        return f"{self.function}{where}: {self.reason}; {self.hint}"


class Unprofiled(ConversionError):
    """A tensor-valued test the trace reached where no profiled call did (a helper only
    another mode of the function calls, a branch first taken now): the call runs profiled
    so the next trace knows its outcomes; a failed generation only after
    `generation.MAX_REPROFILES` of them, or when the same test is met again. `key`: the
    test's (function, site)."""

    key: tuple = ()


class BuildsOnFirstCall(ConversionError):
    """A Keras optimizer or layer makes its variables on its first call, and that call
    came in a trace: it runs plainly (which builds them) and the next call is traced
    again; not a failed generation (graphgen/specialize.py, graphgen/refusals.py)."""


class InconclusiveTrace(ConversionError):
    """A trace that changed state another thread ran meanwhile, and so may have changed
    too (graphgen/other_threads.py): whose change it was is not known, so nothing is put
    back; `made`, the trace's graph, runs this call (the trace's changes were the call's)
    and is not kept: a later call traces again (generation.py, F372)."""

    made = None


class JanusFallbackError(RuntimeError):
    """Raised in strict mode where janus would otherwise fall back to eager."""


class JanusInternalError(RuntimeError):
    """An error in janus's own machinery (a bug), raised only when
    `janus.config.raise_internal_errors` is on (`JANUS_RAISE_INTERNAL=1`; the test suite
    sets it) or where hiding it would need running user code twice (see
    janus/fallback/safety.py). Chained to the original exception."""


def cause_of(exc: BaseException, kinds):
    """The exception of `kinds` behind `exc` (raised by code janus traced and wrapped by
    a library or TensorFlow on its way out), or None: `__cause__`/`__context__` followed
    once each."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, kinds):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def detached(exc: BaseException | None) -> BaseException | None:
    """`exc`, to be kept beyond its call (a jit's `unsupported` or `last_trace_error`, the
    conversion cache), without what held the call's state alive (F397): its traceback's
    frames reached the user's frames, the call's arguments and janus's heap snapshot, so
    objects plain Python frees never died (a WeakValueDictionary never emptied, a
    WeakMethod hook kept firing). Where it happened stays, as `frames_of` (file, line
    and function names, no frames); the chain (`__cause__`, `__context__`) is cut: its
    tracebacks hold frames too, and what janus reads of it is read before."""
    if exc is None:
        return None
    if exc.__traceback__ is not None:
        try:
            exc.janus_frames = traceback.StackSummary.extract(
                traceback.walk_tb(exc.__traceback__), lookup_lines=False)
        except Exception:  # noqa: BLE001 - an exception without a __dict__: no location
            pass
        exc.__traceback__ = None
    exc.__cause__ = exc.__context__ = None
    return exc


def frames_of(exc: BaseException) -> traceback.StackSummary:
    """The frames `exc` was raised through (kept by `detached`, or its live traceback's),
    outermost first, as `traceback.extract_tb` gives them."""
    kept = getattr(exc, "janus_frames", None)
    if exc.__traceback__ is None and kept is not None:
        return kept
    return traceback.extract_tb(exc.__traceback__)
