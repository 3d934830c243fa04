"""A graph called under the caller's gradient tape gives Python's gradients
(graphgen/caller_tape.py, F147): None for an output that reads no watched input, a plain
call where outputs read different watched inputs or an op on a path has no gradient.
Every test compares janus with plain Python on the same inputs, call by call."""
import tensorflow as tf

import janus
from janus.graphgen import connectivity

W = tf.Variable(2.0)
V = tf.Variable(3.0)


def c(values):
    return tf.constant(values, tf.float32)


def _gradients(fn, args, watch: bool):
    """Every output's gradient with respect to every argument and variable (None, a
    list, or the exception's class name), under one persistent tape outside the call."""
    with tf.GradientTape(persistent=True) as tape:
        if watch:
            tape.watch(args)
        outputs = fn(*args)
    found = []
    for output in outputs:
        for source in list(args) + [W, V]:
            try:
                g = tape.gradient(output, source)
            except LookupError as exc:
                found.append(type(exc).__name__)
                continue
            found.append(None if g is None else g.numpy().tolist())
    return found


def _compare(fn, make_args, watch: bool = True, calls: int = 6):
    jitted = janus.jit(fn)
    for i in range(calls):
        args = make_args(i)
        assert _gradients(jitted, args, watch) == _gradients(fn, args, watch), f"call {i}"
    return janus.stats(jitted)


def two_outputs(x, y):
    return x * 2.0, y * 3.0


def loss_and_accuracy(x):
    loss = tf.reduce_sum(x * W)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(x), 0), tf.float32))
    return loss, accuracy


def loss_and_penalty(x):
    return tf.reduce_sum(x * W), W * W


def with_unique(x):
    values, _ = tf.unique(x)
    return x * 2.0, tf.reduce_sum(values)


def test_an_output_reading_no_watched_input_has_none_and_the_graph_runs():
    """`loss, acc = step(x)`: TF records one op for the call, and `tape.gradient(acc, W)`
    was zeros; Python's None. The accuracy is handed out as a copy no tape saw."""
    for watch in (True, False):
        stats = _compare(loss_and_accuracy, lambda i: (c([1.0 + i, 2.0]),), watch)
        assert stats.graph_calls >= 3


def test_outputs_reading_different_watched_inputs_keep_the_graph_and_tf_s_gradients():
    """`f(x, y) -> (x * 2, y * 3)` with both watched: TF's one op gives the first
    output's gradient with respect to y zeros (Python None): left as TF has it (F147,
    open); a target reading both outputs gets Python's values."""
    jitted = janus.jit(two_outputs)
    for i in range(6):
        x, y = c([1.0, 2.0 + i]), c([3.0, 4.0])
        got, want = [], []
        for fn, out in ((jitted, got), (two_outputs, want)):
            with tf.GradientTape() as tape:
                tape.watch([x, y])
                a, b = fn(x, y)
                total = tf.reduce_sum(a) + tf.reduce_sum(b)
            out.extend(g.numpy().tolist() for g in tape.gradient(total, [x, y]))
        assert got == want
    assert janus.stats(jitted).graph_calls >= 3


def test_outputs_differing_only_in_an_unwatched_input_keep_the_graph():
    """The loss reads x and W, the penalty W only; x is not watched: the tape sees the
    same watched inputs behind both, the graph's gradients are Python's (with x watched
    too: the penalty's gradient for x is TF's zeros, F147 open)."""
    stats = _compare(loss_and_penalty, lambda i: (c([1.0 + i, 2.0]),), watch=False)
    assert stats.graph_calls >= 3


def test_an_op_without_a_gradient_on_a_path_runs_plainly():
    """TF builds the gradient of every path of a graph called under a tape: `tf.unique`
    failed the call (LookupError), where Python fails only when asked for that path."""
    stats = _compare(with_unique, lambda i: (c([1.0, 2.0 + i, 2.0]),))
    assert stats.internal_errors == 0
    jitted = janus.jit(with_unique)
    for i in range(5):  # without a tape: graphs
        x = c([1.0, 2.0 + i, 2.0])
        assert [t.numpy().tolist() for t in jitted(x)] == \
            [t.numpy().tolist() for t in with_unique(x)]
    assert janus.stats(jitted).graph_calls >= 2


def _graph(fn, *specs):
    return tf.function(fn, input_signature=list(specs),
                       autograph=False).get_concrete_function().graph


def test_input_reaches_and_lacking_gradient():
    spec = tf.TensorSpec([2], tf.float32)
    graph = _graph(two_outputs, spec, spec)
    assert connectivity.input_reaches(graph, 2) == [frozenset({0}), frozenset({1})]
    assert connectivity.lacking_gradient(graph) is None
    assert connectivity.lacking_gradient(_graph(with_unique, tf.TensorSpec([3]))) == "Unique"

    def unique_of_a_constant(x):  # (no input flows into it: TF does not differentiate it)
        values, _ = tf.unique(tf.constant([1.0, 1.0]))
        return x * tf.reduce_sum(values)

    assert connectivity.lacking_gradient(_graph(unique_of_a_constant, spec)) is None

    def unique_in_a_branch(x):
        return tf.cond(x[0] > 0, lambda: tf.reduce_sum(tf.unique(x)[0]), lambda: x[1])

    assert connectivity.lacking_gradient(_graph(unique_in_a_branch, spec)) == "Unique"
