"""Getting a function's source as a gast tree whose line numbers are the user's."""
from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
import types

import gast

from janus.errors import ConversionError


@dataclasses.dataclass(frozen=True)
class SourceInfo:
    """Where a function's source lives; generated code keeps these line numbers."""

    qualname: str
    filename: str
    first_line: int
    text: str

    def line(self, lineno: int) -> str:
        lines = self.text.splitlines()
        index = lineno - self.first_line
        return lines[index].strip() if 0 <= index < len(lines) else ""


def unwrap(fn):
    """The plain Python function behind methods, jit wrappers and functools.wraps."""
    while True:
        if isinstance(fn, (staticmethod, classmethod)):
            fn = fn.__func__
        elif isinstance(fn, types.MethodType):
            fn = fn.__func__
        elif hasattr(fn, "__janus_function__"):
            fn = fn.__janus_function__
        else:
            return fn


def parse_function(fn: types.FunctionType) -> tuple[gast.FunctionDef, SourceInfo]:
    """Parse `fn` into a gast FunctionDef with its decorators removed.

    Line numbers in the tree are those of the user's file, so code compiled from
    it reports errors at the user's lines.
    """
    name = getattr(fn, "__qualname__", repr(fn))
    if inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn):
        kind = "generators" if inspect.isgeneratorfunction(fn) else "coroutines"
        raise ConversionError(f"{kind} are not converted", function=name,
                              filename=getattr(fn.__code__, "co_filename", "?"),
                              lineno=fn.__code__.co_firstlineno)
    try:
        lines, first_line = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    except (OSError, TypeError) as exc:
        code = getattr(fn, "__code__", None)
        raise ConversionError(f"source code is not available ({exc})", function=name,
                              filename=getattr(code, "co_filename", "?"),
                              lineno=getattr(code, "co_firstlineno", 0)) from None
    text = textwrap.dedent("".join(lines))
    try:
        module = ast.parse(text)
    except SyntaxError as exc:  # e.g. a lambda inside a larger expression
        raise ConversionError(f"cannot parse the source alone ({exc.msg})", function=name,
                              filename=filename, lineno=first_line) from None
    ast.increment_lineno(module, first_line - 1)
    defs = [n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not defs:
        raise ConversionError("only `def` functions are converted (lambdas run eagerly)",
                              function=name, filename=filename, lineno=first_line)
    code = fn.__code__
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    found = defs[0].args
    found_params = tuple(a.arg for a in found.posonlyargs + found.args + found.kwonlyargs)
    if defs[0].name != code.co_name or found_params != params:
        # inspect finds a function's source from its code's first line: a code object
        # whose lines are not the def's would give another function's source
        raise ConversionError(f"the source found at line {first_line} is `def "
                              f"{defs[0].name}`, not this function's", function=name,
                              filename=filename, lineno=code.co_firstlineno)
    node = gast.ast_to_gast(defs[0])
    node.decorator_list = []
    return node, SourceInfo(name, filename, first_line, text)
