"""An op whose result nothing uses still runs, and may raise, as in eager code.

Fuzz generator v15 (seed 462256): `acc = acc + tf.gather(flat, [2])` inside `try/finally`,
then `acc` overwritten: with a 1-element input eager raised InvalidArgumentError (after
the `finally` block's effects); TF pruned the dead gather from janus's graph, which
returned a value. Dead ends are now fetched (janus/graphgen/dead_ends.py), and
the variables' commit waits for them (it had updated the variable before the failing op).
"""
import tensorflow as tf

from tests.differential import assert_same


class State:
    def __init__(self):
        self.count = 0
        self.v = tf.Variable(0.5)


def overwritten_gather(s, x):
    acc = x * 0.5
    try:
        s.count = s.count + 1
        acc = acc + tf.reduce_sum(tf.gather(tf.reshape(x, [-1]), [2])) * 0.1
        acc = x * 2.0
    finally:
        s.count += 1
    s.v.assign_add(tf.reduce_mean(acc))  # not reached when the gather raised
    return acc


def test_an_unused_op_that_fails_raises():
    long, short = tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0])
    stats = assert_same(overwritten_gather, [(long,)] * 5 + [(short,)] * 2 + [(long,)] * 2,
                        make_state=State)
    assert stats.graph_calls >= 3, stats


# The same inside a loop body or a branch: TF prunes a function body's ops that no output
# needs, and drops a loop's outputs the code after it never reads with the ops they need
# (janus/graphgen/dead_ends.after_raising_ops).

def range_loop(x, n):
    acc = tf.zeros([])
    for i in tf.range(n):
        junk = tf.gather(x, [i + 3])  # a loop variable nothing after the loop reads
        acc = acc + x[i]
    return acc


def test_an_unused_op_in_a_tensor_loop_raises():
    x = tf.ones([9])
    calls = [(x, tf.constant(n)) for n in (3, 4, 5, 3, 4, 5)] + [(x, tf.constant(7))] + \
        [(x, tf.constant(4))]
    stats = assert_same(range_loop, calls)
    assert stats.graph_calls >= 3, stats


def tensor_while(x):
    i = tf.constant(0)
    acc = tf.zeros([])
    while i < tf.shape(x)[0]:
        acc = acc + x[i]
        tf.gather(x, [i // 2 + 1])  # its result dropped
        i = i + 1
    return acc


def test_an_unused_op_in_a_tensor_while_raises():
    calls = [(tf.range(float(n)),) for n in (4, 5, 6, 4, 5, 6)] + \
        [(tf.constant([5.0]),), (tf.range(5.0),)]
    stats = assert_same(tensor_while, calls)
    assert stats.graph_calls >= 1, stats


def tensor_if(x):
    if tf.reduce_sum(x) > 0:
        unused = tf.gather(x, [3])
        y = x * 2.0
    else:
        y = x - 1.0
    return y


def test_an_unused_op_in_a_branch_raises():
    long = [tf.constant([1.0, 2.0, 3.0, 4.0]), tf.constant([-1.0, -2.0, -3.0, -4.0])]
    calls = [(long[k % 2],) for k in range(6)] + [(tf.constant([1.0, 2.0]),),
                                                   (tf.constant([-1.0, -2.0]),), (long[0],)]
    stats = assert_same(tensor_if, calls)
    assert stats.graph_calls >= 2, stats


def functional_loop(x):
    def body(i, acc):
        tf.gather(x, [i + 3])  # eager runs it in every iteration
        return i + 1, acc + x[i]
    return tf.while_loop(lambda i, acc: i < 3, body, (tf.constant(0), tf.zeros([])))[1]


def test_an_unused_op_in_a_functional_loop_raises():
    calls = [(tf.ones([6]) * k,) for k in (1.0, 2.0, 3.0, 4.0)] + [(tf.ones([5]),), (tf.ones([6]),)]
    stats = assert_same(functional_loop, calls)
    assert stats.graph_calls >= 2, stats


def batched_loop(xs):
    out = []
    for t in xs:  # a list of varying length: run batched (tf.vectorized_map)
        junk = tf.gather(t, [tf.cast(t[0], tf.int32)])
        out.append(t * 2.0)
    return tf.stack(out)


def test_an_unused_op_in_a_batched_loop_raises():
    def items(n, first=None):
        xs = [tf.constant([0.0, 1.0, 2.0]) + (i % 2) for i in range(n)]
        if first is not None:
            xs[1] = tf.constant([first, 1.0, 2.0])
        return (xs,)
    calls = [items(2 + k % 3) for k in range(8)] + [items(3, first=5.0), items(4)]
    stats = assert_same(batched_loop, calls)
    assert stats.graph_calls >= 3, stats


def user_vectorized_map(x):
    # eager runs a vectorized_map as a tf.function: its dead ops are pruned there too
    return tf.vectorized_map(lambda r: (tf.gather(r, [tf.cast(r[0], tf.int32)]), r * 2.0)[1], x)


def test_an_unused_op_in_a_vectorized_map_is_pruned_as_in_eager():
    calls = [(tf.constant([[0.0, 1.0], [1.0, 1.0]]) * k,) for k in (1.0, 1.0, 1.0)] + \
        [(tf.constant([[0.0, 1.0], [5.0, 1.0]]),)]
    stats = assert_same(user_vectorized_map, calls)
    assert stats.graph_calls >= 1, stats


def gather_after_a_test(x, idx):
    if tf.reduce_sum(x) > 0:  # specialized: the profile saw it True only
        y = tf.gather(tf.range(10.0), idx) * x
    else:
        y = x - 1.0
    return y


def test_an_op_that_may_raise_waits_for_the_guards_before_it():
    """An out-of-range gather after a guard that fails must not raise first: janus would
    take the call for the user's error, not a guard failure to learn from
    (graphgen/dead_ends.after_guards). The graph orders them; the calls match Python."""
    import janus

    ok = (tf.constant([1.0, 2.0]), tf.constant(3))
    wrong = (tf.constant([-1.0, -2.0]), tf.constant(20))
    jitted = janus.jit(gather_after_a_test)
    stats = assert_same(gather_after_a_test, [ok] * 4, jitted=jitted)
    assert stats.graph_calls >= 2, stats
    graph = jitted.specializations[0].concrete.graph
    gathers = [op for op in graph.get_operations() if op.type == "GatherV2"]
    assert gathers and all(any(c.type == "Assert" for c in op.control_inputs)
                           for op in gathers), [op.control_inputs for op in gathers]
    stats = assert_same(gather_after_a_test, [ok] * 4 + [wrong, ok] * 4)
    assert stats.graph_calls >= 3 and stats.guard_failures, stats


class Held:
    def __init__(self):
        self.h = tf.zeros([])


def overwritten_sum(s, x):
    acc = x * 0.5 + s.h * 0.5      # shapes the graph does not know: they may not broadcast
    acc = x
    s.h = acc
    return acc


def test_an_unused_broadcast_that_fails_raises():
    """F136 (seed 1210735): `x + s.h` with `s.h` of another length than `x`, then
    overwritten: eagerly InvalidArgumentError; the graph dropped the unread add."""
    four, three = tf.constant([1.0, 2.0, 3.0, 4.0]), tf.constant([1.0, 2.0, 3.0])
    assert_same(overwritten_sum, [(four,)] * 4 + [(three,)] * 2 + [(four,)] * 2,
                make_state=Held)


class Weights:
    def __init__(self):
        self.w = tf.Variable(tf.ones((3, 1)))


def logged_step(s, x):
    y = tf.math.log(x @ s.w)
    s.w.assign_add(tf.ones((3, 1)))
    return tf.reduce_sum(y)


def test_enabled_check_numerics_stops_the_update_as_in_eager_code():
    """`tf.debugging.enable_check_numerics()` puts a CheckNumericsV2 after every float op
    (also in janus's graph): a call whose log gets a negative input raises, and the
    variable's update after it must not happen (the commit waits for those checks too)."""
    calls = [(tf.random.stateless_uniform((4, 3), (i, 0)) - (2.0 if i in (7, 9) else 0.0),)
             for i in range(11)]
    tf.debugging.enable_check_numerics()
    try:
        stats = assert_same(logged_step, calls, make_state=Weights)
    finally:
        tf.debugging.disable_check_numerics()
    assert stats.graph_calls >= 3
