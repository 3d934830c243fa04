"""Calls of a third-party package's Python code in a trace: refused (F430).

janus converts the program's own code and knows what TensorFlow's, Keras', numpy's and
the standard library's functions do. A function of any other installed package runs as
it is while janus traces: its result is folded into the graph and its effects made once,
and what it keeps where janus cannot see (an iterator's position, a module's counter, a
generator's frame) would never move again when the graph runs:

    step_id = ids.next_id()          itertools.count in a library module: 0, 1, 2, 2, 2...
    loader.take()                    a library object's iterator advanced once
    x * lib.bump()                   a library's module dict written, unseen

So such a call refuses: that line runs in Python on every call (the function runs split
at it, with graphs for the rest). `janus.config.trusted_packages` names packages whose
functions the program vouches are pure (`("einops",)`): those run in the trace as
TensorFlow's do.
"""
from __future__ import annotations

import functools
import sys
import types

from janus import user_attributes
from janus.config import config
from janus.transform.runtime import is_user_code, is_user_module

KNOWN = frozenset({
    "tensorflow", "tensorflow_probability", "tensorflow_addons", "tensorflow_text",
    "tensorflow_hub", "tf_keras", "keras", "numpy", "ml_dtypes", "opt_einsum", "optree",
    "tree", "einops", "absl", "google", "gast", "wrapt", "typing_extensions", "janus"})
"""Packages whose code janus runs in a trace as it is (TensorFlow's ecosystem, numpy, pure
tree and einsum utilities; each with its own refusals where it has effects:
graphgen/refusals.py). Not scipy (`norm.rvs()` draws from numpy's global stream), nor
output packages (`rich.print`)."""


def _python_code(fn):
    """The Python function a call of `fn` runs first, or None (C code, a class's own
    construction is judged by its module)."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    if isinstance(fn, types.FunctionType):
        return fn
    if isinstance(fn, type) or isinstance(fn, (types.BuiltinFunctionType, types.ModuleType)):
        return None
    call = getattr(type(fn), "__call__", None)  # (a callable object: its class's method)
    return call if isinstance(call, types.FunctionType) else None


def _top_package(name: str) -> str:
    return (name or "").split(".")[0]


def _third_party(module_name: str) -> bool:
    top = _top_package(module_name)
    if not top or top in KNOWN or top in sys.stdlib_module_names or top == "__main__":
        return False
    module = sys.modules.get(module_name)
    if module is None or is_user_module(module):
        return False  # (the program's own: a dataclass's generated `__init__` has no file)
    return not trusted(module_name)


def trusted(module_name: str) -> bool:
    """Whether the program vouches for the package of `module_name` (config.trusted_packages)."""
    return _top_package(module_name) in config.trusted_packages


def reason(fn) -> str:
    """Why a call of `fn` in a trace is refused as a third-party package's ("" if not)."""
    code = _python_code(fn)
    if code is not None:
        if is_user_code(code):
            return ""
        module = user_attributes.get(code, "__module__", None) or ""
    elif isinstance(fn, type):
        module = user_attributes.get(fn, "__module__", None) or ""
        init = getattr(fn, "__init__", None)
        if not isinstance(init, types.FunctionType) or is_user_code(init):
            return ""  # (C construction, or the program's own class)
    else:
        return ""
    if not isinstance(module, str) or not _third_party(module):
        return ""
    name = user_attributes.get(fn, "__qualname__", None) or type(fn).__name__
    return (f"calls {module}.{name}, code of the package `{_top_package(module)}` that janus "
            "neither converts nor knows: what it keeps between calls (an iterator, a "
            "counter) would move once, while tracing, and never when the graph runs "
            f"(janus.config.trusted_packages += ('{_top_package(module)}',) if its "
            "functions are pure)")
