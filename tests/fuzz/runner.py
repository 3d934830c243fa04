"""Run one program plainly and under `janus.jit`, call by call, and compare.

    result = run(source, calls)
    result.divergence   # None, or the first difference (class, call index, detail)
    result.stats        # janus.stats of the jitted entry point, as a dict

The source is written twice to real files under a temporary directory and imported
as two modules, so each side has its own globals, classes and variables (janus reads
the source with inspect). Each side gets its own state objects and copies of the list
argument; after every call the harness compares return values, stdout, the exception
(type, and message unless it is a TensorFlow runtime error), and the heap: the state
objects, the arguments and the module's data globals (lists, dicts, numbers, variables).

Outer-tape mode (`python -m tests.fuzz --outer-tape`; off in the quick suite): a quarter
of the programs (by a hash of their source: the generator's random stream stays as it
was) make every other call under a caller's `tf.GradientTape` watching the float
arguments; after the call both sides take the gradient of the float tensors it returned
with respect to those and the module's variables, and the gradients (None where Python's
tape has None) are compared with the result (`_under_outer_tape`). Off by default while
F147 is open: a graph's gradient gives zeros, Python None, for an input only outputs the
caller does not differentiate read (TF's own `tf.function` does the same).
"""
from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import io
import itertools
import os
import re
import signal
import sys
import tempfile
import threading
import time
import warnings
import zlib

import tensorflow as tf

import janus
from tests.fuzz import compare, inputs

try:
    from janus.errors import JanusInternalError
except ImportError:  # the safety net is not merged into this branch yet
    class JanusInternalError(Exception):
        pass

class Timeout(BaseException):
    """A call ran too long (a BaseException: janus's fallbacks must not swallow it)."""


def _alarm(signum, frame):
    raise Timeout()


_DIR = None
_COUNTER = itertools.count()


@contextlib.contextmanager
def fuzz_settings():
    """Strict internal errors (when janus has the switch), no on-disk cache recording
    (`JANUS_FUZZ_CACHE=1` keeps it), and functions with graph breaks split into segments
    whose graphs are kept whatever they cost, whole-function graphs kept however small
    (no plain trial; so their graph path is what is compared), restored afterwards."""
    from janus.cache.config import settings
    saved = (getattr(janus.config, "raise_internal_errors", None), settings.enabled,
             getattr(janus.config, "segments", None), _segmented_pays(),
             getattr(janus.config, "plain_trial", None))
    if saved[0] is not None:
        janus.config.raise_internal_errors = True
    plain = _plain_mode() if saved[4] is not None else {}
    if saved[4] is not None:  # tiny programs' graphs stay graphs: their graph path is compared
        janus.config.plain_trial = bool(plain)  # (the plain mode: the trial, plain wins)
    plain_saved = {(module, name): getattr(module, name) for module, name in plain}
    for (module, name), value in plain.items():
        setattr(module, name, value)
    if os.environ.get("JANUS_FUZZ_CACHE", "") != "1":
        settings.enabled = False
    knobs = _segment_knobs()
    if saved[2] is not None:
        janus.config.segments = True
        _segmented_pays(float("inf"))
    for (module, name), value in knobs.items():  # every stretch is traced, however small
        setattr(module, name, 0)
    try:
        yield
    finally:
        if saved[0] is not None:
            janus.config.raise_internal_errors = saved[0]
        settings.enabled = saved[1]
        if saved[2] is not None:
            janus.config.segments = saved[2]
            _segmented_pays(saved[3])
        if saved[4] is not None:
            janus.config.plain_trial = saved[4]
        for (module, name), value in plain_saved.items():
            setattr(module, name, value)
        for (module, name), value in knobs.items():
            setattr(module, name, value)


def _plain_mode() -> dict:
    """The plain mode (`JANUS_FUZZ_PLAIN=1`, `python -m tests.fuzz --plain`): each
    specialization is put on the graph-or-plain trial at its first graph call and plain
    wins it (graphgen/plain_trial.py), so calls alternate between the graph and the
    function run plainly, then run plainly, one in 3 checked; what it compares is those
    transitions. {(module, name): value} to set, or {} when off."""
    if os.environ.get("JANUS_FUZZ_PLAIN", "") != "1":
        return {}
    try:
        from janus.graphgen import plain_trial
    except ImportError:
        return {}
    knobs = {"START": 1, "MIN_GAIN": -1.0, "MAX_GRAPH_S": float("inf"),
             "MAX_PLAIN_S": float("inf"), "UNCHECKED": 2}
    found = {(plain_trial, name): value for name, value in knobs.items()
             if hasattr(plain_trial, name)}
    whole = _whole_trial()  # (a split or mixed function: tried as a whole at once, plain wins)
    if whole is not None:
        found.update({(whole, "QUIET"): 1, (whole, "SETTLE_CALLS"): 1, (whole, "ROUNDS"): 1,
                      (whole, "MIN_GAIN"): -1.0})
    return found


def _whole_trial():
    """janus.fallback.whole_trial (a split or mixed function against its plain run), or
    None where janus has none."""
    try:
        from janus.fallback import whole_trial
    except ImportError:
        return None
    return whole_trial


def _trial_module():
    """The module holding a segment's pay decision: janus.fallback.trial (segmented in
    janus before the trial had a module of its own), or None without segments."""
    try:
        from janus.fallback import trial
        return trial
    except ImportError:
        pass
    try:
        from janus.fallback import segmented
        return segmented
    except ImportError:
        return None


def _segment_knobs() -> dict:
    """{(module, name): value} of the thresholds below which a stretch is not traced
    (too few operations, too short a plain run), where janus has them."""
    knobs = {}
    trial = _trial_module()
    try:
        from janus.transform import segments
    except ImportError:
        return knobs
    for module, name in ((trial, "MIN_PLAIN_S"), (segments, "TINY_OPS")):
        if module is not None and hasattr(module, name):
            knobs[(module, name)] = getattr(module, name)
    whole = _whole_trial()  # (nor is the split tried as a whole, outside the plain mode)
    if whole is not None and os.environ.get("JANUS_FUZZ_PLAIN", "") != "1":
        knobs[(whole, "MAX_TRIALS")] = whole.MAX_TRIALS
    return knobs


def _segmented_pays(value=None):
    """janus's segment `PAYS` threshold (set it if `value` is given), or None without it."""
    trial = _trial_module()
    if trial is None or not hasattr(trial, "PAYS"):
        return None
    if value is not None:
        trial.PAYS = value
    return trial.PAYS


@dataclasses.dataclass
class Divergence:
    kind: str       # the class: "janus-raised:SyntaxError", "missing-raise", "heap", ...
    call: int       # index of the call in the sequence
    detail: str

    def signature(self) -> str:
        """The class plus the gist of the message (names and numbers blanked out)."""
        if self.kind in ("result", "heap", "variables", "stdout"):
            return self.kind  # the values differ from program to program
        gist = re.sub(r"\b\w*\d\w*\b", "#", self.detail.split("\n")[0])
        gist = re.sub(r"'[^']*'", "'?'", gist)[:90]
        return f"{self.kind}: {gist}"


@dataclasses.dataclass
class Result:
    calls: int                  # calls compared
    stats: dict                 # janus.stats(jitted).as_dict()
    divergence: Divergence | None
    seconds: float
    eager_reason: str = ""      # why janus ran calls eagerly (unsupported / generation failure)
    ill_conditioned: str = ""   # a numeric difference plain Python shows too (see below)


class _Outcome:
    def __init__(self, value, error, stdout, heap):
        self.value, self.error, self.stdout, self.heap = value, error, stdout, heap


def load(source: str, tag: str, jit: bool = False, stem: str = "fz_program"):
    """Import `source` as a fresh module from a real file (so inspect finds its source).
    The module's name is its own (`fz_<pid>_<n>_<tag>`); its file is `<dir>/<n>/<stem>.py`,
    so both sides of a comparison run a file of one basename: what a warning, a logging
    record or a frame names (`w.filename`, `record.module`) is alike (F439: a warm run's
    plain copy and janus's `fzw_<seed>.py` differed in length)."""
    global _DIR
    if _DIR is None:
        _DIR = tempfile.mkdtemp(prefix="janus-fuzz-")
    number = next(_COUNTER)
    name = f"fz_{os.getpid()}_{number}_{tag}"
    directory = os.path.join(_DIR, str(number))
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, stem + ".py")
    with open(path, "w") as f:
        f.write(source)
    return load_file(path, name, jit)


def _plain_jit(fn):
    return fn


def load_file(path: str, name: str, jit: bool):
    """Import the program file `path` as module `name`. Its `JIT` (what the program
    decorates functions and methods with) is `janus.jit` on the janus side and nothing
    on the plain side; set before the module's code runs."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    module.JIT = janus.jit if jit else _plain_jit
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def entry_point(module, jit: bool):
    """(how to call the program, the jitted function whose stats count): `f`, jitted on
    the janus side, or, when the program sets `ENTRY = "method"`, its method
    `State.run` (which the program decorates with JIT) on the call's state object."""
    if getattr(module, "ENTRY", None) == "method":
        def call(s, *args):
            return s.run(*args)
        return call, vars(module.State)["run"]
    fn = janus.jit(module.f) if jit else module.f
    return fn, fn


def unload(module) -> None:
    sys.modules.pop(module.__name__, None)
    with contextlib.suppress(OSError):
        os.remove(module.__file__)
    if _DIR is not None and os.path.dirname(os.path.dirname(module.__file__)) == _DIR:
        with contextlib.suppress(OSError):
            os.rmdir(os.path.dirname(module.__file__))   # (load's own directory)


class _Side:
    """One side of the comparison: its module, entry point, state objects."""

    def __init__(self, source: str, tag: str, jit: bool, stem: str = "fz_program"):
        self.module = load(source, tag, jit, stem)
        self.fn, self.jitted = entry_point(self.module, jit)
        self.objects = {"main": self.module.State(), "alt": self.module.State()}

    def call(self, spec: dict, x, n, flag, xs, tape: bool = False) -> _Outcome:
        s = self.module.State() if spec["obj"] == "new" else self.objects[spec["obj"]]
        out = io.StringIO()
        value, error = None, None
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                if tape:
                    value = self._under_outer_tape(s, x, xs, n, flag)
                else:
                    value = self.fn(s, x, xs, n, flag)
            except Exception as exc:  # noqa: BLE001 - compared with the other side
                error = exc
        heap = compare.snapshot({"objects": self.objects, "s": s, "xs": xs,
                                 "globals": compare.module_heap(self.module)})
        value = None if error is not None else compare.snapshot(value)
        outside = getattr(self.module, "OUTSIDE", None)  # (printed or written to files)
        text = out.getvalue() + (f"[outside]\n{outside()}" if outside is not None else "")
        return _Outcome(value, error, text, heap)


    def _under_outer_tape(self, s, x, xs, n, flag):
        """The call made under a caller's tape; (its value, the gradients of the float
        tensors it returned w.r.t. the float arguments and the module's variables)."""
        watched = [t for t in [x, *xs] if t.dtype.is_floating]
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(watched)
            value = self.fn(s, x, xs, n, flag)
        targets = [t for t in tf.nest.flatten(value)
                   if isinstance(t, tf.Tensor) and t.dtype.is_floating]
        variables = [v for _, v in sorted(vars(self.module).items())
                     if isinstance(v, tf.Variable) and v.dtype.is_floating]
        if not targets:
            return value, "no float result"
        try:
            grads = tape.gradient(targets, watched + variables)
        except Exception as exc:  # noqa: BLE001 - compared with the other side's
            grads = f"tape.gradient raised {type(exc).__name__}"
        else:  # (IndexedSlices: rows of a variable gathered; compared with their kind)
            grads = [("IndexedSlices", tf.convert_to_tensor(g))
                     if isinstance(g, tf.IndexedSlices) else g for g in grads]
        return value, grads


def outer_tape(source: str, index: int) -> bool:
    """Whether call `index` of program `source` is made under a caller's tape (only in
    outer-tape mode: the module docstring)."""
    return os.environ.get("JANUS_FUZZ_OUTER_TAPE") == "1" and \
        zlib.crc32(source.encode("utf-8")) % 4 == 0 and index % 2 == 1


def _error_text(exc) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def _program_named(text: str) -> str:
    """`text` with each side's file of the program (its path: `load`, a warm run's
    `fzw_<seed>.py`) named alike."""
    return re.sub(r"[^\s'\"]*?(fz_program|fz_\d+_\d+_\w+|fzw_\d+)\.py", "<program>.py", text)


def _compare(plain: _Outcome, jit: _Outcome, tol: float = compare.TOL) -> tuple[str, str] | None:
    p, j = plain.error, jit.error
    if isinstance(j, JanusInternalError):
        cause = j.__cause__ or j
        return f"internal:{type(cause).__name__}", _error_text(cause)
    if j is not None and p is None:
        return f"janus-raised:{type(j).__name__}", _error_text(j)
    if p is not None and j is None:
        return "missing-raise", f"plain raised {_error_text(p)}; janus returned"
    if p is not None:
        if type(p) is not type(j) and not _same_program_class(type(p), type(j)):
            return (f"wrong-exception:{type(p).__name__}->{type(j).__name__}",
                    f"plain {_error_text(p)}; janus {_error_text(j)}")
        if not isinstance(p, tf.errors.OpError) and _program_named(str(p)) != \
                _program_named(str(j)):  # (AutoGraph's "in user code:" names the file)
            return "exception-message", f"plain {_error_text(p)}; janus {_error_text(j)}"
    d = compare.text_difference(plain.stdout, jit.stdout, tol)
    if d:
        return "stdout", d
    if p is None:
        d = compare.difference(plain.value, jit.value, "result", tol)
        if d:
            return "result", d
    d = compare.difference(plain.heap, jit.heap, "heap", tol)
    if d:
        return ("variables" if "(variable)" in d else "heap"), d
    return None


def _same_program_class(a: type, b: type) -> bool:
    """Whether exception classes `a` and `b` are one class of the program, defined once in
    each side's copy of its module (a `class Skip(Exception)` of its own: zoo p48)."""
    return a.__qualname__ == b.__qualname__ and a.__module__ != b.__module__ and \
        all(m.startswith(("fz_", "zoo_")) for m in (a.__module__, b.__module__))


def _leaked_tf_state() -> tuple[str, str] | None:
    """TensorFlow state a call must not leave behind (TF's map_fn/scan set the variable
    scope's caching device while they trace a callback; left set, every later variable
    creation in the process fails): reset, and a divergence of its own."""
    scope = tf.compat.v1.get_variable_scope()
    if scope.caching_device is not None:
        device = scope.caching_device
        scope._caching_device = None   # (its setter refuses in eager mode)
        return "leaked-tf-state", f"the variable scope's caching device was left set: {device!r}"
    return None


def _isolate() -> None:
    """Forget conversions of earlier programs: janus caches them per code object, and equal
    code objects of another module would be reused with that module's globals (finding F2);
    each program must run as in a fresh process, so a rerun (minimizing) sees the same."""
    from janus.transform import pipeline
    cache = getattr(pipeline, "_cache", None)
    if isinstance(cache, dict):
        cache.clear()
    _earlier_threads_ended()
    from tensorflow.python import pywrap_tfe
    pywrap_tfe.TFE_ClearScalarCache()  # (eager's scalar constants, cached by value: after
    # an earlier program's `tf.constant(0.0)`, `tf.constant(-0.0)` is 0.0 eagerly: F471)


BUSY_THREAD_WAIT = 8.0
"""Seconds to wait, at most, for an earlier program's busy threads (a rule's writer or
heartbeat, alive a few seconds) to end before the next program runs: a thread of another
program running Python during this program's trace is F470's (OPEN), not this
program's; `fuzz-idle` threads only wait and are not waited for."""


def _earlier_threads_ended() -> None:
    end = time.monotonic() + BUSY_THREAD_WAIT
    for thread in threading.enumerate():
        if thread.name.startswith("fuzz-") and thread.name != "fuzz-idle":
            thread.join(timeout=max(0.0, end - time.monotonic()))


def run(source: str, calls: list[dict], timeout: int | None = 60) -> Result:
    """Run every call on both sides; stop at the first divergence. A program running
    longer than `timeout` seconds (main thread only) is a divergence of class "timeout"."""
    use_alarm = timeout and threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGALRM, _alarm) if use_alarm else None
    try:
        with fuzz_settings():
            return _run(source, calls, timeout if use_alarm else None)
    finally:
        if use_alarm:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)


def _run(source: str, calls: list[dict], timeout: int | None) -> Result:
    start = time.perf_counter()
    _isolate()
    plain = _Side(source, "plain", jit=False)
    jit = _Side(source, "janus", jit=True)
    divergence, done, side, ill_conditioned = None, 0, "plain", ""
    if timeout:
        signal.alarm(timeout)
    try:
        for i, spec in enumerate(calls):
            x, xs, n, flag = inputs.arguments(spec)
            side = "plain"
            tape = outer_tape(source, i)
            expected = plain.call(spec, x, n, flag, list(xs), tape)
            side = "janus"
            actual = jit.call(spec, x, n, flag, list(xs), tape)
            done = i + 1
            found = _compare(expected, actual) or _leaked_tf_state()
            if found and _numeric(found[0]) and _compare(expected, actual, LOOSE) is None \
                    and _ill_conditioned(source, calls[:i + 1], expected):
                ill_conditioned = f"call {i}: {found[1]}"
                break
            if found and _rounding_kind(found[0]) and _graph_rounding(source, calls[:i + 1]):
                ill_conditioned = f"call {i}: {found[1]} (Grappler's float rewrites: janus " \
                    "agrees with plain Python without them)"
                break
            if found:
                divergence = Divergence(found[0], i, found[1])
                break
    except Timeout:
        # the plain program itself not ending is the generator's bug, not janus's
        kind = "timeout" if side == "janus" else "plain-timeout"
        divergence = Divergence(kind, done, f"call #{done} ran over {timeout}s ({side})")
    finally:
        if timeout:
            signal.alarm(0)
        stats = janus.stats(jit.jitted).as_dict()
        unsupported = getattr(jit.jitted, "unsupported", None)
        reason = unsupported.describe() if unsupported is not None else \
            getattr(jit.jitted, "last_failure_reason", "")
        unload(plain.module)
        unload(jit.module)
    return Result(done, stats, divergence, time.perf_counter() - start, reason or "",
                  ill_conditioned)


# A graph may round a float32 result differently from eager kernels (fused multiply-adds,
# another summation order); a program that feeds such a value back (`s.total` grows
# from call to call, `sin` of a large number) can amplify one ulp beyond the tolerance.
# Such a difference is the program's, not janus's, when plain Python moves as much on
# inputs a few ulps apart; anything larger than LOOSE, or not numeric, always counts.
LOOSE = 1e-3
PERTURB = 1e-6   # relative change of every float input (~8 float32 ulps)


def _numeric(kind: str) -> bool:
    return kind in ("result", "heap", "variables", "stdout")


def _perturbed(value):
    if tf.is_tensor(value) and value.dtype.is_floating:
        return value * tf.constant(1.0 + PERTURB, value.dtype)
    return value


def _ill_conditioned(source: str, calls: list[dict], expected: _Outcome) -> bool:
    """Whether plain Python, run again on the same calls with every float input moved by
    PERTURB, differs from its first run at the last call beyond the tolerance."""
    side = _Side(source, "perturbed", jit=False)
    try:
        for i, spec in enumerate(calls):
            x, xs, n, flag = inputs.arguments(spec)
            moved = side.call(spec, _perturbed(x), n, flag, [_perturbed(v) for v in xs],
                              outer_tape(source, i))
        return _compare(expected, moved) is not None
    finally:
        unload(side.module)


# Grappler rewrites a graph's float arithmetic: constant folding and the arithmetic
# optimizer fold `x * 0.9 * 1.5` into `x * 1.35` (each does it alone), which rounds once
# where eager rounds twice. A program that compares such a value exactly with one an
# eager run made (`loss < s.best`, equal in plain Python) can take another branch (F40).
# That is the numeric exception too, listed apart like an ill-conditioned program: the
# divergence is janus's only if janus, run again with those rewrites off, still shows it.
REASSOCIATING = {"constant_folding": False, "arithmetic_optimization": False,
                 "remapping": False}  # (remapping: oneDNN fuses MatMul+BiasAdd, rounding otherwise)


def _rounding_kind(kind: str) -> bool:
    """Whether a divergence of class `kind` may come from a float rounded otherwise (not
    an internal error, a timeout or TensorFlow state left behind)."""
    return not kind.startswith(("internal:", "timeout", "plain-timeout", "leaked-tf-state"))


def _graph_rounding(source: str, calls: list[dict]) -> bool:
    """Whether janus agrees with plain Python at every one of `calls` when run again (both
    sides afresh) with Grappler's rewrites that reassociate float arithmetic off
    (`REASSOCIATING`): the divergence was that rounding's."""
    from tensorflow.python.eager import context

    options = context.context()._optimizer_experimental_options  # noqa: SLF001
    saved = dict(options)
    tf.config.optimizer.set_experimental_options(REASSOCIATING)
    _isolate()
    plain, jit = _Side(source, "plain", jit=False), _Side(source, "janus", jit=True)
    try:
        for i, spec in enumerate(calls):
            x, xs, n, flag = inputs.arguments(spec)
            tape = outer_tape(source, i)
            expected = plain.call(spec, x, n, flag, list(xs), tape)
            if _compare(expected, jit.call(spec, x, n, flag, list(xs), tape)) is not None:
                return False
        return True
    finally:
        options.clear()
        options.update(saved)
        tf.config.optimizer.set_experimental_options({})  # (drops the cached call options)
        unload(plain.module)
        unload(jit.module)
