"""`tf.TensorArray`s a trace makes, where eager and graph TensorArrays part ways.

Eager (what plain Python runs), a TensorArray is one mutable object: `ta.write(i, x)`
writes into it and returns it, and a read clears the item it read (`clear_after_read`, on
by default): `stack()` gives zeros there, a second read raises. In a graph each write
returns a new TensorArray, the old one never sees it, and nothing is cleared. So in a
trace:

    out = out.write(t, x)          as eager: the old `out` is not used again
    ta.write(t, x); ta.stack()     refused: the graph's `ta` would not hold the write
    x = ta.read(t)                 refused unless made with clear_after_read=False
    ta.write(...), made eagerly    refused (a split function's Python part made it)
    ta.concat()                    refused (eager raises on an empty TensorArray)

A refusal fails the trace (that code runs in Python, as it is). The loops janus builds
carry a TensorArray as its flow (graphgen/loop_values.py); `rebuilt` keeps its note.
"""
from __future__ import annotations

import tensorflow as tf
from tensorflow.python.ops.tensor_array_ops import build_ta_with_new_flow

from janus import user_attributes
from janus.errors import ConversionError
from janus.graphgen.value_kinds import is_symbolic

_REPLACING = frozenset({"write", "unstack", "scatter", "split"})
"""Methods that return the written TensorArray (eager: the same object; graph: a new one)."""


class _Note:
    """What the trace knows of one of its TensorArrays."""

    __slots__ = ("array", "clears", "replaced")

    def __init__(self, array, clears: bool):
        self.array, self.clears, self.replaced = array, clears, False


def is_array(value) -> bool:
    """A TensorArray of the graph being built (its flow a symbolic TensorList)."""
    return isinstance(value, tf.TensorArray) and is_symbolic(value.flow)


def _note(tracer, array) -> _Note:
    notes = tracer.arrays
    note = notes.get(id(array))
    if note is None or note.array is not array:
        # (made where janus did not see it, by TF's own loops: read as eager's default)
        note = notes[id(array)] = _Note(array, True)
    return note


def rebuilt(tracer, template, flow):
    """`template` (a TensorArray) around `flow`, a loop's value of it, with its note."""
    array = build_ta_with_new_flow(template, flow)
    if tracer is not None:
        tracer.arrays[id(array)] = _Note(array, _note(tracer, template).clears)
    return array


def before_call(tracer, fn, args: tuple, kwargs: dict) -> None:
    """Refuse a call on one of the trace's TensorArrays that a graph would run otherwise
    than eager (the module docstring)."""
    owner = user_attributes.get(fn, "__self__")
    if isinstance(owner, tf.TensorArray) and not is_array(owner):
        # (its items are the eager run's: a graph would store its own tensors in it, or
        # bake what it read in as constants)
        raise ConversionError("a tf.TensorArray made outside the graph is used in it")
    if not is_array(owner):
        return
    note, name = _note(tracer, owner), user_attributes.get(fn, "__name__", "")
    if note.replaced:
        raise ConversionError(
            f"a tf.TensorArray used after `.{name}` returned a new one: eager writes into "
            "the one object, a graph makes a new TensorArray per write (rebind the name: "
            "`ta = ta.write(i, x)`)")
    if name == "concat":
        raise ConversionError(
            "`.concat()` of a tf.TensorArray: eager raises on an empty one, a graph's "
            "gives an empty tensor")
    if name == "read" and note.clears:
        raise ConversionError(
            "`.read()` of a tf.TensorArray that clears what it reads (eager's default: a "
            "second read raises, `stack()` gives zeros there); a graph clears nothing (make "
            "it with `clear_after_read=False` if nothing reads an item twice)")


def after_call(tracer, fn, args: tuple, kwargs: dict, result) -> None:
    """Note a TensorArray the trace made, and the one a write replaced."""
    mark_used = getattr(result, "mark_used", None)
    if mark_used is not None and is_array(result):
        # (TF logs an error for a traced write whose result is dropped: `ta.write(i, x)`
        # as eager code writes; the trace's would be logged besides plain Python's)
        mark_used()
    if fn is tf.TensorArray and is_array(result):
        clears = kwargs.get("clear_after_read", args[3] if len(args) > 3 else None)
        tracer.arrays[id(result)] = _Note(result, clears is None or bool(clears))
        return
    owner = user_attributes.get(fn, "__self__")
    if is_array(owner) and user_attributes.get(fn, "__name__", "") in _REPLACING and \
            is_array(result):
        note = _note(tracer, owner)
        note.replaced = result is not owner
        tracer.arrays[id(result)] = _Note(result, note.clears)
