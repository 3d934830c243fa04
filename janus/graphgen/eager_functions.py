"""A `tf.function` of the program's under `tf.config.run_functions_eagerly(True)`.

    tf.config.run_functions_eagerly(True)    # (debugging)

    @tf.function
    def helper(x):
        print("in helper")                   # plain TF: on every call
        return x * 2.0

A trace calls the program's `tf.function` inside janus's graph, where its Python body
runs once, while tracing; with functions run eagerly, plain TF runs that body on every
call (its prints, its heap writes). So a trace that calls one guards the flag on the
host (`RUN_FUNCTIONS_EAGERLY == False`: one dict read a call), and while the flag is on
the trace calls the `tf.function`'s Python function, the program's code, converted as
any (its prints and heap writes per call, its reads guarded), under a guard that the
flag is on: toggling it between calls picks the other graph.
"""
from __future__ import annotations

import types

import tensorflow as tf
from tensorflow.python.eager.polymorphic_function import eager_function_run

from janus.graphgen.sources import Source, global_
from janus.transform.runtime import is_user_code

FLAG: Source = global_("RUN_FUNCTIONS_EAGERLY", eager_function_run.__name__,
                       eager_function_run.__dict__)
"""Where TensorFlow keeps the flag `tf.config.run_functions_eagerly` sets."""


def user_tf_function(fn) -> bool:
    """`fn` is a `tf.function` (or one bound to an instance) of the program's code."""
    if not isinstance(fn, tf.types.experimental.PolymorphicFunction):
        return False
    inner = getattr(fn, "python_function", None)
    inner = getattr(inner, "__func__", inner)
    while isinstance(getattr(inner, "__wrapped__", None), types.FunctionType):
        inner = inner.__wrapped__
    return isinstance(inner, types.FunctionType) and is_user_code(inner)


def called(tracer, fn):
    """What a trace calls for `fn`: the program's `tf.function` as it is, with a guard
    that functions are not run eagerly; while they are, its Python function (converted
    like any of the program's, its effects per call), with a guard that they are."""
    if not user_tf_function(fn):
        return fn
    eagerly = bool(eager_function_run.RUN_FUNCTIONS_EAGERLY)
    tracer.guard("value", FLAG, eagerly, "calls a tf.function (tf.config.functions_run_eagerly)")
    return fn.python_function if eagerly else fn
