"""The execution mode as library code asks it inside a traced call (F342): plain Python
runs the call eagerly, so a library function that branches on the mode must take its
eager path in janus's graph too (F223 answers the program's own questions; this module,
the questions of the code janus runs as it is, by the stack of the code that asks):

    keras.ops.max(sel)          Keras checks an empty tensor only `if tf.executing_eagerly()`:
                                asked True, its assert is in the graph (and raises as eager)
    lookup.vocabulary_size()    `int(table.size().numpy())` eagerly: on a graph tensor it
                                raises, and the call refuses (it runs in Python: an int)

While a traced library call runs, the public `tf.executing_eagerly` (and its v1 and
`compat` copies) and `tf.inside_function` are stand-ins that answer as an eager call
does when asked by code outside TensorFlow and janus, in the trace's graph or a branch
or loop body nested in it (eager TensorFlow runs `tf.cond`, `tf.while_loop`, `tf.map_fn`
as Python); inside a `tf.function` (the library's own, `tf.vectorized_map`'s) plain
Python is in a graph too, and in an init scope eager: the true answer. TensorFlow's
internals ask `context.executing_eagerly()` (not replaced) or are told the truth by
their module, so they build the graph as they should. A library call answered so that
then raises refuses (its eager path may not take graph tensors: `.numpy()`, `if t > 0:`).
The stand-ins are in place only while a traced library call runs on some thread;
elsewhere (another thread, eager code) they give the true answer.

The same holds for the kind of a tensor (F343): `tf.__internal__.EagerTensor` is a
stand-in class that library code's `isinstance` finds a tensor of the trace (of its graph
or a branch or body nested in it) to be, as the eager tensor it stands for is:

    keras.losses.categorical_crossentropy(y, tf.nn.softmax(z))
                                Keras takes the softmax's logits when `output.op` is a
                                Softmax and the output no EagerTensor: in a graph it
                                computed from the logits (27.0 where eagerly the clipped
                                probability gives 16.1, and other gradients)

and for its value (F354): `.numpy` of such a tensor, asked by library code, is the value
read on the host where it is the graph's state (a table's size: graphgen/library_reads.py,
checked in the graph), so `vocabulary_size()` is the Python int it is eagerly; a value
the call's data computes has no `.numpy`, as before.
"""
from __future__ import annotations

import contextlib
import sys
import threading

import tensorflow as tf
from tensorflow.python.framework.ops import EagerTensor, SymbolicTensor
from tensorflow.python.ops.control_flow_v2_func_graphs import ControlFlowFuncGraph

from janus.errors import ConversionError
from janus.graphgen import library_reads
from janus.operation_hooks import operation_hook

_local = threading.local()
_lock = threading.Lock()
_users = 0
_patched: list = []  # (module, attribute name, stand-in, original)


class _Call:
    """A traced library call running on this thread: what its code asked."""

    __slots__ = ("tracer", "answered")

    def __init__(self, tracer):
        self.tracer = tracer
        self.answered = ""  # a question answered as eagerly (`tf.executing_eagerly()`)


def _from_library(frame) -> bool:
    """Whether the frame's code is neither TensorFlow's nor janus's."""
    module = frame.f_globals.get("__name__", "") or ""
    return module.partition(".")[0] not in ("tensorflow", "janus")


_FUNCTION_WHEN_EAGER = ("tensorflow.python.ops.parallel_for.",)
"""TensorFlow modules that trace a function in place in a graph, and as a `tf.function`
when eager."""


def eager_in_plain(tracer, graph, frame) -> bool:
    """Whether plain Python runs eagerly what runs in `graph` of the trace, asked by
    `frame`: in the trace's graph, or in a branch or loop body nested in it (a `tf.cond`,
    `tf.while_loop`, `tf.map_fn` eager TensorFlow runs as Python: janus's own `if` of a
    tensor too), not in a `tf.function` (one of the library's, `tf.vectorized_map`'s: a
    graph in plain Python too)."""
    while graph is not tracer.graph:
        if not isinstance(graph, ControlFlowFuncGraph):
            return False
        graph = graph.outer_graph
    while frame is not None:  # (in a graph `tf.vectorized_map` traces its function in
        # place, eagerly it makes a tf.function of it: a graph in plain Python too)
        if (frame.f_globals.get("__name__", "") or "").startswith(_FUNCTION_WHEN_EAGER):
            return False
        frame = frame.f_back
    return True


def _stand_in(original, eager_answer: bool, name: str):
    def question(*args, **kwargs):
        calls = getattr(_local, "calls", None)
        truth = original(*args, **kwargs)
        if not calls or args or kwargs or truth == eager_answer or \
                not _from_library(sys._getframe(1)):
            return truth
        call = calls[-1]
        if not eager_in_plain(call.tracer, tf.compat.v1.get_default_graph(),
                               sys._getframe(1)):
            return truth
        call.answered = call.answered or name
        return eager_answer
    question.__name__ = getattr(original, "__name__", name)
    question.__qualname__ = question.__name__
    question.__doc__ = original.__doc__
    question.__wrapped__ = original
    return question


class _EagerTensorKind(type):
    """`isinstance(t, tf.__internal__.EagerTensor)` asked by library code of a tensor of
    the trace that stands for an eager one: True (F343)."""

    def __instancecheck__(cls, value) -> bool:
        if isinstance(value, EagerTensor):
            return True
        calls = getattr(_local, "calls", None)
        if not calls or not isinstance(value, tf.Tensor) or \
                not _from_library(sys._getframe(1)):
            return False
        call = calls[-1]
        if not eager_in_plain(call.tracer, getattr(value, "graph", None), sys._getframe(1)):
            return False
        call.answered = call.answered or "isinstance(t, tf.__internal__.EagerTensor)"
        return True

    def __subclasscheck__(cls, subclass) -> bool:
        return issubclass(subclass, EagerTensor)


class EagerTensorStandIn(metaclass=_EagerTensorKind):
    """`tf.__internal__.EagerTensor` while a traced library call runs."""


_tensor_getattr = SymbolicTensor.__getattr__  # (tf.Tensor's: numpy-like names' message)


@operation_hook
def _tensor_attribute(tensor, name: str):
    """A graph tensor's missing attribute while a traced library call runs: `.numpy` of a
    tensor of the trace asked by library code is its value read on the host, where the
    value is the graph's state (F354)."""
    calls = getattr(_local, "calls", None)
    if name != "numpy" or not calls or not _from_library(sys._getframe(1)):
        return _tensor_getattr(tensor, name)
    call = calls[-1]
    graph = getattr(tensor, "graph", None)
    if graph is not call.tracer.graph or tf.compat.v1.get_default_graph() is not graph or \
            call.tracer.callback_depth:
        return _tensor_getattr(tensor, name)
    value = library_reads.held_value(graph, tensor)
    if value is None:
        return _tensor_getattr(tensor, name)
    call.tracer.assert_ops.append(library_reads.check_holds(tensor, value))
    call.answered = call.answered or "`.numpy()` of a tensor of the graph's state"
    return lambda: value


_QUESTIONS = ((tf.executing_eagerly, True, "tf.executing_eagerly()"),
              (tf.compat.v1.executing_eagerly, True, "tf.compat.v1.executing_eagerly()"),
              (tf.inside_function, False, "tf.inside_function()"))

STAND_INS = {original: _stand_in(original, answer, name)
             for original, answer, name in _QUESTIONS}
"""Each mode question's stand-in, by the original function."""

_STANDING_IN = {**STAND_INS, EagerTensor: EagerTensorStandIn}
"""Every public name's stand-in, by the original."""

EAGER_ANSWERS = {id(stand_in): answer for (original, answer, _), stand_in in
                 zip(_QUESTIONS, STAND_INS.values())}
"""The eager answer of each stand-in (the program's converted code may look one up)."""


_MISSING = object()
"""The original of a class attribute the class itself did not have (deleted again)."""


def _public_places() -> list:
    """(module, attribute, stand-in, original) for every public API module holding a
    mode question or EagerTensor (`tf`, `tf.compat.v1`, `tf.__internal__`...; not
    TensorFlow's own modules)."""
    places = []
    for module_name, module in list(sys.modules.items()):
        if module is None or not (module_name == "tensorflow" or
                                  module_name.startswith("tensorflow._api.")):
            continue
        for attribute in ("executing_eagerly", "inside_function", "EagerTensor"):
            original = getattr(module, "__dict__", {}).get(attribute)
            stand_in = _STANDING_IN.get(original) if original is not None else None
            if stand_in is not None:
                places.append((module, attribute, stand_in, original))
    places.append((SymbolicTensor, "__getattr__", _tensor_attribute,
                   SymbolicTensor.__dict__.get("__getattr__", _MISSING)))
    return places


def _install() -> None:
    global _users
    with _lock:
        if not _users:
            if not _patched:
                _patched.extend(_public_places())
            for module, attribute, stand_in, _ in _patched:
                setattr(module, attribute, stand_in)
        _users += 1


def _uninstall() -> None:
    global _users
    with _lock:
        _users -= 1
        if not _users:
            for module, attribute, _, original in _patched:
                if original is _MISSING:
                    delattr(module, attribute)
                else:
                    setattr(module, attribute, original)


@contextlib.contextmanager
def answering(tracer):
    """A traced library call: its code's mode questions answered as eagerly; refused
    (ConversionError) when it was answered so and raised."""
    calls = _local.__dict__.setdefault("calls", [])
    call = _Call(tracer)
    outermost = not calls
    if outermost:
        _install()
    calls.append(call)
    try:
        yield
    except ConversionError:
        raise
    except Exception as error:
        if call.answered and not type(error).__module__.startswith("janus"):
            # (its eager path may not take graph tensors; janus's own signals pass)
            raise ConversionError(f"a library call answered {call.answered} as plain "
                                  f"Python's eager call is raised {type(error).__name__} "
                                  "on the graph's tensors") from error
        raise
    finally:
        calls.pop()
        if outermost:
            _uninstall()
