"""Process-wide state read in a jitted function (graphgen/process_state.py, F424, F425): a
Logger a library call hands out (`tf.get_logger().level`), the getters of sys, gc, numpy,
os, decimal; each changed between calls and compared with plain Python call by call."""
import decimal
import gc
import logging
import os
import sys

import numpy as np
import tensorflow as tf
from absl import logging as absl_logging

from tests.differential import assert_same

X = tf.constant([0.25, 0.5])
NAME = "janus.tests.process_state"


def _between(i, changes):
    for when, change in changes:
        if i == when:
            change()
    return (X,)


def _calls(changes, n=11):
    return [lambda _, i=i: _between(i, changes) for i in range(n)]


def _loggers_restored(fn):
    def run():
        tf_level, root_level = tf.get_logger().level, logging.root.level
        verbosity = absl_logging.get_verbosity()
        try:
            fn()
        finally:
            absl_logging.set_verbosity(verbosity)
            tf.get_logger().setLevel(tf_level)
            logging.root.setLevel(root_level)
            logging.getLogger(NAME).setLevel(logging.NOTSET)
            logging.disable(logging.NOTSET)
    run.__name__ = fn.__name__
    return run


@_loggers_restored
def test_a_logger_a_call_hands_out_changed_between_calls():
    """F424: the level of `tf.get_logger()`'s Logger, of `logging.getLogger(name)`'s and of
    the root Logger was the trace's in every graph call."""
    def step(x):
        y = x * (2.0 if tf.get_logger().level > 20 else 3.0)
        if logging.getLogger(NAME).level >= logging.WARNING:
            y = y + 1.0
        if logging.root.level > logging.WARNING:
            y = y - 0.5
        return y

    changes = [(0, lambda: tf.get_logger().setLevel(logging.INFO)),
               (0, lambda: logging.root.setLevel(logging.WARNING)),
               (4, lambda: tf.get_logger().setLevel(logging.ERROR)),
               (6, lambda: logging.getLogger(NAME).setLevel(logging.WARNING)),
               (8, lambda: logging.root.setLevel(logging.ERROR))]
    stats = assert_same(step, _calls(changes), make_state=object)
    assert stats.graph_calls >= 3, dict(stats.fallback_reasons)


@_loggers_restored
def test_a_logger_s_queries_are_answered_per_call():
    """`getEffectiveLevel()`, `isEnabledFor(...)` (they ran plainly for good: a Logger's
    method refused the trace), `logging.disable`'s level and absl's verbosity: read on
    every call."""
    def step(x):
        y = x * (2.0 if tf.get_logger().getEffectiveLevel() > 20 else 3.0)
        if logging.getLogger(NAME).isEnabledFor(logging.INFO):
            y = y + 1.0
        if logging.root.manager.disable >= logging.INFO:
            y = y - 0.5
        if absl_logging.level_info() or absl_logging.get_verbosity() > 1:
            y = y * 1.5
        return y

    changes = [(0, lambda: tf.get_logger().setLevel(logging.INFO)),
               (0, lambda: logging.getLogger(NAME).setLevel(logging.INFO)),
               (4, lambda: tf.get_logger().setLevel(logging.ERROR)),
               (6, lambda: logging.getLogger(NAME).setLevel(logging.WARNING)),
               (0, lambda: absl_logging.set_verbosity(absl_logging.WARNING)),
               (7, lambda: absl_logging.set_verbosity(absl_logging.INFO)),
               (8, lambda: logging.disable(logging.INFO)),
               (9, lambda: logging.disable(logging.NOTSET))]
    stats = assert_same(step, _calls(changes), make_state=object)
    assert stats.graph_calls >= 3, dict(stats.fallback_reasons)


@_loggers_restored
def test_a_logger_s_setter_in_the_call_refuses_the_graph():
    """`setLevel` / `logging.disable` in the call run in every call, as in Python."""
    def step(x, level):
        tf.get_logger().setLevel(level)
        logging.disable(level)
        return x * 2.0 if tf.get_logger().isEnabledFor(logging.INFO) else x

    levels = [logging.INFO, logging.ERROR]
    assert_same(step, [(X, levels[i % 2]) for i in range(6)],
                observe=lambda _: (tf.get_logger().level, logging.root.manager.disable))


def _process_restored(fn):
    def run():
        saved = (sys.getswitchinterval(), gc.isenabled(), gc.get_threshold(),
                 np.getbufsize(), os.getcwd(), decimal.getcontext().prec,
                 tf.debugging.is_traceback_filtering_enabled())
        try:
            fn()
        finally:
            sys.setswitchinterval(saved[0])
            (gc.enable if saved[1] else gc.disable)()
            gc.set_threshold(*saved[2])
            np.setbufsize(saved[3])
            os.chdir(saved[4])
            decimal.getcontext().prec = saved[5]
            (tf.debugging.enable_traceback_filtering if saved[6]
             else tf.debugging.disable_traceback_filtering)()
    run.__name__ = fn.__name__
    return run


@_process_restored
def test_process_getters_changed_between_calls():
    """F425: `sys.getswitchinterval()`, `gc.isenabled()`, `gc.get_threshold()`,
    `np.getbufsize()`, `os.getcwd()`, the decimal context's precision and TF's traceback
    filtering were the trace's in every graph call."""
    here = os.getcwd()

    def step(x):
        y = x * (2.0 if sys.getswitchinterval() > 0.01 else 3.0)
        if not gc.isenabled():
            y = y + 1.0
        if gc.get_threshold()[0] > 700 or np.getbufsize() > 8192:
            y = y - 0.5
        if os.getcwd() != here:
            y = y * 5.0
        print(decimal.getcontext().prec, tf.debugging.is_traceback_filtering_enabled())
        return y

    changes = [(0, lambda: sys.setswitchinterval(0.005)), (0, gc.enable),
               (0, lambda: gc.set_threshold(700, 10, 10)), (0, lambda: np.setbufsize(8192)),
               (0, tf.debugging.enable_traceback_filtering),
               (3, lambda: sys.setswitchinterval(0.05)), (4, gc.disable), (5, gc.enable),
               (6, lambda: gc.set_threshold(900, 10, 10)),
               (7, lambda: os.chdir(os.path.dirname(here))), (8, lambda: os.chdir(here)),
               (8, lambda: setattr(decimal.getcontext(), "prec", 40)),
               (9, tf.debugging.disable_traceback_filtering)]
    stats = assert_same(step, _calls(changes, 12), make_state=object)
    assert stats.graph_calls >= 3, dict(stats.fallback_reasons)


@_process_restored
def test_process_setters_in_the_call_refuse_the_graph():
    """`gc.disable()`, `sys.setswitchinterval(...)` in the call: made by every call."""
    def step(x, on):
        (gc.enable if on else gc.disable)()
        sys.setswitchinterval(0.01 if on else 0.02)
        return x * 2.0 if gc.isenabled() else x

    assert_same(step, [(X, i % 2 == 0) for i in range(6)],
                observe=lambda _: (gc.isenabled(), sys.getswitchinterval()))


def test_numpy_error_settings_read_in_a_trace():
    """`np.geterr()` in a trace said the trace's own `np.errstate(over="call")` (janus's,
    trace_warnings.py): the program printed "call", and the guard, reading "warn" on
    every call, made a new graph each call."""
    def step(x):
        print(np.geterr()["over"], np.geterrcall())
        return x * 2.0 if np.geterr()["divide"] == "raise" else x + 1.0

    saved = np.geterr()
    try:
        changes = [(0, lambda: np.seterr(over="warn", divide="warn")),
                   (5, lambda: np.seterr(divide="raise")), (7, lambda: np.seterr(divide="warn"))]
        stats = assert_same(step, _calls(changes, 12), make_state=object)
    finally:
        np.seterr(**saved)
    assert stats.graph_calls >= 5 and stats.generations <= 3
