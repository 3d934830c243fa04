"""Calls that look at their caller's frame, made from converted code.

Converted code calls a library function through janus's call hook, so the function's
caller is janus's frame, not the user's:

    logging.info("x")           record's funcName 'call', lineno of janus's runtime
    warnings.warn("x")          the warning attributed to janus's file and line
    sys._getframe().f_code.co_name, inspect.currentframe().f_globals   janus's frame

A logging call or a warning made through a hook is given the `stacklevel` that reaches
the user's frame: janus's own frames are skipped, and the converted code keeps the
user's file, lines and function name (also in the functions janus makes of the user's
blocks, transform/pipeline.py). absl's logging finds its caller itself
(`ABSLLogger.findCaller`, which also keys `log_every_n`/`log_first_n`'s counters by the
caller's file and line): janus's frames of the call are registered with it as frames to
skip for the call's duration (F317). A function that reads frames itself (`FRAME_READS`) is
not converted (transform/effects.py): it runs as the Python it is, its own frame the
user's; a trace refuses the frame functions reached by another name (F231).
`sys.getrecursionlimit()` asks the limit janus raised for the converted run: answered
with the program's own (recursion/limits.user_limit, F425).
"""
from __future__ import annotations

from janus import user_attributes
from janus.operation_hooks import operation_hook
from janus.recursion import limits
from janus.transform import caller_frames

import inspect
import logging
import os
import sys
import threading
import traceback
import types
import warnings

_GET_LIMIT = sys.getrecursionlimit

FRAME_READS = frozenset({"_getframe", "currentframe", "getouterframes", "getframeinfo",
                         "extract_stack", "format_stack", "print_stack", "walk_stack"})
"""Names of the functions that read the caller's frame (also `inspect.stack`/`.trace`)."""

FRAME_MODULES = frozenset({"inspect", "traceback", "sys"})


def frame_functions() -> tuple:
    return (sys._getframe, inspect.currentframe, inspect.stack, inspect.trace,
            inspect.getouterframes, inspect.getframeinfo, traceback.extract_stack,
            traceback.format_stack, traceback.print_stack, traceback.walk_stack)


def reads_frames(fn) -> bool:
    """Whether calling `fn` reads its caller's frame (by identity)."""
    return any(fn is f for f in frame_functions())


_PYTHON_WARN = warnings.warn  # (before user_warnings.install)
_JANUS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_LOGGING = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical",
                      "fatal", "log"})


JANUS_PREFIXES = (_JANUS_DIR, "<janus")
"""How the file names of janus's code begin (not the user's, nor converted code's)."""


def janus_frame(frame) -> bool:
    """A frame of janus's code (not the user's, nor converted code's)."""
    return frame.f_code.co_filename.startswith(JANUS_PREFIXES) or \
        caller_frames.is_stand_in(frame.f_code)


def is_block(code: types.CodeType) -> bool:
    """A function janus made of a block of the user's (a branch, a loop body)."""
    qualname = getattr(code, "co_qualname", code.co_name)
    return qualname.rpartition(".")[2].startswith("janus__")


_OWN_FRAMES: dict = {}  # id -> code (held): janus's functions standing for a user's


def mark_own_frame(code: types.CodeType) -> None:
    """`code`, named as a block (`janus__...`), runs in place of the user's function: its
    frame is the function's own (a split run's outer function, fallback/segmented.py)."""
    _OWN_FRAMES[id(code)] = code


def in_outer_frame(code: types.CodeType) -> bool:
    """A frame plain Python has not: its lines run in the frame of the user's function
    around it (a block janus made of the user's, a split run's segment)."""
    if code.co_qualname.rpartition(".")[2].startswith("<segment "):
        return True  # (a segment's converted copy, profiled: fallback/segmented.py names it)
    return is_block(code) and _OWN_FRAMES.get(id(code)) is not code


def _user_frame(frame, level: int):
    """The `level`-th frame of the user's outward from `frame` (1: the first): janus's
    frames skipped, a block's frame one with the converted function's around it."""
    while frame is not None:
        if janus_frame(frame):
            frame = frame.f_back
            continue
        if level == 1:
            return frame
        level -= 1
        inner_block = in_outer_frame(frame.f_code)
        frame = frame.f_back
        while inner_block and frame is not None:  # (to the function the block is of)
            if not janus_frame(frame):
                inner_block = in_outer_frame(frame.f_code)
            frame = frame.f_back
    return None


_COUNTED = threading.local()


def logging_counted() -> bool:
    """Whether this thread's logging call is one `call` gave its `stacklevel` counted in
    janus's frames already (transform/user_logging.py)."""
    return getattr(_COUNTED, "on", False)


def _logging_call(fn) -> bool:
    owner = user_attributes.get(fn, "__self__", None)
    name = user_attributes.get(fn, "__name__", "")
    return name in _LOGGING and (
        isinstance(owner, (logging.Logger, logging.LoggerAdapter)) or
        owner is None and user_attributes.get(fn, "__module__", None) == "logging")


def _absl_skips(fn) -> set | None:
    """For a function of `absl.logging` or a method of its logger (ABSLLogger): the set
    of frames ABSLLogger.findCaller skips; None for any other callable."""
    absl_logging = sys.modules.get("absl.logging")
    if absl_logging is None:
        return None
    owner = user_attributes.get(fn, "__self__", None)
    if owner is None and user_attributes.get(fn, "__module__", None) != "absl.logging" or \
            owner is not None and not isinstance(owner, getattr(absl_logging, "ABSLLogger", ())):
        return None
    skip = getattr(getattr(absl_logging, "ABSLLogger", None), "_frames_to_skip", None)
    return skip if isinstance(skip, set) else None


def _skipping_janus(fn, args: tuple, kwargs: dict, skip: set):
    """`fn(*args, **kwargs)` with janus's frames from here out to the user's registered
    in absl's `skip` (ABSLLogger's frames to skip) for the call."""
    frames, frame = set(), sys._getframe()
    while frame is not None and janus_frame(frame):
        code = frame.f_code
        frames.add((code.co_filename, code.co_name, code.co_firstlineno))
        frame = frame.f_back
    added = frames - skip
    skip |= added
    try:
        return fn(*args, **kwargs)
    finally:
        skip -= added


def _distance(start, target, internal) -> int:
    """The `stacklevel` naming `target` from a call made in frame `start` (1)."""
    level, frame = 1, start
    while frame is not None and frame is not target:
        frame = frame.f_back
        if frame is not None and not internal(frame):
            level += 1
    return level


def _logging_internal(frame) -> bool:
    check = getattr(logging, "_is_internal_frame", None)
    return bool(check(frame)) if check is not None else False


def _user_stacklevel(level, internal) -> int | None:
    """The `stacklevel` naming the user's frame `level` frames up from the caller (`call`)
    counted from there, or None. (Not in `call` itself: a frame holding its own frame
    object is a cycle keeping its callers' locals until the next collection, F436.)"""
    if type(level) is not int or level < 1:
        return None
    here = sys._getframe(1)
    target = _user_frame(here, level)
    return None if target is None else _distance(here, target, internal)


@operation_hook
def call(fn, args: tuple, kwargs: dict):
    """`fn(*args, **kwargs)` made for converted code: a logging call or a warning names
    the user's frame (at the `stacklevel` the user gave), as it does in plain Python."""
    if fn is _GET_LIMIT:  # (janus's room raised it: the program's own, F425)
        return limits.user_limit()
    skip = _absl_skips(fn)
    if skip is not None:
        return _skipping_janus(fn, args, kwargs, skip)
    if _logging_call(fn):
        level = _user_stacklevel(kwargs.get("stacklevel", 1), _logging_internal)
        if level is not None:
            kwargs = {**kwargs, "stacklevel": level}
        previous, _COUNTED.on = logging_counted(), True  # (user_logging: counted here)
        try:
            return fn(*args, **kwargs)
        finally:
            _COUNTED.on = previous
    if fn is warnings.warn and fn is not _PYTHON_WARN:  # (user_warnings.warn: counts
        return fn(*args, **kwargs)                    # from this hook's frame itself)
    if fn is _PYTHON_WARN:
        given = dict(zip(("message", "category", "stacklevel", "source"), args), **kwargs)
        level = _user_stacklevel(given.get("stacklevel", 1), lambda f: False)
        if level is not None:
            given["stacklevel"] = level
            return fn(**given)
    if caller_frames.reads_caller(fn):  # (a helper reading frames: F445)
        return caller_frames.call(fn, args, kwargs)
    return fn(*args, **kwargs)
