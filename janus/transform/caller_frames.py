"""A helper janus runs as it is because it reads frames sees a caller frame of the user's
(F445).

    def caller_line():
        return sys._getframe(1).f_lineno     # plain Python: the step's line

Converted code calls such a helper through janus's runtime (user_frames.call,
limits.callee_call), and janus runs a jitted function plainly from its own frames
(limits.plain_call, entry_call), so the function's caller frame was janus's:
`limits.py`, `plain_call`. `call` (and `plain_call`, with `stand_in`) makes the call from
a stand-in frame instead: code compiled in the user's file, at the
line the user's (converted) frame is at, named as that frame's function and run in its
globals:

    step (converted) -> janus's hooks -> stand-in "step" at step's line -> caller_line

so the helper's `sys._getframe(1)`, `inspect.stack()[1]`, `inspect.currentframe().f_back`
give the file, line, function name and globals plain Python gives. Left as they are:
the stand-in's locals (`__fn`, `__args`, `__kwargs`, not the caller's) and the frames
further out (janus's hooks, then the user's). The stand-in is janus's frame to janus's own
walks (user_frames.janus_frame: warnings, logging records), which name the user's frame
behind it, as before.
"""
from __future__ import annotations

import os
import sys
import types

_JANUS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_PREFIXES = (_JANUS_DIR, "<janus")
_READS = frozenset({"_getframe", "currentframe", "stack", "getouterframes", "getframeinfo",
                    "extract_stack", "format_stack", "print_stack", "walk_stack"})
"""Names whose use makes a function read its caller's frame."""
MAX_STAND_INS = 4096

_STAND_INS: dict = {}  # (file, line, name, qualname) -> stand-in code
_STAND_IN_IDS: dict = {}  # id(code) -> code (held)
_READERS: dict = {}  # id(code) -> (code, whether it reads frames)


def is_stand_in(code: types.CodeType) -> bool:
    """Whether `code` is a stand-in's (janus's frame, in the user's file)."""
    return _STAND_IN_IDS.get(id(code)) is code


def _names(code: types.CodeType, depth: int = 0) -> set:
    names = set(code.co_names)
    if depth < 2:
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                names |= _names(const, depth + 1)
    return names


def reads_caller(fn) -> bool:
    """Whether `fn` is a function of the user's whose code reads frames (by the names it
    uses)."""
    code = getattr(fn, "__code__", None)
    if not isinstance(code, types.CodeType):
        return False
    known = _READERS.get(id(code))
    if known is None or known[0] is not code:
        from janus.transform.runtime import is_user_code  # (it imports user_frames: here)
        if len(_READERS) > MAX_STAND_INS:
            _READERS.clear()
        reads = bool(_names(code) & _READS) and isinstance(fn, types.FunctionType) and \
            is_user_code(fn)
        known = _READERS[id(code)] = (code, reads)
    return known[1]


def _user_frame(frame):
    while frame is not None and (frame.f_code.co_filename.startswith(_PREFIXES) or
                                 is_stand_in(frame.f_code)):
        frame = frame.f_back
    return frame


def _stand_in_code(filename: str, line: int, name: str, qualname: str) -> types.CodeType:
    key = (filename, line, name, qualname)
    code = _STAND_INS.get(key)
    if code is None:
        if len(_STAND_INS) > MAX_STAND_INS:
            _STAND_INS.clear()
            _STAND_IN_IDS.clear()
        source = "\n" * (line - 1) + \
            "def stand_in(__fn, __args, __kwargs): return __fn(*__args, **__kwargs)\n"
        module = compile(source, filename, "exec", dont_inherit=True)
        code = next(c for c in module.co_consts if isinstance(c, types.CodeType))
        code = code.replace(co_name=name, **(  # (Python 3.11+: a qualified name too)
            {"co_qualname": qualname} if hasattr(code, "co_qualname") else {}))
        _STAND_INS[key] = code
        _STAND_IN_IDS[id(code)] = code
    return code


def stand_in(frame):
    """A function `(fn, args, kwargs) -> fn(*args, **kwargs)` whose frame stands for the
    user's frame out from `frame` (janus's frames skipped), or None."""
    user = _user_frame(frame)
    line = getattr(user, "f_lineno", None)
    if user is None or not isinstance(line, int) or line < 1:
        return None
    code = user.f_code
    try:
        made = _stand_in_code(code.co_filename, line, code.co_name,
                              getattr(code, "co_qualname", code.co_name))
    except (SyntaxError, ValueError, MemoryError):
        return None
    return types.FunctionType(made, user.f_globals)


def call(fn, args: tuple, kwargs: dict):
    """`fn(*args, **kwargs)`, made from a stand-in of the user's frame when `fn` reads
    frames (`reads_caller`)."""
    if reads_caller(fn):
        through = stand_in(sys._getframe(1))
        if through is not None:
            return through(fn, args, kwargs)
    return fn(*args, **kwargs)

