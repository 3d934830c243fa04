"""Which frames on the stack plain Python has not: janus's own (F349, F368).

Python counts frames against the recursion limit. Where janus runs the user's code, its
stack holds frames plain Python's has not:

    janus's files       the runtime's `call`, the effect watch, `_invocation`, a
                        `plain_call`... (a `__call__` entered through its type's slot: 2
                        counts in Python 3.11, the slot's C call and the frame; measured)
    janus's blocks      the functions janus made of a user's branch or loop body
                        (`janus__*`, transform/user_frames.is_block)
    thunks              the lambdas without arguments a converted `or`/`if` expression
                        hands a hook (`rt.or_value(site, a, lambda: b)`)

and the converted copy of a user's function stands for the user's frame (1 each).

    extra_counts(frame, stop)   # what plain Python has not from `frame` out to `stop`

A code object's kind is computed once (`_kind`, by the code's identity: code objects of
the same text compare equal across files, F376): a frame walked costs ~0.14 us, where
the tests on its names cost ~0.33 us (measured: recursion/limits.py's docstring).
"""
from __future__ import annotations

import os
import types

_JANUS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
JANUS_FILES = frozenset(os.path.join(folder, name)  # (a set's `in`: cheaper than
                        for folder, _, names in os.walk(_JANUS_DIR)  # `startswith`)
                        for name in names if name.endswith(".py"))

_THUNK = -1  # a lambda without arguments: janus's thunk when a hook of janus's called it
_CALLERS = frozenset({"call", "_invocation", "callee_call", "plain_call", "entry_call"})
"""janus's frames that call a user's function as the user's code calls it (not a thunk)."""
_KINDS: dict = {}  # id(code) -> (code, counts or _THUNK): the code held, so its id stays its own
_MAX_KINDS = 8192


def _kind(code: types.CodeType) -> int:
    """The counts a frame of `code` takes that plain Python's stack has not (_THUNK: it
    depends on its caller), remembered."""
    filename = code.co_filename
    if filename in JANUS_FILES or filename.startswith("<janus"):
        kind = 2 if code.co_name == "__call__" else 1
    elif code.co_qualname.rpartition(".")[2].startswith("janus__"):
        kind = 1
    elif code.co_name == "<lambda>" and code.co_argcount == 0:
        kind = _THUNK
    else:
        kind = 0
    if len(_KINDS) >= _MAX_KINDS:
        _KINDS.clear()
    _KINDS[id(code)] = (code, kind)
    return kind


def extra_counts(frame, stop) -> int | None:
    """The recursion counts plain Python has not from `frame` out to `stop` (not
    included). None when `stop` is not on the way."""
    count, known_kind, ident = 0, _KINDS.get, id
    while frame is not stop:
        if frame is None:
            return None
        code = frame.f_code
        known = known_kind(ident(code))
        kind = known[1] if known is not None and known[0] is code else _kind(code)
        if kind > 0:
            count += kind
        elif kind == _THUNK:
            caller = frame.f_back
            if caller is not None and caller.f_code.co_filename in JANUS_FILES and \
                    caller.f_code.co_name not in _CALLERS:
                count += 1
        frame = frame.f_back
    return count


def janus_frames(frame, stop_codes: frozenset = frozenset()) -> int:
    """The recursion counts of janus's own frames innermost on the stack, from `frame`
    (counted, whatever its file) out to the first frame of other code (the user's call of
    the jitted function, a library) or of `stop_codes` (a raise of the limit that counted
    the frames beyond it)."""
    count = 2 if frame.f_code.co_name == "__call__" else 1
    frame = frame.f_back
    while frame is not None and frame.f_code.co_filename in JANUS_FILES and \
            frame.f_code not in stop_codes:
        count += 2 if frame.f_code.co_name == "__call__" else 1
        frame = frame.f_back
    return count

