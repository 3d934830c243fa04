"""Questions whose answer differs between eager and graph execution, answered as the
user's eager call sees them (janus runs a call plainly when it is made inside a graph,
so a traced call stands for an eager one):

    tf.executing_eagerly()          True  (the FuncGraph would say False: F223)
    tf.inside_function()            False
    tf.is_symbolic_tensor(y)        False
    type(y)                         EagerTensor (not SymbolicTensor)
    isinstance(y, EagerTensor)      True
    hasattr(y, "numpy")             True  (hasattr(y, "op"): False)
    tf.get_static_value(y)          the value eagerly: a constant the graph folds is the
                                    same; a computed one refuses (its value is the run's)

Inside a callback TensorFlow traces (`tf.map_fn(lambda t: ...)`, a `tf.while_loop`
body) plain Python may be eager or in a graph, as the library runs it: such a question
there refuses. Questions whose answers agree run as they are.
"""
from __future__ import annotations

import tensorflow as tf
from tensorflow.python.framework.ops import EagerTensor

from janus.errors import ConversionError
from janus.graphgen.library_modes import EAGER_ANSWERS
from janus.graphgen.value_kinds import is_symbolic
from janus.graphgen.values import FedScalarMisuse

UNANSWERED = object()
"""`answer`'s result for a call it does not answer."""

_EAGER = {id(tf.executing_eagerly): True, id(tf.compat.v1.executing_eagerly): True,
          id(tf.inside_function): False, **EAGER_ANSWERS}
"""The mode questions and their eager answer (also as the stand-ins library code is
answered by while a traced library call runs: graphgen/library_modes.py)."""

_probe: list = []


def _eager_tensor():
    """An eager tensor (made outside any graph): what a graph tensor stands for."""
    if not _probe:
        with tf.init_scope():
            _probe.append(tf.constant(0.0))
    return _probe[0]


def _in_callback(tracer, what: str) -> None:
    if tracer.callback_depth:
        raise ConversionError(f"{what} inside a callback TensorFlow traces (plain Python "
                              "answers as the library runs it: eagerly or in a graph)")


def _differs(tracer, graph_answer, eager_answer, what: str):
    """The eager answer where it differs from the graph's (UNANSWERED where they agree)."""
    if graph_answer == eager_answer:
        return UNANSWERED
    _in_callback(tracer, what)
    return eager_answer


def answer(tracer, fn, args: tuple, kwargs: dict):
    """`fn(*args, **kwargs)` as an eager call answers it, or UNANSWERED."""
    eager = _EAGER.get(id(fn))
    if eager is not None and not args and not kwargs:
        _in_callback(tracer, f"{fn.__name__}()")
        return eager
    if not args or not is_symbolic(args[0]):
        return UNANSWERED
    value = args[0]
    if fn is tf.is_symbolic_tensor and len(args) == 1 and not kwargs:
        return _differs(tracer, True, False, "tf.is_symbolic_tensor(t)")
    if fn is type and len(args) == 1 and not kwargs:
        return _differs(tracer, type(value), EagerTensor, "type(t)")
    if fn is isinstance and len(args) == 2 and not kwargs:
        try:
            graph, eager = isinstance(value, args[1]), isinstance(_eager_tensor(), args[1])
        except TypeError:
            return UNANSWERED  # (raised as Python raises it)
        return _differs(tracer, graph, eager, "isinstance(t, ...)")
    if (fn is hasattr or fn is getattr) and len(args) in (2, 3) and not kwargs and \
            isinstance(args[1], str):
        name = args[1]
        graph, eager = hasattr(value, name), hasattr(_eager_tensor(), name)
        if graph == eager:
            return UNANSWERED
        if fn is getattr:
            raise ConversionError(f"getattr(t, {name!r}) of a tensor that is eager in "
                                  "plain Python")
        return _differs(tracer, graph, eager, f"hasattr(t, {name!r})")
    if fn is tf.get_static_value:
        static = tf.get_static_value(*args, **kwargs)
        if static is None:  # (eagerly: the tensor's value, known only when the graph runs)
            raise FedScalarMisuse("tf.get_static_value of a tensor the graph computes",
                                  None, from_graph=True)
        return static
    return UNANSWERED
