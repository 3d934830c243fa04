"""The hook interface converted code calls, with plain Python semantics.

`Runtime` runs converted code exactly as Python would run the original; the
profiler's runtime extends it with recording, the graph generator's runtime
overrides it to build a TensorFlow graph.
"""
from __future__ import annotations

import functools
import operator
import os
import sys
import sysconfig
import types

from janus import user_attributes
from janus.transform import user_frames
from janus.transform.pipeline import ConvertedFunction
from janus.operation_hooks import operation_hook


class _Undefined:
    """A local that is not bound yet where a functional block starts."""

    def __repr__(self):
        return "<undefined>"


UNDEFINED = _Undefined()

AUG_OPS = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul,
           "/=": operator.itruediv, "//=": operator.ifloordiv, "%=": operator.imod,
           "**=": operator.ipow, "@=": operator.imatmul, "&=": operator.iand,
           "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift,
           ">>=": operator.irshift}


COMPARE_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
               "==": operator.eq, "!=": operator.ne, "is": operator.is_,
               "is not": operator.is_not, "in": operation_hook(lambda a, b: a in b),
               "not in": operation_hook(lambda a, b: a not in b)}


def _local_message() -> str:
    """This Python's UnboundLocalError message, for the name `{}`."""
    def probe():
        if False:
            name = 0
        return name  # noqa: F821
    try:
        probe()
    except UnboundLocalError as error:
        return str(error).replace("'name'", "'{}'")
    return "cannot access local variable '{}' where it is not associated with a value"


_LOCAL_MESSAGE = _local_message()


def _closures(function: ConvertedFunction) -> frozenset:
    """The code of janus's closures in `function`'s converted code (block bodies, branch
    and state functions), not of the user's nested defs it keeps as they are."""
    found = function.__dict__.get("_janus_closures")
    if found is None:
        found, stack = set(), [function.factory.__code__]
        while stack:
            for const in stack.pop().co_consts:
                if isinstance(const, types.CodeType) and user_frames.is_block(const):
                    found.add(const)
                    stack.append(const)
        found = function.__dict__["_janus_closures"] = frozenset(found)
    return found


class Runtime:
    """Plain Python semantics for every hook; one instance per converted function."""

    UNDEFINED = UNDEFINED

    def unbound(self, error: NameError, local_names: tuple) -> None:
        """A NameError out of converted code: where it is an unbound local of the user's
        function read in one of janus's own closures of this function (a free variable
        there), the UnboundLocalError Python raises for the original; else nothing (it is
        re-raised: a free variable of a nested def of the user's stays a NameError)."""
        name = getattr(error, "name", None)
        if type(error) is not NameError or name not in local_names or \
                "free variable" not in str(error):
            return
        frame = error.__traceback__
        while frame is not None and frame.tb_next is not None:
            frame = frame.tb_next
        if frame is not None and frame.tb_frame.f_code in _closures(self.function):
            raise UnboundLocalError(_LOCAL_MESSAGE.format(name)).with_traceback(
                error.__traceback__) from None

    def __init__(self, function: ConvertedFunction):
        self.function = function

    @classmethod
    def for_function(cls, converted: ConvertedFunction) -> "Runtime":
        """One runtime per converted function and runtime class, kept on the converted
        function (a process-wide table would keep every nested def's copy alive)."""
        runtimes = converted.__dict__.setdefault("_janus_runtimes", {})
        runtime = runtimes.get(cls)
        if runtime is None:
            runtime = runtimes[cls] = cls(converted)
        return runtime

    def defined(self, fn) -> None:
        """A nested `def` of the converted function was executed (it stays plain code)."""

    @staticmethod
    def user_frame(found):
        """`locals()`, `vars()` or `dir()` of the converted frame as the user's frame shows
        them: without janus's own names (its runtime, closures and temporaries), nor
        names still unbound (janus's UNDEFINED)."""
        if type(found) is dict:
            return {k: v for k, v in found.items()
                    if not k.startswith("janus__") and v is not UNDEFINED}
        if type(found) is list:
            return [k for k in found if not k.startswith("janus__")]
        return found

    @staticmethod
    @operation_hook
    def bound(value, name: str):
        """A read of local `name` that may be unbound (transform/unbound_reads.py)."""
        if value is UNDEFINED:
            raise UnboundLocalError(_LOCAL_MESSAGE.format(name))
        return value

    @staticmethod
    @operation_hook
    def read(thunk):
        try:
            return thunk()
        except NameError:
            return UNDEFINED

    @operation_hook
    def ld_attr(self, obj, name):
        return getattr(obj, name)

    @operation_hook
    def st_attr(self, obj, name, value):
        setattr(obj, name, value)

    @operation_hook
    def del_attr(self, obj, name):
        delattr(obj, name)

    @operation_hook
    def ld_item(self, obj, key):
        return obj[key]

    @operation_hook
    def st_item(self, obj, key, value):
        obj[key] = value

    @operation_hook
    def del_item(self, obj, key):
        del obj[key]

    @operation_hook
    def aug(self, op, target, value):
        return AUG_OPS[op](target, value)

    @operation_hook
    def ld_global(self, name, value):
        return value

    def st_global(self, name, value):
        """`X = value` of a global the function declares (transform/global_stores.py):
        stored in the function's module (the converted code's globals are its)."""
        self.function.original.__globals__[name] = value

    @operation_hook
    def ld_free(self, name, value):
        return value

    def st_free(self, name, value):
        """`X = value` of a variable the function declares nonlocal: stored in its cell."""
        original = self.function.original
        original.__closure__[original.__code__.co_freevars.index(name)].cell_contents = value

    @operation_hook
    def call(self, site, fn, /, *args, **kwargs):
        return user_frames.call(fn, args, kwargs)  # (a logging call: the user's frame)

    def ctx(self, manager):
        """The context manager of a `with` item."""
        return manager

    @operation_hook
    def test(self, site, value):
        return bool(value)

    @operation_hook
    def loop_test(self, site, value):
        return bool(value)

    @operation_hook
    def iterate(self, site, iterable):
        return iterable

    # `or` / `and` / `not` of a loop's exit test (transform/exit_tests.py): the operands are
    # thunks of hooked tests (bools), run as Python runs them
    def either(self, *operands):
        return any(operand() for operand in operands)

    def both(self, *operands):
        return all(operand() for operand in operands)

    def negate(self, value):
        return not value

    # `or` / `and` / `not` / `x if t else y` as values (transform/bool_values.py): the
    # operands after the first are thunks, run as Python runs them
    @operation_hook
    def or_value(self, site, value, rest):
        return value if value else rest()

    @operation_hook
    def and_value(self, site, value, rest):
        return rest() if value else value

    @operation_hook
    def not_value(self, site, value):
        return not value

    @operation_hook
    def if_value(self, site, test, if_true, if_false):
        return if_true() if test else if_false()

    @operation_hook
    def min_max(self, site, op, fn, *args):
        """`fn(*args)`; the builtin `min` (`op` '<') or `max` ('>') of two or more operands
        or of one list or tuple: Python's fold, an item replacing the one kept if `item op
        kept` is true, each test an `if_value` at `site`. Anything else (another `fn`, an
        iterator, an empty list): `fn(*args)` itself."""
        items = args if len(args) >= 2 else \
            args[0] if len(args) == 1 and type(args[0]) in (list, tuple) else ()
        if fn is not (min if op == "<" else max) or not items:
            return fn(*args)
        compare = COMPARE_OPS[op]
        kept = items[0]
        for item in items[1:]:
            kept = self.if_value(site, compare(item, kept), lambda item=item: item,
                                 lambda kept=kept: kept)
        return kept

    # text (transform/text.py)
    @operation_hook
    def text(self, value):
        """An f-string's value."""
        return value

    @operation_hook
    def percent(self, template, values):
        """`template % values`."""
        return template % values

    def identical(self, left, right):
        """`left is right` (transform/effects.py)."""
        return left is right

    @operation_hook
    def compare_chain(self, sites, ops, left, right, *rest):
        """`left op0 right op1 rest[0]() ...`: each comparison but the last an `and`
        operand (`and_value` at its site), each operand evaluated once, in order."""
        if ops[0] in ("is", "is not"):
            value = self.identical(left, right) == (ops[0] == "is")
        else:
            value = COMPARE_OPS[ops[0]](left, right)
        if not rest:
            return value
        return self.and_value(sites[0], value, lambda: self.compare_chain(
            sites[1:], ops[1:], right, rest[0](), *rest[1:]))

    def if_stmt(self, site, test, if_true, if_false, get_state, set_state, both=()):
        if self.test(site, test):
            if_true()
        else:
            if_false()

    def while_stmt(self, site, test, body, get_state, set_state, names, exit_site=None,
                   live=(), fresh=()):
        """A `while` loop; with `exit_site`, its body returns True where it breaks out."""
        while self.loop_test(site, test()):
            if body():
                break

    def for_stmt(self, site, iterable, body, get_state, set_state, names, exit_site=None,
                 live=(), fresh=()):
        """A `for` loop; with `exit_site`, its body returns True where it breaks out."""
        for item in user_items(self.iterate(site, iterable)):
            if body(item):
                break


@operation_hook
def user_items(iterable):
    """The items of the iterable a loop of the user's goes over: an error its iterator
    raises (`zip(..., strict=True)` of unequal lengths, a generator's) is raised in this
    frame, an operation of the user's (`@operation_hook`: janus/operation_hooks.py), not
    janus's.
    (Not `yield from`: closing this generator after a `break` would close a generator of
    the user's the loop went over, which Python leaves open.)"""
    iterator = iter(iterable)
    while True:
        try:
            item = next(iterator)
        except StopIteration:
            return
        yield item


def user_function(fn):
    """The plain Python function janus should convert for a call of `fn`, with the
    bound `self` if any; None when `fn` is not user code (builtins, TF, numpy...)."""
    from janus.source import unwrap

    bound_self = None
    target = fn
    # (asked through user_attributes: a user object's __getattr__ may raise anything)
    jitted = user_attributes.get(target, "__janus_function__")
    if jitted is not None:  # a jitted function or bound jitted method
        bound_self = user_attributes.get(target, "__self__", None)
        target = jitted
    elif isinstance(target, types.MethodType):
        bound_self, target = target.__self__, target.__func__
    elif not isinstance(target, types.FunctionType) and not isinstance(target, type):
        call = getattr(type(target), "__call__", None)
        if isinstance(call, types.FunctionType) or hasattr(call, "__janus_function__"):
            bound_self, target = target, unwrap(call)
    target = unwrap(target)
    if not isinstance(target, types.FunctionType) or not is_user_code(target) or \
            user_attributes.has(target, "__janus_callback__"):  # (callbacks.py converts it)
        return None, None
    return target, bound_self


def run_as_is(fn):
    """`fn`, or the callable a `janus.jit` of it runs as it is, where that one has no
    Python source (`janus.jit(np.add)`, a C type's instance: F369): a converted caller
    handles the call as the callable's own (`np.add(n, 0.5)` of a fed `n`), not as a
    jitted function's called with the trace's stand-ins."""
    inner = user_attributes.get(fn, "__janus_function__")
    if inner is None or isinstance(inner, types.FunctionType) or \
            user_attributes.get(fn, "__self__") is not None:
        return fn
    return inner


def user_partial(fn) -> bool:
    """Whether `fn` is a `functools.partial` of user code: its call is the call of the
    function it wraps (converted), with the partial's arguments first. Run as a library
    call, the function would run unconverted while tracing: its heap writes then, its
    globals read once (F168)."""
    if type(fn) is not functools.partial:
        return False
    while type(fn) is functools.partial:  # (a partial of a partial)
        fn = fn.func
    return user_function(fn)[0] is not None


_LIBRARY_PREFIXES = ("tensorflow", "keras", "tf_keras", "numpy", "janus", "gast",
                     "absl", "google", "scipy", "collections", "functools", "builtins", "abc",
                     "typing", "dataclasses", "enum", "contextlib", "copy", "itertools")


_STANDARD_LIBRARY = os.path.normcase(sysconfig.get_paths()["stdlib"]) + os.sep
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_JANUS_PACKAGE = os.path.join(_PACKAGE_ROOT, "janus") + os.sep
"""janus's own files: classified alike whether janus is installed or not (they are told
apart from the program's elsewhere: is_user_code). Not any path holding "/janus" (F423:
a project under `~/janus-experiments/` had every library of its venv taken for its own
code)."""


def user_file(filename: str | None) -> bool:
    """Whether a source file is the program's (not a library's, not the standard's)."""
    return bool(filename) and \
        not ("site-packages" in filename and not filename.startswith(_JANUS_PACKAGE)) \
        and not filename.startswith("<") and \
        not os.path.normcase(filename).startswith(_STANDARD_LIBRARY)


def is_user_module(module: types.ModuleType) -> bool:
    """A module of the program's (`import config; config.LR`): its attributes may change
    between calls as the program's globals do. One without a file is the program's unless
    a library's import made it: a notebook's `__main__`, `types.ModuleType("cfg")` made
    at run time are; built-in and frozen modules, a library's namespace package or the
    synthetic submodule of a library package (`six.moves`) are not (F233)."""
    name = user_attributes.get(module, "__name__", "") or ""
    if not isinstance(name, str):
        return False
    top = name.split(".")[0]
    if top in _LIBRARY_PREFIXES:
        return False
    filename = getattr(module, "__file__", None)
    if filename is not None:
        return user_file(filename)
    if name == "__main__":
        return True
    if name in sys.builtin_module_names:
        return False
    spec = getattr(module, "__spec__", None)
    origin = getattr(spec, "origin", None)
    if origin in ("built-in", "frozen"):
        return False
    locations = list(getattr(spec, "submodule_search_locations", None) or ())
    if isinstance(origin, str) and os.path.isabs(origin):
        locations.append(origin)
    if locations:  # (a namespace package: where its parts are)
        return all(user_file(os.path.join(p, "")) for p in locations)
    package = sys.modules.get(top)
    if package is not None and package is not module:  # (made by its package's import)
        return is_user_module(package)
    # made at run time by the program; not a submodule an extension made without its
    # package (`pybind11_abseil.status`), nor Cython's runtime modules
    return not ("." in name and package is None or top.startswith(_CYTHON))


_CYTHON = ("cython_runtime", "_cython_")


def is_user_class(cls: type) -> bool:
    """A class the program defined."""
    module = sys.modules.get(user_attributes.get(cls, "__module__", None) or "")
    return module is not None and is_user_module(module)


def is_user_code(fn: types.FunctionType) -> bool:
    module = user_attributes.get(fn, "__module__", None) or ""
    if module.split(".")[0] in _LIBRARY_PREFIXES:
        return False
    # (by its file too: `functools.wraps` gives contextlib's wrapper of a user's
    # `@contextmanager` generator the user's module)
    return user_file(fn.__code__.co_filename)
