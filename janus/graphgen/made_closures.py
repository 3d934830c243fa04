"""Closure cells and defaults of a function the traced call made itself.

    def make(cfg):                      `make(s.cfg)`, converted: each call makes a new `f`
        @tf.custom_gradient             and a new cell `cfg`; TF runs `f` and its gradient
        def f(x):                       function unconverted while janus traces, reading
            return x * 1.0, lambda dy: dy * cfg.scale        `cfg.scale` (F340)

A guard rooted in such a cell (`CELL[k].cell_contents.scale == 1.0`) would read the
trace's own cell again on every later call, which nothing changes, and always pass: the
graph kept the old `cfg`'s scale after the program replaced `s.cfg`. The cell's contents
are a value of the trace instead: the object the converted code read (`args[0].cfg`, its
source), guarded through that source; a number or text the converted code computed (from
values it guarded), or a tensor of the graph: nothing to guard; an object the call made
(`Cfg(2.0)` in the step): its attributes walked as values of the trace; anything else:
refused (the call runs in Python). The same holds for a default a def made in the call
took (`def f(x, cfg=s.cfg)`). A cell the call did not make (the jitted function's own, one
of an enclosing function's that a def made in the call inherits) is the heap's, guarded
through `CELL[...]` as before (graphgen/unconverted_reads.py). A lambda or def janus did
convert reads a cell's object through its hooks (`janus__.ld_attr(cfg, 'scale')`), which
guard what they read: handing it over reads nothing (nor does reading `janus__` itself:
janus's own runtime is never the program's data).
"""
from __future__ import annotations

import types

from janus.graphgen.sources import Source
from janus.transform.pipeline import made_by_converted_code
from janus.transform.templates import RUNTIME


def made_in_call(tracer, function: types.FunctionType) -> bool:
    """`function` is a def or lambda the converted code made in this trace (not one read
    from the heap, which has a source and is guarded by identity)."""
    return tracer is not None and tracer.source_of(function) is None and (
        id(function) in tracer.trace_local_functions or made_by_converted_code(function))


def hooked(function: types.FunctionType) -> bool:
    """`function`'s code is janus's conversion (a lambda or def converted code made, not
    one it left as it is, as a def behind `@tf.custom_gradient`): its reads of attributes
    and globals go through janus's hooks (`janus__.ld_attr(cfg, 'scale')`), which guard
    them; a variable it reads whole is handed to them."""
    code = function.__code__
    return RUNTIME in code.co_freevars or RUNTIME in code.co_names


def _outer_cells(tracer) -> set[int]:
    """The cells of the functions the trace did not make (the jitted function's, a
    converted callee's): the heap's, which a def made in the call may inherit."""
    functions = [tracer.top_function] + [f.original for f in tracer.functions.values()]
    return {id(cell) for function in functions
            if function is not None and id(function) not in tracer.trace_local_functions
            for cell in (getattr(function, "__closure__", None) or ())}


def cell_made_in_call(tracer, function: types.FunctionType, cell) -> bool:
    """`cell` of `function` is one the call made (a variable of a frame of the trace)."""
    return made_in_call(tracer, function) and id(cell) not in _outer_cells(tracer)


def heap_source(tracer, value) -> Source | None:
    """Where the trace read `value` from the heap (`args[0].cfg`), if it did; not an
    object the call made (`tracer.local_objects`)."""
    if id(value) in tracer.local_objects:
        return None
    return tracer.source_of(value)


def made_object(tracer, value) -> bool:
    """An object the call made (its attributes are the trace's values)."""
    return id(value) in tracer.local_objects


def made_tf_function(tracer, fn) -> list:
    """The program's Python function of a `tf.function` the call made (`@tf.function def
    h(v): return v * cfg.scale` in the step): TF traces it once inside janus's graph,
    reading its closure as it is, where plain TF traces the new function on every call
    (a `tf.function` from the heap keeps TF's own cache, as in plain TF: called as is)."""
    inner = getattr(fn, "python_function", None) if tracer is not None else None
    while isinstance(getattr(inner, "__wrapped__", None), types.FunctionType):
        inner = inner.__wrapped__
    if isinstance(inner, types.FunctionType) and made_in_call(tracer, inner):
        return [inner]
    return []
