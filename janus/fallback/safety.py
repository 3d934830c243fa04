"""The safety net: janus's own errors never reach the user; the user's always do.

A jitted call goes through phases. What an exception means depends on the phase:

  bookkeeping  (warm start, conversion, guard checks, plans, feed, XLA trial, explain,
               event listeners): no user code ran, so any exception is janus's. The
               call runs plainly.
  tracing      (graph generation): speculation. Whatever it raises, nothing of the user's
               state changed (heap writes go to a ledger, variable updates to shadows),
               so the call runs plainly and plain Python raises what it raises. A trace
               failure raised by janus's own code is also reported as internal.
  profiling    (the converted copy runs with plain semantics while janus records; also
               the mixed runtime): the user's state does change. An exception whose
               innermost deciding frame is janus's own (`raised_by_janus`) is janus's;
               any other may still come from a conversion bug. So:
                 - no effect happened yet (`EffectWatch` saw no heap write, print,
                   variable update, iterator consumption or call of a non-pure
                   function): rerun plainly; plain Python decides. If it raises, its
                   exception (with the user's line) propagates; if it does not, the
                   converted code was wrong: an internal error, the plain result is
                   returned.
                 - effects happened and the exception is the user's kind: it propagates
                   (the converted copy mirrors the user's code line by line).
                 - effects happened and the exception is janus's: the call cannot be
                   rerun without running user code twice, so `JanusInternalError`
                   propagates (whatever the switch), and the function runs plainly
                   from then on.
  graph        (the ConcreteFunction call): an in-graph guard or an op failed before
               any variable changed (assignments depend on every guard and result):
               the call reruns plainly. Any other exception from calling the graph
               (bad feed, unknown error) is janus's: it reruns plainly too. (Known
               limit: a tf.py_function callback that ran inside the graph before the
               failing op runs again in the plain rerun.)
  write-back   (heap effects after the graph ran): only rebuilds values from the results
               and sets them; if it still fails, the graph already updated variables,
               so `JanusInternalError` propagates (whatever the switch).

An internal error is recorded: `explain` shows it, stats count it (`internal_errors`, and
the "internal error" fallback reason for the call), logs say it (category "fallback"), the
cache records the reason (event "fallback" with FallbackCategory.INTERNAL), and a
JanusWarning says it once. Except for warm start, recorded-graph loading and tracing
(which only cost that attempt), the function then runs plainly for good.
`janus.config.raise_internal_errors` (JANUS_RAISE_INTERNAL=1) raises `JanusInternalError`
(chained) instead, so tests see janus's bugs.

KeyboardInterrupt (and other BaseExceptions) always propagate. A Ctrl-C (SIGINT, main
thread, default handler) arriving while a graph runs or its results are written back is
held until both are done, then raised: the call leaves all of its effects. One raised
before the graph ran (or a graph aborted by it) leaves none: variables are committed
last inside the graph and the heap write-back had not started.
"""
from __future__ import annotations

import inspect
import _signal
import os
import sys
import sysconfig
import threading
import traceback

import tensorflow as tf

from janus import user_attributes
from janus.errors import ConversionError, JanusFallbackError, JanusInternalError, frames_of
from janus.fallback import hidden_effects
from janus.fallback.heap import MARKER
from janus.graphgen import formatted_text
from janus.profiler.runtime import ProfileRuntime
from janus.recursion import limits
from janus.tensors import is_tensor
from janus.transform import convert
from janus.transform.runtime import user_function
from janus.operation_hooks import is_operation_hook, operation_hook

_JANUS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_LIBRARY_DIRS = tuple({os.path.abspath(p) + os.sep for key in ("stdlib", "platstdlib",
                                                                "purelib", "platlib")
                       if (p := sysconfig.get_paths().get(key))})

def _is_janus(filename: str) -> bool:
    return filename.startswith(_JANUS_DIR) or filename.startswith("<janus")


def _is_library(filename: str) -> bool:
    return "site-packages" in filename or filename.startswith(_LIBRARY_DIRS) or \
        (filename.startswith("<") and not filename.startswith("<janus"))


def user_stacklevel() -> int:
    """The `stacklevel` for a `warnings.warn` made by its caller that names the innermost
    frame of user code (the line that called the jitted function), not janus's."""
    frame, level = sys._getframe(1), 1
    while frame is not None and (_is_janus(frame.f_code.co_filename) or
                                 _is_library(frame.f_code.co_filename)):
        frame, level = frame.f_back, level + 1
    return level if frame is not None else 1


def unwound_refusal(exc: BaseException) -> ConversionError | None:
    """The refusal a trace was unwinding when `exc` was raised, or None: janus refused
    something (a ConversionError), the user's own `finally` or `except` block ran during
    the trace on the way out and failed, e.g. reading a value the refused part had left
    in a branch's graph. The trace failed because of the refusal (fuzz v17, seed 495024)."""
    if isinstance(exc, ConversionError):
        return None
    seen: set = set()
    context = exc.__context__
    while context is not None and id(context) not in seen:
        if isinstance(context, ConversionError):
            return context
        seen.add(id(context))
        context = context.__context__
    return None


def raised_by_janus(exc: BaseException) -> bool:
    """Whether `exc` is janus's own error: not a ConversionError (a known limit), and the
    innermost frame of its traceback that is janus or user code (library frames skipped)
    is a janus frame other than a hook doing the user's own operation."""
    if isinstance(exc, ConversionError):
        return False
    if isinstance(exc, JanusInternalError):
        return True
    frames = [frame for frame, _ in traceback.walk_tb(exc.__traceback__)]
    for frame in reversed(frames):
        code = frame.f_code
        if _is_janus(code.co_filename):  # (a hook doing the user's own operation, marked
            return not is_operation_hook(code)  # `@operation_hook`: the user's)
        if not _is_library(code.co_filename):
            return False  # user code (or its converted copy: same file and lines)
    return False


def internal_error(message: str, exc: BaseException) -> JanusInternalError:
    """The JanusInternalError for `exc`, chained."""
    if isinstance(exc, JanusInternalError):
        return exc
    error = JanusInternalError(f"{message}: {type(exc).__name__}: {exc}")
    error.__cause__ = exc
    return error


def describe(exc: BaseException) -> str:
    """One line: the exception and the innermost janus frame it came from."""
    where = ""
    for frame in reversed(frames_of(exc)):
        if _is_janus(frame.filename):
            where = f" (at {os.path.basename(frame.filename)}:{frame.lineno} in {frame.name})"
            break
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text[:200]}{where}"


# -- effects seen while converted code runs with plain semantics ---------------------------

_watch = threading.local()

_PURE_BUILTINS = frozenset({len, isinstance, issubclass, range, int, float, bool, str, repr,
                            abs, min, max, tuple, type, hasattr, id, round, divmod, enumerate,
                            zip, format, callable, hash, slice, complex})
_PURE_BUILTIN_IDS = frozenset(map(id, _PURE_BUILTINS))  # (by identity: no user __eq__/__hash__)
_STATEFUL_NAMES = ("print", "assign", "random", "numpy_function", "py_function", "py_func",
                   "variable", "scatter", "iterator", "next", "summary", "write", "save",
                   "load", "shuffle", "seed", "stateful", "callback", "function", "run",
                   "apply", "update", "map")
_STATEFUL_MODULES = ("random", "distribute", "summary", "data", "checkpoint", "saved_model",
                     "script_ops", "io_ops", "lookup", "queue")
_IMPLICIT_CODE = hidden_effects.IMPLICIT_CODE  # (looked up inline first: a class known
# not to run the program's dunders costs one dict read per hooked value)
_PURE_ITERABLES = (list, tuple, range, dict, str, bytes, set, frozenset)


def effects_seen() -> int:
    return getattr(_watch, "effects", 0)


class watching:
    """Count effects for the duration (nests: the outer count includes the inner)."""

    def __enter__(self):
        self.previous = getattr(_watch, "effects", None)
        _watch.effects = 0
        return self

    def __exit__(self, *exc_info):
        self.effects = _watch.effects
        _watch.effects = None if self.previous is None else self.previous + self.effects


def _effect() -> None:
    if getattr(_watch, "effects", None) is not None:
        _watch.effects += 1


def _pure_call(fn) -> bool:
    """A call that cannot change anything outside itself (conservative)."""
    if id(fn) in _PURE_BUILTIN_IDS:
        return True
    if isinstance(fn, type) and issubclass(fn, BaseException):
        return True  # making the exception a `raise` statement raises
    owner = user_attributes.get(fn, "__self__")
    if is_tensor(owner) and not isinstance(owner, tf.Variable):
        return True  # methods of an immutable tensor (x.numpy(), x.get_shape())
    module = user_attributes.get(fn, "__module__", None) or ""
    if not module.startswith("tensorflow") or isinstance(fn, type):
        return False
    name = user_attributes.get(fn, "__name__", "").lower()
    return not any(word in name for word in _STATEFUL_NAMES) and \
        not any(word in module for word in _STATEFUL_MODULES)


def _hands_over_code(args, kwargs) -> bool:
    """Whether a call passes a function (also in a list, tuple or dict) to its callee."""
    def is_code(value):
        return callable(value) and not isinstance(value, type) and not is_tensor(value)
    for value in (*args, *kwargs.values()):
        if is_code(value):
            return True
        if isinstance(value, (list, tuple)) and any(is_code(v) for v in value):
            return True
        if isinstance(value, dict) and any(is_code(v) for v in value.values()):
            return True
    return False


class EffectWatch:
    """A runtime mixin counting the effects converted code has had so far.

    `callees_watched`: whether calls of user functions run under this same runtime
    class (then their own operations are counted), or elsewhere (then the call counts).
    """

    callees_watched = True

    @operation_hook
    def st_attr(self, obj, name, value):
        _effect()
        return super().st_attr(obj, name, value)

    @operation_hook
    def del_attr(self, obj, name):
        _effect()
        return super().del_attr(obj, name)

    @operation_hook
    def st_item(self, obj, key, value):
        _effect()
        return super().st_item(obj, key, value)

    def st_global(self, name, value):
        _effect()
        return super().st_global(name, value)

    def st_free(self, name, value):
        _effect()
        return super().st_free(name, value)

    @operation_hook
    def ld_global(self, name, value):
        if _IMPLICIT_CODE.get(type(value)) is not False and \
                hidden_effects.value_runs_users_code(value):
            _effect()  # (its operators run the program's dunders plainly: F407)
        return super().ld_global(name, value)

    @operation_hook
    def ld_free(self, name, value):
        if _IMPLICIT_CODE.get(type(value)) is not False and \
                hidden_effects.value_runs_users_code(value):
            _effect()
        return super().ld_free(name, value)

    def ctx(self, manager):
        if hidden_effects.manager_runs_users_code(manager):
            _effect()  # (its `__enter__` runs plainly, next: unwatched; F405)
        return super().ctx(manager)

    @operation_hook
    def ld_attr(self, obj, name):
        if hidden_effects.read_runs_users_code(obj, name):
            _effect()  # (a property of the program's runs plainly: unwatched; F405)
        value = super().ld_attr(obj, name)
        if _IMPLICIT_CODE.get(type(value)) is not False and \
                hidden_effects.value_runs_users_code(value):
            _effect()  # (F407)
        return value

    @operation_hook
    def ld_item(self, obj, key):
        if hidden_effects.item_read_runs_users_code(obj):
            _effect()
        value = super().ld_item(obj, key)
        if _IMPLICIT_CODE.get(type(value)) is not False and \
                hidden_effects.value_runs_users_code(value):
            _effect()  # (F407)
        return value

    @operation_hook
    def del_item(self, obj, key):
        _effect()
        return super().del_item(obj, key)

    @operation_hook
    def aug(self, op, target, value):
        if not isinstance(target, (int, float, complex, str, bytes, tuple, frozenset)) and \
                not (is_tensor(target) and not isinstance(target, tf.Variable)):
            _effect()  # may update the object in place (list +=, variable)
        return super().aug(op, target, value)

    @operation_hook
    def iterate(self, site, iterable):
        if not isinstance(iterable, _PURE_ITERABLES) and not is_tensor(iterable):
            _effect()  # consumes an iterator or generator
        return super().iterate(site, iterable)

    @operation_hook
    def call(self, site, fn, /, *args, **kwargs):
        if _hands_over_code(args, kwargs):
            _effect()  # the callee runs the callback (tf.foldl, tf.map_fn): unwatched
        elif not _pure_call(fn):
            target, _ = user_function(fn)
            if target is None or not self.callees_watched or not _converts(target):
                _effect()  # (a callee janus cannot convert runs plainly: unwatched)
        result = super().call(site, fn, *args, **kwargs)
        if _IMPLICIT_CODE.get(type(result)) is not False and \
                hidden_effects.value_runs_users_code(result):
            _effect()  # (F407)
        return result


def _converts(target) -> bool:
    """Whether the profiler runs `target` converted (watched), not plainly (a lambda,
    a function with `global`/try/except: fuzz finding F14)."""
    try:
        convert(target)
    except Exception:  # noqa: BLE001 - any failure: it runs plainly
        return False
    return True


class WatchedProfileRuntime(EffectWatch, ProfileRuntime):
    """The profiler's runtime, counting effects (callees run under it too)."""


def run_watched(jit, phase: str, run, args, kwargs):
    """Run converted code with plain semantics (`run()`) for `jit`; an exception is the
    user's or janus's by the profiling rules of the module docstring."""
    with watching() as watch:
        if any(map(hidden_effects.value_runs_users_code, (*args, *kwargs.values()))):
            _effect()  # (the program's object: its operators run its dunders, F407)
        try:
            with limits.converted_room(jit._own_frames):  # (janus's frames per level: F349)
                result = run()
        except (JanusInternalError, JanusFallbackError):
            raise
        except Exception as exc:  # noqa: BLE001 - classified below
            error = exc
        else:
            if not limits.seen() or watch.effects:
                return result
            # the user's code caught a RecursionError, raised at another depth than
            # plain Python's: nothing happened yet, plain Python decides
            return limits.plain_call(jit.fn, args, kwargs, jit._own_frames)
    try:
        return _after_error(jit, phase, error, watch.effects, args, kwargs)
    finally:
        error = None  # (its traceback holds this frame: a cycle, F441)


def _after_error(jit, phase: str, error: Exception, effects, args, kwargs):
    """`run_watched`'s converted run raised `error` (`effects`: the user's code changed
    things first): raised as the user's, or the call run plainly."""
    if isinstance(error, RecursionError):
        # deeper than the room janus gave (recursion/limits.py): not janus's bug, and
        # only this call's refusal; with effects, plain Python (with fewer frames per
        # level) would have met it too
        if effects:
            raise error
        return limits.plain_call(jit.fn, args, kwargs, jit._own_frames)
    if raised_by_janus(error) and not misbound(error, jit.fn, args, kwargs):
        if effects:  # cannot rerun: the user's code already changed things
            jit.report_internal(phase, error, always_raise=True)
        jit.report_internal(phase, error)
        return limits.plain_call(jit.fn, args, kwargs, jit._own_frames)
    if effects:
        raise error  # the user's own exception, from the converted copy of their line
    try:  # nothing happened yet: plain Python decides whether it is the user's
        result = limits.plain_call(jit.fn, args, kwargs, jit._own_frames)
    except Exception as plain:
        if type(plain) is not type(error):
            jit.report_internal(phase, error, note=f"plain Python raised {type(plain).__name__} "
                                              "instead")
        raise
    jit.report_internal(phase, error, note="plain Python did not raise")
    return result


def misbound(error: Exception, fn, args: tuple, kwargs: dict) -> bool:
    """A TypeError of arguments that do not fit `fn`'s parameters (`f()` missing one): the
    caller's mistake, raised where janus calls the converted copy, not janus's."""
    if not isinstance(error, TypeError):
        return False
    try:
        inspect.signature(fn).bind(*args, **kwargs)
    except TypeError:
        return True
    except ValueError:  # (no signature to read)
        return False
    return False


# -- describing why a trace failed --------------------------------------------------------

class Reason(ConversionError):
    """A failure already described in full (location and hint included)."""

    def __init__(self, text: str):
        self.text = text
        Exception.__init__(self, text)

    def describe(self) -> str:
        return self.text


class InternalReason(Reason):
    """The function runs plainly because janus's own machinery failed on it."""


def error_text(exc: BaseException) -> str:
    """`str(exc)` as plain text, never raising: an exception the user's code raised in a
    trace may carry text formatted there (`assert n < 3, f"got {n}"`: a FormattedText
    holding markers, whose reads refuse), whose values only the graph's run knows."""
    try:
        text = formatted_text.plain(str(exc))
    except Exception:  # noqa: BLE001 - a message that cannot be read as text
        return f"<a {type(exc).__name__} message janus cannot show>"
    return MARKER.sub("<a value known when the graph runs>", text)


def known_limit(exc: Exception) -> Exception:
    """Trace failures that no other graph would avoid, said plainly (as ConversionError)."""
    text = error_text(exc)
    if isinstance(exc, AttributeError) and "'numpy'" in text:
        reason = "calls .numpy() on a tensor (a graph has no values while it is built)"
    elif isinstance(exc, NotImplementedError) and "numpy" in text:
        reason = "passes a tensor to numpy (numpy needs values a graph does not have yet)"
    elif isinstance(exc, TypeError) and "symbolic" in text.lower() and "numpy" in text:
        reason = "converts a tensor to a numpy/Python value"
    else:
        return exc
    error = ConversionError(reason)
    error.__traceback__ = exc.__traceback__
    if hasattr(exc, "janus_frames"):  # (`detached`: where it was raised, without frames)
        error.janus_frames = exc.janus_frames
    return error


def explain_exception(exc: Exception, function=None) -> str:
    """The reason a trace failed, located at the innermost line of user code (or, when no
    user code is on the traceback, at the definition of the jitted `function`)."""
    user_frame = None
    for frame in reversed(frames_of(exc)):
        if not _is_janus(frame.filename) and not _is_library(frame.filename):
            user_frame = frame
            break
    if isinstance(exc, ConversionError):
        if exc.lineno == 0 and user_frame is not None:
            exc.located(user_frame.name, user_frame.filename, user_frame.lineno)
        elif exc.lineno == 0 and getattr(function, "__code__", None) is not None:
            code = function.__code__
            exc.located(function.__qualname__, code.co_filename, code.co_firstlineno)
        return exc.describe()
    where = ""
    if user_frame is not None:
        line = (user_frame.line or "").strip()
        where = f" at {user_frame.filename}:{user_frame.lineno} (`{line}`)"
    text = error_text(exc)
    message = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {message}{where}; this function runs eagerly"


# -- Ctrl-C while a graph runs -------------------------------------------------------------

class interrupts_held:
    """Hold SIGINT while a graph runs and its results are written back (main thread, default
    handler only): a Ctrl-C then raises KeyboardInterrupt once the call's effects are all
    applied (or, if the graph failed, with none applied), never between the graph's
    variable updates and the heap write-back. (`_signal`: `signal`'s enum wrappers cost
    ~35 us a call, more than the rest of janus's per-call work.)"""

    def __enter__(self):
        self.held = False
        self.active = threading.get_ident() == _MAIN_THREAD and \
            _signal.getsignal(_SIGINT) is _DEFAULT_HANDLER
        if self.active:
            _signal.signal(_SIGINT, self._hold)
        return self

    def _hold(self, signum, frame):
        self.held = True

    def __exit__(self, *exc_info):
        if self.active:
            _signal.signal(_SIGINT, _DEFAULT_HANDLER)
            if self.held:
                raise KeyboardInterrupt
        return False


_MAIN_THREAD = threading.main_thread().ident
_SIGINT = _signal.SIGINT
_DEFAULT_HANDLER = _signal.default_int_handler
