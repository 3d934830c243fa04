"""A Keras layer of the user's own class, called in converted code: its `call` is too.

    class Counting(keras.layers.Layer):
        def call(self, x):
            self.calls += 1                  # a heap write
            y = tf.matmul(x, self.w)
            if tf.reduce_sum(y) > 10.0:      # a tensor test
                y = y * 0.5
            return y

    loss = tf.reduce_sum(layer(x))           # in a jitted function

Keras' `Layer.__call__` (library code, traced as it is) calls `self.call`: the user's
code, which run as it is would write `self.calls` once, at trace time, and never on the
graph's calls (and a failed trace's writes would stay), and would meet the tensor test
as a Python bool. While the traced call of such a layer runs (and its profiled call: the
profile sees the tests of its `call`), each layer of the user's class in it (itself and its sublayers: a Sequential's) has `call` shadowed on the
instance by one that goes through janus's runtime: converted, its heap reads guarded,
its writes deferred to the heap ledger, its tensor tests specialized or made `tf.cond`s.
The shadow is removed when the library call returns, and answers a call from another
thread with the class's own `call`.
"""
from __future__ import annotations

import contextlib
import sys
import threading
import types

from janus import user_attributes
from janus.errors import ConversionError, JanusInternalError
from janus.graphgen.program_classes import program_definitions
from janus.transform.runtime import is_user_code

_JANUS_ERRORS = (ConversionError, JanusInternalError)


def _layer_class():
    if "keras.src.layers.layer" not in sys.modules:
        return None
    from keras.src.layers.layer import Layer
    return Layer


def user_call(layer):
    """The user's `call` function of `layer`'s class (found on its MRO), or None if it is
    Keras' own or the instance has its own `call` attribute."""
    if "call" in getattr(layer, "__dict__", {}):
        return None
    for cls in type(layer).__mro__:
        fn = cls.__dict__.get("call")
        if fn is not None:
            return fn if isinstance(fn, types.FunctionType) and is_user_code(fn) else None
    return None


@contextlib.contextmanager
def converted_calls(runtime, site, fn):
    """For the duration of a library call of `fn` from converted code (traced or
    profiled): the `call` of each layer of a user's class in it goes through `runtime`
    (see the module docstring)."""
    layer_class = _layer_class()
    layer = fn if layer_class is not None and isinstance(fn, layer_class) else \
        user_attributes.get(fn, "__self__")
    if layer_class is None or not isinstance(layer, layer_class):
        yield
        return
    tracer = getattr(runtime, "tracer", None)  # (None while profiling: nothing to guard)
    if tracer is not None:
        _locate(tracer, layer)
    shadowed, raised = [], []
    thread = threading.get_ident()
    for each in layer._flatten_layers(include_self=True, recursive=True):
        call = user_call(each)
        if call is not None:
            object.__setattr__(each, "call", _shadow(runtime, site, thread, each, call, raised))
            shadowed.append(each)
    try:
        yield
    except BaseException as exc:
        # Keras re-raises an error of `call` as a new one of its class with its own text
        # (or a RuntimeError): janus's own reason (a fed number's role...) comes back
        if raised and exc is not raised[0]:
            raise raised[0].with_traceback(raised[0].__traceback__) from None
        raise
    finally:
        raised.clear()  # (its exception's frames hold the list: a cycle, F441)
        for each in shadowed:
            if each.__dict__.get("call") is not None:
                object.__delattr__(each, "call")


def base_call(layer, fn) -> bool:
    """Whether `fn` is `super().call` from the converted `call` of `layer` (a layer of the
    program's class that Keras is calling: its `call` shadowed): Keras's own `call` of a
    base class (`Dense.call`), which reads the layer's Keras state as it does for a
    library layer (guarded by keras_state's settings), with no property, descriptor or
    `__getattr__` of the program's classes in front of the attributes it reads."""
    func = user_attributes.get(fn, "__func__", None)
    if user_attributes.get(fn, "__name__", "") != "call" or \
            not isinstance(func, types.FunctionType) or is_user_code(func):
        return False
    shadow = getattr(layer, "__dict__", {}).get("call")
    if getattr(shadow, "__wrapped__", None) is None:
        return False
    for _, name, value in program_definitions(type(layer)):
        if name in ("__getattr__", "__getattribute__") or \
                hasattr(type(value), "__get__") and \
                not isinstance(value, (types.FunctionType, staticmethod, classmethod)):
            return False
    return True


def _locate(tracer, layer) -> None:
    """Locate the layers of the user's classes a library layer calls (a Sequential's),
    so that their `call`s' reads are guarded and writes deferred: the k-th of a model's
    `layers` is `<model's source>.layers[k]` (the list itself is guarded by
    keras_state's reads of the called layer)."""
    source = tracer.source_of(layer)
    work = [(layer, source)] if source is not None else []
    while work:
        node, where = work.pop()
        children = getattr(node, "layers", None) if hasattr(type(node), "layers") else None
        if not isinstance(children, list):
            continue
        for k, child in enumerate(children):
            known = tracer.source_of(child)
            at = known if known is not None else where.attr("layers").item(k)
            if known is None and user_call(child) is not None:
                tracer.import_value(child, at)
            work.append((child, at))


def _shadow(runtime, site, thread: int, layer, call, raised: list):
    method = types.MethodType(call, layer)

    def shadow(*args, **kwargs):
        if threading.get_ident() != thread:  # (another thread's call: the class's own)
            return method(*args, **kwargs)
        try:
            return runtime.call(site, method, *args, **kwargs)
        except _JANUS_ERRORS as exc:
            raised.append(exc)
            raise

    shadow.__wrapped__ = method
    return shadow
