"""Questions whose answer differs between eager and graph execution, answered as the
user's eager call sees them (janus runs a call plainly when it is made inside a graph,
so a traced call stands for an eager one):

    tf.executing_eagerly()          True  (the FuncGraph would say False: F223)
    tf.inside_function()            False
    tf.is_symbolic_tensor(y)        False
    type(y)                         EagerTensor (not SymbolicTensor)
    isinstance(y, EagerTensor)      True
    hasattr(y, "numpy")             True  (hasattr(y, "op"): False)
    getattr(y, "device"[, d])       as `y.device` eagerly (graphgen/tensor_attributes.py)
    tf.get_static_value(y)          the value eagerly: a constant the graph folds is the
                                    same; a computed one refuses (its value is the run's)

Inside a callback TensorFlow traces (`tf.map_fn(lambda t: ...)`, a `tf.while_loop`
body) plain Python may be eager or in a graph, as the library runs it: such a question
there refuses. Questions whose answers agree run as they are.
"""
from __future__ import annotations

import tensorflow as tf
from tensorflow.python.framework.ops import EagerTensor

from janus.graphgen import tensor_attributes
from janus.graphgen.library_modes import EAGER_ANSWERS
from janus.graphgen.tensor_attributes import UNANSWERED, in_callback
from janus.graphgen.value_kinds import is_symbolic
from janus.graphgen.values import FedScalarMisuse

_EAGER = {id(tf.executing_eagerly): True, id(tf.compat.v1.executing_eagerly): True,
          id(tf.inside_function): False, **EAGER_ANSWERS}
"""The mode questions and their eager answer (also as the stand-ins library code is
answered by while a traced library call runs: graphgen/library_modes.py)."""

def _differs(tracer, graph_answer, eager_answer, what: str):
    """The eager answer where it differs from the graph's (UNANSWERED where they agree)."""
    if graph_answer == eager_answer:
        return UNANSWERED
    in_callback(tracer, what)
    return eager_answer


def answer(tracer, fn, args: tuple, kwargs: dict):
    """`fn(*args, **kwargs)` as an eager call answers it, or UNANSWERED."""
    eager = _EAGER.get(id(fn))
    if eager is not None and not args and not kwargs:
        in_callback(tracer, f"{fn.__name__}()")
        return eager
    if not args:
        return UNANSWERED
    value = args[0]
    if (fn is hasattr or fn is getattr) and len(args) in (2, 3) and not kwargs and \
            isinstance(args[1], str) and \
            (is_symbolic(value) or tensor_attributes.is_symbolic_composite(value)):
        return _attribute_query(tracer, fn, args)
    if not is_symbolic(value):
        return UNANSWERED
    if fn is tf.is_symbolic_tensor and len(args) == 1 and not kwargs:
        return _differs(tracer, True, False, "tf.is_symbolic_tensor(t)")
    if fn is type and len(args) == 1 and not kwargs:
        return _differs(tracer, type(value), EagerTensor, "type(t)")
    if fn is isinstance and len(args) == 2 and not kwargs:
        try:
            graph = isinstance(value, args[1])
            eager = isinstance(tensor_attributes.eager_tensor(), args[1])
        except TypeError:
            return UNANSWERED  # (raised as Python raises it)
        return _differs(tracer, graph, eager, "isinstance(t, ...)")
    if fn is tf.get_static_value:
        static = tf.get_static_value(*args, **kwargs)
        if static is None:  # (eagerly: the tensor's value, known only when the graph runs)
            raise FedScalarMisuse("tf.get_static_value of a tensor the graph computes",
                                  None, from_graph=True)
        return static
    return UNANSWERED


def _attribute_query(tracer, fn, args: tuple):
    """`hasattr(t, name)`, `getattr(t, name[, default])` of a graph tensor (or a composite
    of them) as eagerly: graphgen/tensor_attributes.py."""
    value, name = args[0], args[1]
    if fn is hasattr:
        return _differs(tracer, hasattr(value, name), tensor_attributes.eager_has(value, name),
                        f"hasattr(t, {name!r})")
    try:
        answered = tensor_attributes.eager_attribute(tracer, value, name)
    except AttributeError:
        if len(args) == 3:
            return args[2]
        raise
    return answered
