"""`warnings.warn`'s `stacklevel` counted in the user's frames, not janus's (F406).

`warnings.warn(msg, DeprecationWarning, stacklevel=2)` names the frame `stacklevel - 1`
steps out from its caller, and the filters and "once per location" registries key on
that frame's module and line. A jitted function janus runs plainly (a plain run after
a failed generation, a split run's segment) has janus's frames as its callers:

    plain Python:   __main__ -> step -> warn(stacklevel=2)      names __main__'s line
    janus, before:  __main__ -> JitFunction.__call__ -> ... -> limits.plain_call -> step
                    -> warn(stacklevel=2)                       named limits.py's line
                    (a DeprecationWarning from janus's module: ignored by default)

`install()` puts `warn` in place of `warnings.warn` (once, process-wide): a warning made
from the user's code or a library's counts its `stacklevel` in frames that are not
janus's (a block janus made of the user's function counts with that function's frame,
user_frames.in_outer_frame: a split run's segment too), then asks Python's own
`warn` for exactly that frame. A call
from janus's own code (its JanusWarning, whose `stacklevel` is counted already) is
passed on as it is; one from an operation hook (converted code's `warnings.warn(...)`
through user_frames.call) is the user's, counted from the hook's frame.
"""
from __future__ import annotations

import sys
import warnings

from janus import patches
from janus.operation_hooks import is_operation_hook
from janus.transform.user_frames import JANUS_PREFIXES as _JANUS_PREFIXES, \
    in_outer_frame, janus_frame

ORIGINAL = warnings.warn
"""Python's `warnings.warn` (C's `_warnings.warn`), before `install`."""
_getframe = sys._getframe
_PAST_THE_STACK = 1 << 30  # (Python's walk stops at the outermost frame: names "sys")


def _importlib_internal(frame) -> bool:
    """A frame Python's `warn` does not count (warnings.py `_is_internal_frame`)."""
    filename = frame.f_code.co_filename
    return "importlib" in filename and "_bootstrap" in filename


def _named_frame(caller, level: int):
    """The frame `stacklevel=level` of a warning made in `caller` names in plain Python:
    janus's frames not counted, nor importlib's (unless `caller` is one: Python's rule)."""
    skip_internal = not _importlib_internal(caller)
    frame = caller
    while frame is not None and janus_frame(frame):
        frame = frame.f_back
    while level > 1 and frame is not None:
        level -= 1
        inner_block = in_outer_frame(frame.f_code)
        frame = frame.f_back
        while frame is not None and (janus_frame(frame) or inner_block or
                                     skip_internal and _importlib_internal(frame)):
            if not janus_frame(frame):  # (a block's function: counted with the block)
                inner_block = in_outer_frame(frame.f_code)
            frame = frame.f_back
    return frame


def _level_to(start, target) -> int | None:
    """The `stacklevel` at which Python's `warn`, called from `start`, names `target`
    (its walk skips importlib's frames); None when its walk cannot reach it."""
    level, frame = 1, start
    while frame is not None and frame is not target:
        frame = frame.f_back
        internal = frame is not None and _importlib_internal(frame)
        if frame is target and internal:
            return None
        if not internal:
            level += 1
    return level


def warn_from(caller, args: tuple, kwargs: dict):
    """`warnings.warn(*args, **kwargs)` made in frame `caller`, its `stacklevel` counted
    in the frames plain Python has there."""
    given = kwargs
    if len(args) > 2:
        level = args[2]
    else:
        level = kwargs.get("stacklevel", 1)
    if not isinstance(level, int):  # (Python's `warn` raises its own TypeError)
        return ORIGINAL(*args, **kwargs)
    target = _named_frame(caller, max(int(level), 1))
    if target is None:  # (past the outermost frame: Python names "sys")
        fixed = _PAST_THE_STACK
    else:
        fixed = _level_to(sys._getframe(), target)
    if fixed is None:
        return ORIGINAL(*args, **kwargs)
    if len(args) > 2:
        args = args[:2] + (fixed,) + args[3:]
    else:
        given = {**kwargs, "stacklevel": fixed}
    return ORIGINAL(*args, **given)


def warn(*args, **kwargs):
    """`warnings.warn`, its `stacklevel` counted in the frames plain Python has."""
    caller = _getframe(1)
    level = args[2] if len(args) > 2 else kwargs.get("stacklevel", 1)
    if type(level) is int and level >= 1:  # (the common case: no frame of janus's or
        frame, left = caller, level        # importlib's up to the one named, as it is)
        while frame is not None:
            filename = frame.f_code.co_filename
            if filename.startswith(_JANUS_PREFIXES) or "_bootstrap" in filename:
                break
            left -= 1
            if left == 0:
                if len(args) > 2:
                    return ORIGINAL(*args[:2], level + 1, *args[3:], **kwargs)
                if "stacklevel" in kwargs:
                    return ORIGINAL(*args, **{**kwargs, "stacklevel": level + 1})
                return ORIGINAL(*args, stacklevel=level + 1, **kwargs)
            frame = frame.f_back
    if janus_frame(caller) and not is_operation_hook(caller.f_code):  # (janus's own
        # warning: its `stacklevel` counted already; a hook's is the user's: counted here)
        return _passed_on(args, kwargs)
    return warn_from(caller, args, kwargs)


def _passed_on(args: tuple, kwargs: dict):
    """Python's `warn` called with the `stacklevel` given, `warn`'s frame and this one
    added."""
    level = args[2] if len(args) > 2 else kwargs.get("stacklevel", 1)
    if not isinstance(level, int):
        return ORIGINAL(*args, **kwargs)
    fixed = max(int(level), 1) + 2
    if len(args) > 2:
        return ORIGINAL(*args[:2], fixed, *args[3:], **kwargs)
    return ORIGINAL(*args, **{**kwargs, "stacklevel": fixed})


@patches.once
def install() -> None:
    """`warn` in place of `warnings.warn` (a program's `from warnings import warn` made
    before janus was imported keeps Python's)."""
    warnings.warn = warn
