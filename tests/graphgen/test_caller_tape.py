"""A graph called under the caller's gradient tape gives Python's gradients
(graphgen/caller_tape.py, F147): None for an output that reads no watched input or for an
input only other outputs read, a plain call where an op on a path has no gradient.
Every test compares janus with plain Python on the same inputs, call by call."""
import pytest
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


def test_outputs_reading_different_watched_inputs_have_python_s_gradients():
    """`f(x, y) -> (x * 2, y * 3)` with both watched: TF's one op gave the first output's
    gradient with respect to y zeros, Python None (F147 (3)); now each output's gradient
    reaches only what it reads, a target reading both gets both, and the graph runs."""
    stats = _compare(two_outputs, lambda i: (c([1.0, 2.0 + i]), c([3.0, 4.0])))
    assert stats.graph_calls >= 3, stats
    jitted = janus.jit(two_outputs)
    for i in range(6):
        x, y = c([1.0, 2.0 + i]), c([3.0, 4.0])
        got, want = [], []
        for fn, out in ((jitted, got), (two_outputs, want)):
            with tf.GradientTape(persistent=True) as tape:
                tape.watch([x, y])
                a, b = fn(x, y)
                total = tf.reduce_sum(a) + tf.reduce_sum(b)
                first = tf.reduce_sum(a) * 3.0
            for target in (total, first, b):
                out.append([None if g is None else g.numpy().tolist()
                            for g in tape.gradient(target, [x, y])])
        assert got == want, (got, want)


def test_outputs_reading_different_variables_have_python_s_gradients():
    """The loss reads x and W, the penalty W only: with x watched, the penalty's gradient
    for x was TF's zeros (Python None), with and without x watched it is Python's."""
    for watch in (True, False):
        stats = _compare(loss_and_penalty, lambda i: (c([1.0 + i, 2.0]),), watch=watch)
        assert stats.graph_calls >= 3, stats


def two_heads(x):
    return tf.reduce_sum(x * W), tf.reduce_sum(x * V), x * 2.0


def test_outputs_reading_different_variables_and_inputs():
    for watch in (True, False):
        stats = _compare(two_heads, lambda i: (c([1.0 + i, 2.0]),), watch=watch)
        assert stats.graph_calls >= 3, stats


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


TABLE = tf.Variable(tf.reshape(tf.range(28, dtype=tf.float32), [7, 4]) * 0.1)


def looked_up(src):
    loss = 0.0
    for t in range(src.shape[1]):  # (its length varies: one tf.while_loop)
        loss += tf.reduce_sum(tf.gather(TABLE, src[:, t]) ** 2)
    return loss


def test_rows_a_loop_gathers_get_python_s_indexed_slices():
    """F161: under the caller's tape, the gradient of a table whose rows a tf.while_loop
    gathers was one dense tensor (eagerly IndexedSlices, a row per lookup), and RMSprop
    applied it otherwise: the weights drifted. Such a call runs plainly under a tape."""
    import numpy as np
    jitted = janus.jit(looked_up)
    for i in range(8):
        src = tf.constant(np.random.RandomState(i).randint(0, 7, (2, 3 + i % 2)))
        got = []
        for fn in (looked_up, jitted):
            with tf.GradientTape() as tape:
                loss = fn(src)
            got.append(tape.gradient(loss, TABLE))
        assert type(got[0]) is type(got[1]), (i, got)
        assert np.array_equal(tf.convert_to_tensor(got[0]).numpy(),
                              tf.convert_to_tensor(got[1]).numpy())
    assert janus.stats(jitted).generations >= 1


def drops_a_read(x, y):
    acc = y
    for i in range(2):
        tf.gather(x, [i])  # (its value dropped: the graph fetches it, dead_ends.py)
        acc = acc * 2.0 + float(i)
    return acc


def test_an_input_read_only_for_a_dropped_value_has_none():
    """F147 (3): TF's one op differentiates the graph's fetched dead ends too: x got zeros
    (Python None); its mark now passes no gradient on."""
    jitted = janus.jit(drops_a_read)
    for i in range(6):
        x, y = c([1.0 + i, 2.0]), c([3.0, 4.0])
        got = []
        for fn in (drops_a_read, jitted):
            with tf.GradientTape() as tape:
                tape.watch([x, y])
                out = fn(x, y)
            got.append([None if g is None else tf.convert_to_tensor(g).numpy().tolist()
                        for g in tape.gradient(out, [x, y])])
        assert got[0] == got[1], (i, got)
    assert janus.stats(jitted).graph_calls >= 3


def array_size_dropped(x, n):
    acc = x * 0.5
    sizes = []
    ta = tf.TensorArray(acc.dtype, size=0, dynamic_size=True)
    for t in range(n % 3 + 2):
        acc = acc + 1.0
        if tf.reduce_sum(acc) > 2.5:  # (an exit on a tensor: the flow goes through a select)
            break
        ta = ta.write(t, acc)
    sizes.append(ta.size())
    return (acc * W,)


def array_stacked(x, n):
    acc = x * 0.5
    ta = tf.TensorArray(acc.dtype, size=0, dynamic_size=True)
    for t in range(n + 3):
        acc = acc * 1.5
        if tf.reduce_sum(acc) > 8.0:
            break
        ta = ta.write(t, acc)
    return acc, tf.reduce_sum(ta.stack()) + 0.0 * tf.reduce_sum(acc), ta.size()


def _values_and_gradients(fn, args, persistent: bool):
    with tf.GradientTape(persistent=persistent) as tape:
        tape.watch(args[0])
        outputs = fn(*args)
    targets = [o for o in outputs if o.dtype.is_floating]
    grads = tape.gradient(targets, [args[0], W])
    return [o.numpy().tolist() for o in outputs], \
        [None if g is None else g.numpy().tolist() for g in grads]


def two_arrays(x, n):
    # (two TensorArrays, both carried through the exit select)
    acc = x * 0.5
    ta = tf.TensorArray(acc.dtype, size=0, dynamic_size=True)
    tb = tf.TensorArray(acc.dtype, size=0, dynamic_size=True)
    ta, tb = ta.write(0, acc), tb.write(0, acc * 2.0)
    for t in range(n + 3):
        acc = acc * 1.5 + 0.25
        if tf.reduce_max(acc) > 2.0:
            break
        ta, tb = ta.write(t + 1, acc), tb.write(t + 1, acc * acc)
    return acc * W, tf.reduce_sum(ta.stack()) + tf.reduce_sum(tb.stack(), 0)[0], tb.size()


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_a_tensor_array_with_a_tensor_exit_stays_a_graph_under_a_tape():
    """F336: a TensorArray written in a loop that exits on a tensor test: its flow (a
    variant) went through a `SelectV2`, whose gradient TF cannot build (`zeros` of the
    variant dtype: TypeError in TF's flat call under a caller's tape, which reached the
    user as janus's internal error); such calls then ran plainly under a tape (F357). The
    flow is now chosen by a tf.cond (graphgen/loop_values.choose): the graph runs under a
    tape (persistent or not) with Python's gradients; without a tape too."""
    for fn in (array_size_dropped, array_stacked, two_arrays):
        jitted = janus.jit(fn)
        for i in range(12):
            args = (c([0.5 * (i % 3), -1.0]), i % 2)
            if i % 3 == 2:
                assert [o.numpy().tolist() for o in jitted(*args)] == \
                    [o.numpy().tolist() for o in fn(*args)], (fn.__name__, i)
                continue
            persistent = i % 2 == 1
            assert _values_and_gradients(jitted, args, persistent) == \
                _values_and_gradients(fn, args, persistent), (fn.__name__, i)
        stats = janus.stats(jitted)
        assert stats.internal_errors == 0, jitted.internal_errors
        assert stats.graph_calls >= 9, (fn.__name__, stats)
