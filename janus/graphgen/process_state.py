"""Process-wide state a traced call reads outside the libraries' settings (F424, F425):
read again on every call, as graphgen/global_settings.py reads Keras' and tf.config's.

    sys.getrecursionlimit()          the program's own limit (recursion/limits.user_limit:
                                     not the one janus raised while it runs the code)
    np.geterr(), np.geterrcall()     the program's (trace_warnings.program_geterr: not the
                                     trace's own `np.errstate(over="call")`)
    sys.getswitchinterval(), gc.isenabled(), gc.get_threshold(), np.getbufsize(),
    os.getcwd(), tf.debugging.is_traceback_filtering_enabled(),
    tf.compat.v1.logging.get_verbosity(), absl.logging.get_verbosity(), .level_info()
                                     getters: the reader with its arguments
    tf.get_logger().level, logging.getLogger("x").getEffectiveLevel(),
    .isEnabledFor(20), logging.root.level, logging.root.manager.disable
                                     a Logger (a Manager, a Handler) a library call or a
                                     library module hands out: its attribute, or its
                                     query method's answer, read again from the same object
    decimal.getcontext().prec        the thread's current context's

A Logger reached through the program's heap (a module global, `self.log`) is located and
guarded by its path as before. Their setters (`sys.setrecursionlimit`, `gc.disable`,
`os.chdir`, `logging.disable`, a Logger's `setLevel`: refusals.output_reason) refuse the
trace: the graph would never make the change.
"""
from __future__ import annotations

import decimal
import functools
import gc
import logging
import os
import sys

import numpy as np
import tensorflow as tf

from janus import user_attributes
from janus.graphgen.trace_warnings import program_geterr, program_geterrcall
from janus.recursion import limits

def getters() -> list:
    """Functions reading process-wide state, read again on every call."""
    found = [sys.getswitchinterval, gc.isenabled, gc.get_threshold, gc.get_debug,
             np.getbufsize, os.getcwd, limits.user_limit, program_geterr, program_geterrcall,
             tf.compat.v1.logging.get_verbosity]
    found += [f for f in (getattr(sys, "get_int_max_str_digits", None),
                          getattr(tf.debugging, "is_traceback_filtering_enabled", None))
              if f is not None]
    return found + _absl("get_verbosity", "level_debug", "level_info", "level_warn",
                         "level_warning", "level_error")


def _absl(*names: str) -> list:
    """absl.logging's functions of `names` (its verbosity: TF's own logging reads it)."""
    absl_logging = sys.modules.get("absl.logging")
    return [f for f in (getattr(absl_logging, name, None) for name in names)
            if f is not None]


def setters() -> list:
    """Functions changing that state: a trace calling one refuses."""
    found = [sys.setrecursionlimit, sys.setswitchinterval, gc.enable, gc.disable,
             gc.set_threshold, gc.set_debug, np.setbufsize, np.seterrcall, os.chdir,
             os.umask, logging.disable, tf.compat.v1.logging.set_verbosity]
    found += [f for f in (getattr(sys, "set_int_max_str_digits", None),
                          getattr(tf.debugging, "enable_traceback_filtering", None),
                          getattr(tf.debugging, "disable_traceback_filtering", None))
              if f is not None]
    return found + _absl("set_verbosity", "set_stderrthreshold")


ANSWERED = {id(sys.getrecursionlimit): limits.user_limit, id(np.geterr): program_geterr,
            id(np.geterrcall): program_geterrcall}
"""Getters whose answer inside janus is another function's (janus raised the limit, its
trace runs under its own `np.errstate`)."""

PORTABLE = ("user_limit", "getswitchinterval", "isenabled", "get_threshold", "get_debug",
            "getbufsize", "getcwd", "get_verbosity", "get_int_max_str_digits",
            "is_traceback_filtering_enabled", "level_debug", "level_info", "level_warn",
            "level_warning", "level_error")
"""Names of the argument-less getters above (a graph cache records them by name)."""

LOGGER_QUERIES = frozenset({"getEffectiveLevel", "isEnabledFor", "hasHandlers"})
"""A Logger's methods that only read its level (and its parents', the Manager's
`disable`), answered per call; its other methods make records or change it."""

_HANDED_OUT = (logging.Logger, logging.Manager, logging.Handler, logging.PlaceHolder)
_DATA = (int, float, bool, str, type(None))


def logger_query(fn) -> bool:
    """Whether `fn` is a query method (`LOGGER_QUERIES`) bound to a Logger."""
    return isinstance(user_attributes.get(fn, "__self__", None), logging.Logger) and \
        user_attributes.get(fn, "__name__", "") in LOGGER_QUERIES


def _attribute(obj, name: str):
    return getattr(obj, name, None)


def _members(obj, name: str) -> tuple:
    return tuple(map(id, getattr(obj, name, ())))


def _context_attribute(name: str):
    return getattr(decimal.getcontext(), name, None)


def handed_out_read(obj, name: str, value):
    """A reader of `obj.name` to check on every call (`obj` a Logger, a Manager, a Handler
    janus does not locate: `tf.get_logger()`'s, `logging.root`; the current decimal
    context), or None."""
    if isinstance(obj, _HANDED_OUT):
        if type(value) in _DATA:
            return functools.partial(_attribute, obj, name)
        if type(value) is list:  # (`logger.handlers`: which ones)
            return functools.partial(_members, obj, name)
        return None
    if type(obj) is decimal.Context and type(value) in _DATA and obj is decimal.getcontext():
        return functools.partial(_context_attribute, name)
    return None
