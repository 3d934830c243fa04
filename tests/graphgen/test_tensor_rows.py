"""Unpacking, iterating and `len` of a tensor whose first dimension the trace knows
(graphgen/tensor_rows.py): `a, b = t`, `list(t)`, `[*t]`, `zip(ws, t)`, `enumerate(t)`,
a comprehension over `t`, `f(*t)`, `len(t)` failed the trace with TensorFlow's refusal
(OperatorNotAllowedInGraphError, TypeError), so they ran eagerly or split (F365: probes
p15, p16, p28, p29). They now run in the graph, as plain eager does (its rows `t[i]`);
errors are plain Python's (too many values to unpack, a scalar's len), and a first
dimension the trace does not know keeps the refusal."""
import tensorflow as tf

from tests.differential import assert_same


class State:
    def __init__(self):
        self.v = tf.Variable(0.0)
        self.n = 0


def unpack(s, x):
    s.n += 1
    s.v.assign_add(1.0)
    a, b = x
    return a * b, s.n


def rows_every_way(s, x, ws):
    rows = list(x)
    first, *rest = x
    tot = sum(w * r for w, r in zip(ws, x))
    for i, r in enumerate(x):
        tot = tot + tf.reduce_sum(r) * float(i + 1)
    doubled = [r * 2.0 for r in x]
    s.v.assign_add(tf.reduce_sum(tot))
    return (len(rows), len(x), tf.stack([*x, *x]), first, len(rest), tf.add_n(doubled),
            tf.stack(tuple(x)), tf.concat([*x], 0))


def length(s, x):
    s.n += len(x)
    return tf.reduce_sum(x) + float(len(x)), s.n


def test_unpacking_a_tensor_of_static_length_runs_as_a_graph():
    calls = [(tf.constant([1.0, 2.0]) * float(i),) for i in range(10)]
    stats = assert_same(unpack, calls, State)
    assert stats.graph_calls >= 6


def test_unpacking_a_tensor_of_the_wrong_length_raises_as_plain_python():
    calls = [(tf.ones([2 if i % 5 else 3]) * float(i),) for i in range(12)]
    stats = assert_same(unpack, calls, State)
    assert stats.graph_calls >= 6


def test_rows_through_list_zip_enumerate_star_and_comprehensions():
    calls = [(tf.reshape(tf.range(6.0), [3, 2]) * float(i), [1.0, 2.0, 3.0, 4.0][:2 + i % 3])
             for i in range(10)]
    stats = assert_same(rows_every_way, calls, State)
    assert stats.graph_calls >= 6


def test_len_of_a_static_tensor_and_of_a_scalar():
    calls = [(tf.ones([1 + i % 2]) * float(i) if i != 7 else tf.constant(1.0),)
             for i in range(12)]
    stats = assert_same(length, calls, State)
    assert stats.graph_calls >= 6


def test_a_first_dimension_the_trace_does_not_know_still_agrees():
    calls = [(tf.ones([n, 2]) * float(i), [1.0, 2.0, 3.0])
             for i, n in enumerate([2, 3, 2, 4, 3, 2, 5, 2, 3, 4, 2, 3])]
    assert_same(rows_every_way, calls, State)


@tf.function
def _pair_product(x):
    a, b = x  # a graph in plain Python too: TensorFlow refuses it there
    return a * b


def through_a_tf_function(s, x):
    s.n += 1
    return _pair_product(x) + 1.0, s.n


def test_a_tf_function_of_the_step_still_refuses_as_in_plain_python():
    calls = [(tf.constant([1.0, 2.0]) * float(i),) for i in range(6)]
    assert_same(through_a_tf_function, calls, State)
