"""User functions handed to library calls while a trace runs (`tf.map_fn(step, xs)`,
`tf.while_loop(cond, body, ...)`, `sorted(key=f)`): converted like any call, and, in a
graph TensorFlow nests in the trace (a loop body, a branch), refused when they have
effects Python would repeat per element or skip, and made to keep their ops that may
raise (graphgen/dead_ends.py).

    tf.map_fn(step, xs)   ->   tf.map_fn(callback, xs)     (callback: `step` converted,
                                                              checked, traced once)
"""
from __future__ import annotations

import collections
import functools
import operator
import types
import weakref

import tensorflow as tf

from janus import user_attributes
from janus.errors import ConversionError
from janus.graphgen import active, deferred_checks
from janus.graphgen.dead_ends import after_raising_ops
from janus.graphgen.refusals import traced_callback_reason
from janus.graphgen.general import _contents
from janus.transform.pipeline import lambda_traced_as_is
from janus.transform.runtime import user_function, user_partial

_FUNCTIONAL_OPS = {"map_fn", "map_fn_v2", "scan", "scan_v2", "foldl", "foldl_v2", "foldr",
                   "foldr_v2", "while_loop", "while_loop_v2", "cond", "cond_for_tf_v2", "case",
                   "case_v2", "switch_case", "vectorized_map"}


def _calls_back(library) -> bool:
    """Python's own higher-order functions and `tf.nest`'s maps: they only call what they
    are given (an object with a `__call__` of the program's is converted there; handed to
    other library code it may be kept and looked at: `SGD(learning_rate=schedule)`)."""
    import functools as _functools
    import itertools

    if any(library is f for f in (map, filter, sorted, min, max, _functools.reduce,
                                  itertools.starmap, itertools.accumulate, itertools.groupby,
                                  itertools.takewhile, itertools.dropwhile,
                                  itertools.filterfalse)):
        return True
    return (user_attributes.get(library, "__module__", None) or "").startswith("tensorflow") and \
        (user_attributes.get(library, "__name__", None) or "").startswith("map_structure")


_CONTAINERS = (list, dict, set, frozenset, tuple, collections.deque)


def _never_calls(library) -> bool:
    """Library code that never calls a function it is handed, only compares, hashes or
    keeps it: a container's methods (`reg.index(hook)`, `reg.remove(hook)`,
    `reg.append(hook)`, `d.pop(hook)`; not `list.sort`, whose `key` it calls), `id`,
    `isinstance`, `operator.eq`, a weak reference. Handed janus's wrapper instead, it
    would see another object than Python does (`hook` not in the list that holds it:
    ValueError, and janus gave up on the function: F399)."""
    owner = user_attributes.get(library, "__self__", None)
    if isinstance(owner, _CONTAINERS) and not isinstance(owner, type):
        return user_attributes.get(library, "__name__", None) != "sort"
    return any(library is f for f in _IDENTITY_FUNCTIONS)


_IDENTITY_FUNCTIONS = (id, hash, isinstance, issubclass, type, callable, repr, str, len,
                       getattr, hasattr, setattr, delattr, vars, dir, operator.eq,
                       operator.ne, operator.is_, operator.is_not, operator.contains,
                       operator.indexOf, operator.countOf, weakref.ref, weakref.proxy,
                       weakref.WeakMethod, weakref.finalize)
"""Builtins and library functions that look at a function's identity, never call it."""


def traces_callbacks(library) -> bool:
    """TF's functional ops: they trace (not just call) the callables handed to them."""
    module = user_attributes.get(library, "__module__", None) or ""
    return module.startswith("tensorflow") and \
        user_attributes.get(library, "__name__", None) in _FUNCTIONAL_OPS


def traced_callback(runtime, site, library, value):
    """A user function handed to a library call (`tf.map_fn(step, xs)`, `sorted(key=f)`)
    that the library calls while this trace runs is converted like any call (its heap
    reads guarded); called at another time (a callback kept for later), it is the
    user's plain function.

    Called in a graph nested in the trace's (TF tracing a loop body, a branch, a
    `tf.function`: `tf.map_fn`, `tf.while_loop`, `tf.cond`...), its Python runs once
    here, whereas plain Python runs it per element, per iteration or only in the
    branch taken: any effect (print, heap write, in-place change) is refused."""
    if type(value) in (list, tuple, dict) and traces_callbacks(library):
        # `tf.switch_case(k, [f0, f1])`, `tf.case([(pred, f)])`: a new container only
        # when it holds a callback
        items = value.items() if type(value) is dict else enumerate(value)
        wrapped = {k: traced_callback(runtime, site, library, v) for k, v in items}
        if all(wrapped[k] is v for k, v in (value.items() if type(value) is dict
                                             else enumerate(value))):
            return value
        return wrapped if type(value) is dict else type(value)(wrapped.values())
    function = isinstance(value, (types.FunctionType, types.MethodType))
    if function and _never_calls(library):
        return value  # (compared, hashed or kept: the user's function itself, F399)
    if not (function or callable(value) and not isinstance(value, type) and
            (traces_callbacks(library) or _calls_back(library))) or \
            user_function(value)[0] is None and not user_partial(value):
        return value  # (an object with a user `__call__` only for the callers above; a
        # `functools.partial` of user code, `partial(branch, x)`: converted, F264)
    tracer = runtime.tracer
    outer = tf.compat.v1.get_default_graph()
    # a lambda of converted code is hooked as it is (transform/pipeline.lambda_traced_as_is)
    plain = lambda_traced_as_is(value)

    @functools.wraps(value)
    def callback(*args, **kwargs):
        if active.get() is not tracer:
            return value(*args, **kwargs)
        if tf.compat.v1.get_default_graph() is outer:
            # run by Python code of the library, once per time plain Python would
            return value(*args, **kwargs) if plain else runtime.call(site, value, *args, **kwargs)
        mark, writes, local = tracer.ledger.mark(), tracer.shadow.writes, tracer.local_writes
        contents = _contents(args)
        deferred_checks.unbounded_inside()  # (a TF loop of the user's may not end)
        tracer.callback_depth += 1
        try:
            result = value(*args, **kwargs) if plain else \
                runtime.call(site, value, *args, **kwargs)
        finally:
            tracer.callback_depth -= 1
        done = dict(printed=tracer.ledger.mark() != mark,
                    variables=tracer.shadow.writes != writes,
                    locals_=tracer.local_writes != local, in_place=_contents(args) != contents)
        if any(done.values()):
            raise ConversionError(traced_callback_reason(library, **done))
        if keeps_raising:  # (eager runs every op of a loop, a branch...)
            return after_raising_ops(result)
        return result  # (... but a vectorized_map is a tf.function eagerly too)
    keeps_raising = user_attributes.get(library, "__name__", None) != "vectorized_map"
    callback.__janus_callback__ = True  # (janus's wrapper: called as it is, not converted)
    # (`ds.map(fn)` runs AutoGraph on what it gets: on janus's wrapper it failed, with a
    # warning plain code does not give, and ran it as it is; janus converted it already)
    return tf.autograph.experimental.do_not_convert(callback)
