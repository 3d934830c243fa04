"""A function janus runs as it is because it reads frames sees the caller frame plain
Python gives it: a helper asking `sys._getframe(1)`, `inspect.stack()[1]` or
`inspect.currentframe().f_back` for its caller's file, line, name and globals, on every
kind of run (profiled, split, plain); the jitted function itself asking for its
caller (F445, transform/caller_frames.py)."""
import inspect
import os
import sys

import tensorflow as tf

import janus

MARK = "this module"


def _named(frame):
    return (os.path.basename(frame.f_code.co_filename), frame.f_lineno, frame.f_code.co_name,
            frame.f_globals.get("MARK"))


def by_getframe():
    return _named(sys._getframe(1))


def by_stack():
    caller = inspect.stack(0)[1]
    return os.path.basename(caller.filename), caller.lineno, caller.function


def by_currentframe():
    return _named(inspect.currentframe().f_back)


def step(x, seen):
    seen.append(by_getframe())
    y = x * 2.0
    if tf.reduce_sum(y) > 0:
        seen.append(by_stack())
    seen.append(by_currentframe())
    return y + float(tf.reduce_sum(y))  # (a graph break: split runs too)


def reads_its_caller(x):
    return x + 1.0, _named(sys._getframe(1))


def call_site(fn, x, seen):
    return fn(x, seen)


def _run(fn, calls=6):
    seen = []
    for i in range(calls):
        call_site(fn, tf.constant([float(i)]), seen)
    return seen


def test_a_helper_reading_frames_sees_the_users_caller():
    expected = _run(step)
    assert expected[0][2] == "step" and expected[0][3] == MARK
    assert _run(janus.jit(step)) == expected


def _caller_named(fn, x):
    return fn(x)[1]  # (the line both name)


def test_a_jitted_function_reading_frames_sees_its_caller():
    g = janus.jit(reads_its_caller)
    for i in range(4):
        x = tf.constant([float(i)])
        assert _caller_named(g, x) == _caller_named(reads_its_caller, x)
