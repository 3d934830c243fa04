"""Questions whose answer differs between eager and graph execution, asked inside a
jitted function: answered as the user's eager call sees them (graphgen/eager_queries.py),
compared with plain Python call by call."""
import tensorflow as tf
from tensorflow.python.framework.ops import EagerTensor

import janus
from tests.differential import assert_same

CALLS = [(tf.constant([1.0, float(i)]),) for i in range(6)]


def test_executing_eagerly_takes_the_eager_branch():
    def step(x):
        if tf.executing_eagerly():
            return x * 2.0
        return x * 3.0

    stats = assert_same(step, CALLS)
    assert stats.graph_calls >= 3


def test_inside_function_and_symbolic_tensor():
    def step(x):
        y = x * 2.0
        a = 1.0 if tf.inside_function() else 2.0
        b = 5.0 if tf.is_symbolic_tensor(y) else 7.0
        return y * a * b

    stats = assert_same(step, CALLS)
    assert stats.graph_calls >= 3


def test_tensor_type_queries_print_the_eager_answers():
    def step(x):
        y = x * 2.0
        print(type(y).__name__, hasattr(y, "numpy"), hasattr(y, "op"),
              isinstance(y, EagerTensor), isinstance(y, tf.Tensor))
        return y

    stats = assert_same(step, CALLS)
    assert stats.graph_calls >= 3


def test_static_value_of_a_computed_tensor_is_its_value():
    def step(x):
        y = x * 2.0
        if tf.get_static_value(y) is None:
            y = y + 100.0
        c = tf.get_static_value(tf.constant(3.0))
        return y * c

    assert_same(step, CALLS)


def test_executing_eagerly_in_a_library_callback():
    def step(x):
        return tf.map_fn(lambda t: t * (2.0 if tf.executing_eagerly() else 3.0), x)

    assert_same(step, CALLS)


def test_jit_inside_a_tf_function_answers_as_the_graph():
    def step(x):
        return x * (2.0 if tf.executing_eagerly() else 3.0)

    jitted = janus.jit(step)
    outer = tf.function(lambda x: jitted(x))
    for x, in CALLS[:4]:
        assert outer(x).numpy().tolist() == (x * 3.0).numpy().tolist()
