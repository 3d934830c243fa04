"""Host state library code changes while janus traces, which a graph would not change.

    keras.layers.Dropout(0.5)       Keras seeds the layer from Python's `random`
                                    (`random.randint`) and numbers its name (`dropout_3`)

Plain Python changes these on every call that runs such code; a graph runs it once, while
tracing (and a trace that fails is run again plainly: twice). So a trace that changed them
is refused, and they are put back as they were before it: the user's `random` stream and
the names of later Keras objects stay plain Python's. (The user's own `random` calls are
graph breaks: transform/breaks.py.)

Another thread may draw and name meanwhile (a data loader's `random.random()`, a worker
building layers: F372): while a trace runs, the `random` module's functions and Keras'
`uniquify` are stand-ins that note the thread calling them. The tracing thread's draws
come from a copy of the stream (taken at its first draw: what plain Python would draw
there), so the stream is never rewound; a change another thread made (or may have made:
graphgen/other_threads.py) is never put back (that would repeat its draws); the trace is
refused only for what its own thread did.
"""
from __future__ import annotations

import collections
import random
import sys
import threading

import tensorflow as tf

from janus.fallback import heap
from janus.graphgen import other_threads

try:
    from keras.src.backend.common import global_state as _keras_state
    from keras.src.utils import naming as _keras_naming
except ImportError:  # pragma: no cover - Keras is a dependency of TensorFlow 2.16+
    _keras_state = _keras_naming = None

_RANDOM_FUNCTIONS = ("seed", "random", "uniform", "triangular", "randint", "choice",
                     "randrange", "sample", "shuffle", "choices", "normalvariate",
                     "lognormvariate", "expovariate", "vonmisesvariate", "gammavariate",
                     "gauss", "betavariate", "binomialvariate", "paretovariate",
                     "weibullvariate", "setstate", "getrandbits", "randbytes")
"""The `random` module's functions that move its state (bound methods of its instance)."""

_lock = threading.Lock()
_open: list = []  # the HostStates of the traces running now (on any thread)
_tracing: dict = {}  # thread ident -> the HostState of the trace it runs
_patched: list = []  # (module, name, original) while `_open` is not empty


def _noting(original, ledger: str, name: str):
    def stand_in(*args, **kwargs):
        ident = threading.get_ident()
        for state in list(_open):
            getattr(state, ledger).add(ident)
        own = _tracing.get(ident)
        if own is not None and own.where is None:  # (where the trace first drew or named)
            own.where = _stack()
        if own is not None and ledger == "drawers":  # (the trace's draw: from its copy)
            return getattr(own.stream(), name)(*args, **kwargs)
        if own is not None:  # (the trace's naming: which name, in which graph, by whom)
            own.named.append((args[0] if args else kwargs.get("name"),
                              tf.compat.v1.get_default_graph(), _internal_operation()))
        return original(*args, **kwargs)
    for attribute in ("__module__", "__name__", "__qualname__", "__doc__"):
        try:
            setattr(stand_in, attribute, getattr(original, attribute))
        except (AttributeError, TypeError):
            continue
    stand_in.__wrapped__ = original
    return stand_in


def _stack(limit: int = 200) -> tuple:
    """(file, line) of the frames out from the caller of a stand-in, innermost first."""
    found, frame = [], sys._getframe(2)
    while frame is not None and len(found) < limit:
        found.append((frame.f_code.co_filename, frame.f_lineno))
        frame = frame.f_back
    return tuple(found)


def located(where: tuple | None, fn) -> dict:
    """The line of `fn` (the traced function) out from which the trace first drew or
    named (`HostState.where`), as ConversionError's keywords; {} when none is."""
    code = getattr(fn, "__code__", None)
    if code is None or not where:
        return {}
    last = max((line for _, _, line in code.co_lines() if line), default=0)
    lines = [line for filename, line in where if filename == code.co_filename and
             code.co_firstlineno < line <= last]
    if not lines:
        return {}
    return {"function": getattr(fn, "__qualname__", "?"), "filename": code.co_filename,
            "lineno": lines[-1]}  # (the outermost: the traced function's own line)


def _internal_operation() -> bool:
    """Whether the Keras code numbering a name now was entered through a function of
    `keras.ops` (`keras.ops.cond` makes and calls a `Cond` operation, which nobody else
    sees), not a class the program constructs (`keras.layers.Dense()`: its name is the
    program's to read, and a graph would keep the trace's)."""
    frame = sys._getframe(2)
    outermost = None
    while frame is not None and "/keras/" in frame.f_code.co_filename:
        outermost = frame.f_code
        frame = frame.f_back
    return outermost is not None and "/keras/src/ops/" in outermost.co_filename and \
        not outermost.co_name.startswith("_")


def _install() -> None:
    places = [(random, name, "drawers") for name in _RANDOM_FUNCTIONS
              if getattr(getattr(random, name, None), "__self__", None) is random._inst]
    if _keras_naming is not None:
        places.append((_keras_naming, "uniquify", "namers"))
    for module, name, ledger in places:
        original = getattr(module, name)
        setattr(module, name, _noting(original, ledger, name))
        _patched.append((module, name, original))


def _uninstall() -> None:
    while _patched:
        module, name, original = _patched.pop()
        setattr(module, name, original)


def _keras_names():
    if _keras_state is None:
        return None
    return _keras_state.get_global_attribute("object_name_uids")


class HostState:
    """What a trace may change: taken before it; `restore` after it."""

    def __init__(self):
        self.thread = threading.get_ident()
        self.drawers: set = set()  # threads that drew from `random` meanwhile
        self.namers: set = set()  # threads that numbered a Keras name meanwhile
        self.named: list = []  # (name, graph) of each Keras name the trace's thread numbered
        self.renamed: dict = {}  # name -> count: what each graph call numbers (`restore`)
        self.where: tuple | None = None  # the stack where the trace first drew or named
        self.copy = None  # the trace's copy of the `random` stream (`stream`)
        with _lock:
            if not _open:
                _install()
            _open.append(self)
            _tracing.setdefault(self.thread, self)
        self.window = other_threads.Window()
        self.random = random.getstate()
        names = _keras_names()
        self.names = None if names is None else dict(names)

    def stream(self) -> random.Random:
        """The trace's copy of the `random` stream (made at its first draw)."""
        if self.copy is None:
            self.copy = random.Random()
            self.copy.setstate(random.getstate())
        return self.copy

    def _close(self) -> None:
        with _lock:
            if self in _open:
                _open.remove(self)
            if _tracing.get(self.thread) is self:
                del _tracing[self.thread]
            if not _open:
                _uninstall()

    def restore(self, graph=None) -> str | None:
        """Put back what changed (what only this thread changed); what the trace's own
        thread changed (for a refusal), or None. Keras names numbered by the trace's own
        thread, all in `graph` (the trace's own, no branch or loop body of it) and nothing
        else changing them, are put back and not refused: `renamed` holds them, numbered
        again on every call the graph runs (F467)."""
        self._close()
        window = self.window
        changed = []
        drew = self.thread in self.drawers  # (from its copy: the stream is as it was)
        if random.getstate() != self.random and not self.drawers - {self.thread}:
            # (drawn by a way no stand-in saw, `from random import random`: the trace's
            # unless another thread ran; then whose is not known: refused, kept)
            drew = True
            if not window.disturbed():
                random.setstate(self.random)
        if drew:
            changed.append("draws from Python's `random`")
        names = _keras_names()
        if names is not None and dict(names) != (self.names or {}):
            counts = self._replayed(names, graph, window)
            if counts is not None:
                _put_names(names, self.names)
                self.renamed = counts
            elif _own(self.namers, self.thread, window,
                      lambda: _put_names(names, self.names)):
                changed.append("numbers the names of the Keras objects it makes")
        return " and ".join(changed) or None


    def _replayed(self, names: dict, graph, window) -> dict | None:
        """The names the trace numbered, as counts a graph call numbers again, where
        that is what plain Python numbers on every call: the trace's thread alone
        numbered, each in the trace's own graph (a branch's or a loop body's naming
        happens in Python per branch taken, per iteration; a nested tf.function's once,
        at its trace), for an operation a `keras.ops` function makes and drops (no name
        the program reads), and the counts account for the whole change."""
        if graph is None or self.namers - {self.thread} or window.disturbed() or \
                any(made is not graph or not internal or type(name) is not str
                    for name, made, internal in self.named):
            return None
        counts = collections.Counter(name for name, _, _ in self.named)
        before = collections.Counter(self.names or {})
        if dict(before + counts) != {k: v for k, v in names.items() if v}:
            return None
        return dict(counts)


def renumber(counts: dict) -> None:
    """Number the Keras names `counts` says, as the calls a graph replaces would have
    (a heap.Effect "names", written after the graph ran)."""
    if _keras_naming is None:
        return
    for name, count in counts.items():
        for _ in range(count):
            _keras_naming.uniquify(name)


heap.WRITERS["names"] = renumber


def _own(callers: set, thread: int, window, put_back) -> bool:
    """Whether a change of the Keras names is to be taken as the trace's own (refused).
    Put back only when no other thread named meanwhile: another's change is kept, and
    not blamed on the trace. A change no stand-in saw is the trace's unless another
    thread ran meanwhile: then it is refused, and kept."""
    others = callers - {thread}
    if not others and (thread in callers or not window.disturbed()):
        put_back()
        return True
    return thread in callers or not others


def _put_names(names: dict, saved: dict | None) -> None:
    names.clear()
    names.update(saved or {})
