"""Class: a function that converted code defines must be the one the user's code defines
(fuzz finding F12).

A nested def inside a loop body or branch is moved into a function janus makes
(`janus__body_1`), and the template machinery used to stamp the loop's location onto
every node of the body: the nested def's code object started at the `for`/`while` line
and was named `f.<locals>.janus__body_1.<locals>.cb`. janus finds a function's source
from its code's first line (inspect walks back to the nearest `def`), so converting
that function, e.g. when `tf.map_fn` called it, converted the *enclosing* function or
an earlier nested def instead: `NameError` (its free names taken as globals) or
`TypeError` (its signature) on the first call. Now generated code keeps the user's lines
and qualified names, and a source whose `def` is not the function's is refused.
"""
import types

import pytest
import tensorflow as tf

from janus import source as source_mod
from janus.errors import ConversionError
from janus.transform import convert

G = 1.5


def defs_in_every_block(x, n, flag):
    acc = x

    def first(z):
        return z + acc
    for i in range(n):
        def in_for(e):
            return e * 0.5 + G

        class InFor:
            def method(self, e):
                return e + i
        acc = in_for(acc) + InFor().method(acc)
    j = 0
    while j < n:
        j += 1

        def in_while(e):
            return e - G
        acc = in_while(acc)
    if flag:
        def in_if(e):
            return e * G
        acc = in_if(acc)
    else:
        def in_else(e):
            return e / G
        acc = in_else(acc)
    keep = [lambda e: e + 1 for _ in range(1)]
    return first(acc) + keep[0](acc)


def _codes(code, prefix=""):
    """{qualname: code} of the code nested in `code` that the user wrote."""
    out = {}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if not const.co_name.startswith("janus__"):
                out.setdefault(const.co_qualname, []).append(const)
            for name, codes in _codes(const).items():
                out.setdefault(name, []).extend(codes)
    return out


def _lines(code):
    return sorted({line for _, _, line in code.co_lines() if line})


def test_nested_code_keeps_the_users_lines_and_qualified_names():
    original = _codes(defs_in_every_block.__code__)
    made = _codes(convert(defs_in_every_block).factory.__code__)
    assert len(original) >= 9
    for qualname, codes in original.items():
        assert qualname in made, (qualname, sorted(made))
        assert sorted((c.co_firstlineno, _lines(c)) for c in codes) == \
            sorted((c.co_firstlineno, _lines(c)) for c in made[qualname]), qualname


@pytest.mark.parametrize("name", ["in_for", "in_while", "in_if", "in_else", "first"])
def test_converting_a_nested_def_made_by_converted_code_converts_that_def(name):
    code = next(c for cs in _codes(convert(defs_in_every_block).factory.__code__).values()
                for c in cs if c.co_name == name)
    fn = types.FunctionType(code, globals(), name, None,
                            tuple(types.CellType(None) for _ in code.co_freevars))
    node, info = source_mod.parse_function(fn)
    assert node.name == name
    assert info.first_line == code.co_firstlineno


def loop_bodies(x, n, flag):
    for i in range(n):
        x = x + 1.0
        if flag:
            x = x * 2.0
            x = x - 1.0
        else:
            x = x / 2.0
        x = x * 3.0
    j = 0
    while j < n:
        j += 1
        x = x - 0.5
    return x


def _all_lines(code):
    lines = {line for _, _, line in code.co_lines() if line}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            lines |= _all_lines(const)
    return lines


def test_converted_code_runs_at_the_users_lines():
    """Each statement of a loop body or branch keeps its line (tracebacks, warnings and
    janus's own messages point at it), and janus adds no line of its own."""
    converted = convert(loop_bodies)
    assert _all_lines(converted.factory.__code__) == _all_lines(loop_bodies.__code__)


def test_source_that_is_another_functions_is_refused():
    def inner(e):
        return e
    lines = {line for _, _, line in inner.__code__.co_lines() if line}
    # a code object claiming to start at this test's `def` line
    wrong = inner.__code__.replace(
        co_firstlineno=test_source_that_is_another_functions_is_refused.__code__
        .co_firstlineno)
    fn = types.FunctionType(wrong, globals(), "inner")
    assert lines
    with pytest.raises(ConversionError, match="not this function's"):
        source_mod.parse_function(fn)
