"""Methods of the user's classes that Python calls implicitly, watched during a trace.

    len(buf)      ->  Buf.__len__(buf)        b + 1    ->  Buf.__add__(b, 1)
    if buf:       ->  Buf.__bool__(buf)       b[i]     ->  Buf.__getitem__(b, i)
    f"{buf}"      ->  Buf.__format__/__str__  v in b   ->  Buf.__contains__(b, v)

Converted code calls them through Python itself, so they run unconverted: they read the
real heap, which the trace shadows (a list it appended to, an attribute it set, a
number it feeds) and which no guard covers; the graph would keep the values of its trace
(zoo p60: a replay buffer's `len(buffer)` stayed 2 while the buffer grew). A trace that
brings in an object whose class defines such methods in user code watches their code
objects (`sys.settrace`, in this thread, for that trace only: ~1.1x the trace's time,
where `sys.setprofile` cost 2.3x); one of them starting makes the trace refuse, before
its body runs (ConversionError at the line that called it: the call runs plainly, or the
function is split there). The converted versions janus calls for
explicit calls (`buf.__len__()`, `buf(x)`) have code objects of their own and run on.
"""
from __future__ import annotations

import os
import sys
import threading
import types

from janus.errors import ConversionError
from janus.operation_hooks import operation_hook

EXEMPT = frozenset({"__init__", "__new__", "__init_subclass__", "__class_getitem__",
                    "__call__", "__del__", "__post_init__", "__set_name__"})
"""Methods janus converts when it calls them (`__init__` of an object made in the trace,
`__call__`) or that no operation of converted code calls."""

LOOKUPS = frozenset({"__eq__", "__ne__", "__hash__", "__getattr__", "__getattribute__",
                     "__repr__"})
"""Methods janus's own code calls too (`fn in KNOWN`, `getattr(obj, "__janus_function__",
None)`, a value in a message): not counted when janus called them, except from the
frames that run what the program asked for (`on_behalf`: F218, `ORDER.index(t)`,
`hash(t)`, `len(set(tags))` run by a library call)."""

_ON_BEHALF: set = set()


def on_behalf(fn):
    """Mark janus function `fn` as one that runs an operation of the program's (a library
    call, `obj[key]`): the lookups the builtins it calls make (a user `__eq__` run by
    `list.index`, a `__hash__` by `set(...)` or a dict) are the program's implicit calls."""
    _ON_BEHALF.add(fn.__code__)
    return fn

_JANUS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARIES = ("tensorflow", "keras", "tf_keras", "numpy", "janus", "builtins", "abc",
              "collections", "typing", "enum", "dataclasses")


_THREAD = threading.local()


def _watching() -> list:
    """This thread's traces watching (a trace may start inside another: a callee's)."""
    if not hasattr(_THREAD, "watching"):
        _THREAD.watching = []
    return _THREAD.watching


def _hook(frame, event, arg) -> None:
    """The trace function: called as each Python function starts (no line events)."""
    for watcher in _THREAD.watching:
        watcher.saw(frame)


class ImplicitCalls:
    """The implicitly called methods of the classes a trace brought in, and the first
    one that ran."""

    def __init__(self):
        self.codes: dict = {}     # code object -> "Class.__method__"
        self.classes: set = set()
        self.ran: tuple | None = None  # (method, function, filename, line) of the caller
        self._installed = False

    def watch(self, cls: type) -> None:
        """Watch the implicitly called methods `cls` and its user base classes define."""
        if cls in self.classes:
            return
        self.classes.add(cls)
        for klass in cls.__mro__:
            if (klass.__module__ or "").split(".")[0] in _LIBRARIES:
                continue
            for name, attr in vars(klass).items():
                if name.startswith("__") and name.endswith("__") and name not in EXEMPT:
                    attr = getattr(attr, "fget", attr)  # (a property named like one)
                    if isinstance(attr, (staticmethod, classmethod)):
                        attr = attr.__func__
                    if isinstance(attr, types.FunctionType):
                        self.codes[attr.__code__] = f"{klass.__qualname__}.{name}"
        if self.codes and not self._installed:
            self._install()

    def _install(self) -> None:
        self._installed = True
        current = sys.gettrace()
        if current is not None and current is not _hook:  # (a debugger, coverage: janus
            self.ran = ("a tracer is active", "", "", 0)  # cannot watch beside it)
            return
        _watching().append(self)
        if current is None:
            sys.settrace(_hook)

    def saw(self, frame) -> None:
        """A Python function started in this thread (`frame`)."""
        if self.ran is not None:
            return
        method = self.codes.get(frame.f_code)
        if method is None:
            return
        caller = frame.f_back  # (the user's line: past janus's and libraries' frames)
        if caller is not None and caller.f_code.co_filename.startswith(_JANUS) and \
                frame.f_code.co_name in LOOKUPS and caller.f_code not in _ON_BEHALF:
            return
        while caller is not None and (caller.f_code.co_filename.startswith(_JANUS) or
                                      "site-packages" in caller.f_code.co_filename):
            caller = caller.f_back
        self.ran = (method, caller.f_code.co_name, caller.f_code.co_filename,
                    caller.f_lineno) if caller is not None else (method, "?", "?", 0)
        # (raised as the method starts, before its body: run, its heap writes would be
        # done once while tracing; raising here unsets the trace function too)
        raise self._refusal()

    def close(self) -> None:
        """Stop watching (the trace ended)."""
        watching = _watching()
        if self in watching:
            watching.remove(self)
            if not watching and sys.gettrace() is _hook:
                sys.settrace(None)
        self._installed = False

    def check(self) -> None:
        """Refuse the trace if a watched method ran (or was about to: the user's own
        `except` may have caught the refusal `saw` raised)."""
        if self.ran is not None:
            raise self._refusal()

    def _refusal(self) -> ConversionError:
        method, function, filename, line = self.ran
        if method == "a tracer is active":
            return ConversionError("reads an object whose class defines methods Python "
                                   "calls implicitly (len(), operators, truth tests); with "
                                   "a debugger or coverage tracing (sys.settrace) janus "
                                   "cannot watch them: it runs plainly")
        return ConversionError(
            f"Python calls `{method}` implicitly here (len(), an operator, a truth test, "
            "formatting...): janus does not convert such calls and a graph would keep what "
            "it read when traced", function=function, filename=filename, lineno=line)


# -- the protocols converted code goes through janus for: their converted methods

UNHANDLED = object()


def user_method(obj, name: str):
    """The function Python runs for `name` on `obj` when the user's class defines it
    (None: a library's, or none)."""
    for klass in type(obj).__mro__:
        attr = vars(klass).get(name)
        if attr is not None:
            if (klass.__module__ or "").split(".")[0] in _LIBRARIES:
                return None
            return attr if isinstance(attr, types.FunctionType) else None
    return None


def _defined(obj, name: str, below=None) -> bool:
    """Whether a class of `obj`'s (other than `below`) defines `name`."""
    return any(name in vars(klass) for klass in type(obj).__mro__ if klass is not below)


class _Returns:
    """An object whose protocol methods return `value`: Python's own checks of what a
    user's method returned (`__len__` an int >= 0, `__bool__` a bool...), same errors."""

    def __init__(self, value):
        self.value = value

    def __len__(self):
        return self.value

    def __bool__(self):
        return self.value

    def __iter__(self):
        return self.value

    def __str__(self):
        return self.value

    def __repr__(self):
        return self.value


def length(call, obj):
    """`len(obj)` through the converted `__len__` (`call(method, obj, *args)` runs a user
    method converted)."""
    method = user_method(obj, "__len__")
    return UNHANDLED if method is None else len(_Returns(_python(call(method, obj))))


def truth(call, obj):
    """`bool(obj)`, `if obj:`: the converted `__bool__`, else `__len__`."""
    method = user_method(obj, "__bool__")
    if method is not None:
        return bool(_Returns(_python(call(method, obj))))
    if _defined(obj, "__bool__"):
        return UNHANDLED
    result = length(call, obj)
    return result if result is UNHANDLED else result != 0


def iterator(call, obj):
    """`iter(obj)`, `for v in obj`: the converted `__iter__`."""
    method = user_method(obj, "__iter__")
    return UNHANDLED if method is None else iter(_Returns(call(method, obj)))


@operation_hook
def text(call, obj, name: str):
    """`str(obj)` / `repr(obj)` (`name`: "__str__" or "__repr__")."""
    method = user_method(obj, name)
    if method is None and name == "__str__" and not _defined(obj, "__str__", below=object):
        method = user_method(obj, "__repr__")  # (object.__str__ calls __repr__)
    if method is None:
        return UNHANDLED
    shim = _Returns(_python(call(method, obj)))
    return str(shim) if name == "__str__" else repr(shim)


def item(call, obj, name: str, *args):
    """`obj[key]`, `obj[key] = v`, `del obj[key]` (`name`: the method)."""
    method = user_method(obj, name)
    return UNHANDLED if method is None else call(method, obj, *args)


def _python(value):
    """A user method's result Python checks: a number or text janus holds symbolically
    (fed) cannot be checked as Python would: the trace refuses."""
    if type(value).__module__.startswith("janus."):
        raise ConversionError("a method Python calls implicitly returned a value the graph "
                              "computes (janus checks what it returns only for Python values)")
    return value
