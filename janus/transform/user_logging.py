"""A logging record's caller found in the user's frames, not janus's (F445).

`logging.Logger.findCaller` walks out from the logging call, `stacklevel` frames that
are not logging's own, and names the frame it stops at in the record (`pathname`,
`lineno`, `funcName`, `module`). A helper of the user's that janus does not convert (it
reads frames) runs under janus's call hooks:

    plain Python:  step -> helper -> LOG.warning("x", stacklevel=2)    names step's line
    janus, before: step (converted) -> user_frames.call / limits.plain_call -> helper
                   -> LOG.warning("x", stacklevel=2)                  named janus's hook

`install()` wraps `findCaller` (once, process-wide): a record made by the user's code or
a library's counts no frame of janus's (logging's `_is_internal_frame` says janus's
frames are internal, as it says of its own and importlib's). A record janus's own code
makes (its `janus.cache` logger) names janus's frame, as before, and so does a logging
call converted code makes through user_frames.call, whose `stacklevel` that hook has
counted in janus's frames already.
"""
from __future__ import annotations

import logging
import sys
import threading

from janus import patches
from janus.operation_hooks import is_operation_hook
from janus.transform.user_frames import janus_frame, logging_counted

_state = threading.local()
_ORIGINAL_INTERNAL = getattr(logging, "_is_internal_frame", None)
_ORIGINAL_FIND = logging.Logger.findCaller


def _internal(frame) -> bool:
    """logging's own frames (and importlib's), the wrapper's, and, for a record the
    user's code makes, janus's."""
    if _ORIGINAL_INTERNAL(frame) or frame.f_code is _find_caller.__code__:
        return True
    return getattr(_state, "skip_janus", False) and janus_frame(frame)


def _made_by_janus(frame) -> bool:
    """Whether the logging call out from `frame` (the wrapper's caller) was made by
    janus's own code: its first frame that is not logging's is janus's, and not a hook
    calling for the user's code (user_frames.call, limits.plain_call)."""
    while frame is not None and _ORIGINAL_INTERNAL(frame):
        frame = frame.f_back
    return frame is not None and janus_frame(frame) and \
        not is_operation_hook(frame.f_code)


def _find_caller(self, stack_info=False, stacklevel=1):
    """`Logger.findCaller`, janus's frames not counted for the user's records."""
    previous = getattr(_state, "skip_janus", False)
    _state.skip_janus = not (logging_counted() or _made_by_janus(sys._getframe(1)))
    try:
        return _ORIGINAL_FIND(self, stack_info, stacklevel)
    finally:
        _state.skip_janus = previous


_find_caller.__name__ = "findCaller"  # (as janus's messages name it)
_find_caller.__qualname__ = "Logger.findCaller"


@patches.once
def install() -> None:
    """`_find_caller` in place of `Logger.findCaller`, and `_internal` of logging's
    `_is_internal_frame` (Pythons without it: nothing changed)."""
    if _ORIGINAL_INTERNAL is None:
        return
    logging._is_internal_frame = _internal
    logging.Logger.findCaller = _find_caller
