"""Keras names a trace numbers at the top of its graph (`keras.ops.cond` makes a `Cond`
operation per call, numbered "cond", "cond_1", ...) are numbered again by every graph
call, as plain Python numbers them on every call (graphgen/host_state.py, F467): the step
is one graph, not plain Python for good. Names numbered in a branch, or in a nested
tf.function's trace, are refused as before. Each side's per-call numbering is compared."""
import keras
import numpy as np
import tensorflow as tf
from keras.src.backend.common import global_state

import janus
from tests.differential import assert_same


def _names() -> dict:
    return dict(global_state.get_global_attribute("object_name_uids") or {})


def keras_cond(x):
    y = tf.tanh(x) * 2.0
    z = keras.ops.cond(tf.reduce_sum(y) > 0, lambda: y * 3.0, lambda: y - 1.0)
    return tf.reduce_sum(z * y)


def cond_in_a_branch(x):
    return tf.cond(tf.reduce_sum(x) > 0,
                   lambda: keras.ops.cond(x[0] > 0, lambda: x * 2.0, lambda: x),
                   lambda: x - 1.0)


def _cond_in_a_tf_function():
    """A step calling a tf.function of its own (made anew for each side: TF numbers the
    name while tracing it, once)."""
    @tf.function
    def helper(x):
        return keras.ops.cond(tf.reduce_sum(x) > 0, lambda: x * 3.0, lambda: x)

    def cond_in_a_tf_function(x):
        return helper(x) + 1.0
    return cond_in_a_tf_function


class Doubled(keras.Operation):
    def call(self, x):
        return x * 2.0

    def compute_output_spec(self, x):
        return keras.KerasTensor(x.shape, x.dtype)


def layer_name(s, x):
    op = Doubled()  # (its name read: a graph would keep the trace's, "doubled_3")
    s.names.append(op.name)
    return op(x) + keras.ops.cond(x[0] > 0, lambda: x, lambda: -x)


class Names:
    def __init__(self):
        self.names = []


def _inputs():
    return [(tf.constant([float(i % 3) - 1.0, 0.5]),) for i in range(10)]


def _numbering(fn) -> list:
    """Per call: (result, how the Keras name counters moved)."""
    seen = []
    for args in _inputs():
        before = _names()
        value = fn(*args).numpy().tolist()
        after = _names()
        seen.append((value, {k: after.get(k, 0) - before.get(k, 0)
                             for k in set(after) | set(before)
                             if after.get(k, 0) != before.get(k, 0)}))
    return seen


def test_a_keras_cond_is_one_graph_numbering_its_operation_per_call():
    stats = assert_same(keras_cond, _inputs())
    assert stats.generations == 1 and stats.graph_calls >= 4
    assert _numbering(janus.jit(keras_cond)) == _numbering(keras_cond)


def test_names_numbered_in_a_branch_or_a_tf_function_stay_plain_pythons():
    for make in (lambda: cond_in_a_branch, _cond_in_a_tf_function):
        fn = make()
        plain = _numbering(fn)
        jitted = _numbering(janus.jit(make()))
        np.testing.assert_allclose([v for v, _ in jitted], [v for v, _ in plain])
        assert [n for _, n in jitted] == [n for _, n in plain], fn.__name__


def _layer_names(fn) -> list:
    keras.backend.clear_session()  # (each side numbers from the start)
    s = Names()
    for args in _inputs():
        fn(s, *args)
    return s.names


def test_a_name_the_program_reads_stays_plain_pythons():
    assert _layer_names(janus.jit(layer_name)) == _layer_names(layer_name)
