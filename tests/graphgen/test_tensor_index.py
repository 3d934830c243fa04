"""`x[0, t]` where the trace's index is a scalar int tensor (a loop's counter, a sampled
action, a fed int): one `Pack` and the `StridedSlice`, not TensorFlow's three `Pack`s and
an `AddV2` per index (graphgen/tensor_index.py, F450). Each test compares janus with plain
Python call by call (values, negative indices, out-of-range errors, gradients), then
counts the slice's ops in the steady graph."""
import numpy as np
import tensorflow as tf

import janus
from tests.differential import assert_same


class State:
    def __init__(self):
        self.v = tf.Variable(tf.reshape(tf.range(12.0), [3, 4]))
        self.k = 0
        self.total = tf.constant(0.0)


def counter_index(s, x):
    """A fed Python int as the index (negative too), a row of a variable read."""
    s.k = (s.k + 1) % 4
    w = s.v * 1.0
    got = x[1, s.k] + x[-1, -s.k - 1] + w[s.k - 1, 2] + x[s.k % 3][0]
    s.total = s.total + got
    return got, s.k


def loop_index(s, x, limit):
    """The counter of a loop janus makes one tf.while_loop (it breaks on a tensor)."""
    out, total = [], 0.0
    for t in range(12):
        v = x[0, t] * x[t % 2, -1 - t]
        out.append(v)
        total = total + v
        if total > limit:
            break
    return tf.stack(out)


def out_of_range(s, x, j):
    s.k += 1
    return x[0, j + s.k]


def _slice_ops(jitted) -> tuple:
    """The shrinking StridedSlice ops of a dynamic begin in the last specialization's
    graph and its functions (loop bodies), and the op types their begin, end and strides
    come from (Const, Pack...)."""
    graph_def = jitted.specializations[-1].concrete.graph.as_graph_def()
    graphs = [graph_def.node] + [f.node_def for f in graph_def.library.function]
    slices, sources = 0, []
    for nodes in graphs:
        by_name = {n.name: n for n in nodes}
        for n in nodes:
            begin = by_name.get(n.input[1].split(":")[0]) if n.op == "StridedSlice" else None
            if begin is None or begin.op == "Const" or not n.attr["shrink_axis_mask"].i:
                continue
            slices += 1
            sources += [by_name[i.split(":")[0]].op for i in n.input[1:4]]
    return slices, sources


def test_a_fed_int_index_slices_with_one_pack():
    calls = [(tf.reshape(tf.range(12.0), [3, 4]) * float(i + 1),) for i in range(12)]
    jitted = janus.jit(counter_index)
    stats = assert_same(counter_index, calls, State, jitted=jitted)
    assert stats.graph_calls >= 6
    slices, sources = _slice_ops(jitted)
    assert slices >= 4 and sources.count("Pack") == slices, sources  # (the begin only)


def test_a_loop_counter_index_in_a_while_loop():
    calls = [(tf.reshape(tf.range(24.0), [2, 12]) * float(i % 3 + 1), tf.constant(50.0 * i))
             for i in range(12)]
    jitted = janus.jit(loop_index)
    stats = assert_same(loop_index, calls, State, jitted=jitted)
    assert stats.graph_calls >= 6
    slices, sources = _slice_ops(jitted)
    assert slices >= 2 and sources.count("Pack") == slices, sources


def test_an_index_out_of_range_raises_as_plain_python():
    calls = [(tf.ones([2, 6]) * float(i), i % 3) for i in range(10)]
    assert_same(out_of_range, calls, State)


def known_out_of_range(s, x, j):
    """An index whose value the graph knows while it is built (a constant: its shape
    check refuses it then, eager TF when it runs): plain raises InvalidArgumentError."""
    m = tf.reshape(tf.range(12.0), [3, 4]) + tf.reduce_sum(x) * 0.0
    t = tf.cast(s.k % 4, tf.int32)  # (a tensor of a constant: fuzz v107 seed 178)
    return m[t + 1, -5 + s.k % 2]


def test_an_index_out_of_range_known_while_building_raises_as_plain_python():
    calls = [(tf.ones([2]), 0) for _ in range(6)]
    assert_same(known_out_of_range, calls, State)


def _gradient(s, x, a):
    with tf.GradientTape() as tape:
        probs = tf.nn.softmax(s.v[:2] * x)
        picked = tf.math.log(probs[1, a]) + probs[0, -a - 1]
    return picked, tape.gradient(picked, s.v)


def test_a_sampled_index_under_a_tape():
    rng = np.random.RandomState(0)
    calls = [(tf.constant(rng.rand(2, 4).astype(np.float32)), int(a))
             for a in rng.randint(0, 4, 12)]
    assert_same(_gradient, calls, State)


def test_keys_it_leaves_to_tensorflow():
    from janus.graphgen.tensor_index import indexed

    g = tf.Graph()
    with g.as_default():
        x = tf.zeros([3, 4])
        t32 = tf.constant(1)
        t64 = tf.constant(1, tf.int64)
        assert indexed(x, (0, 1)) is None  # (no tensor: constants already)
        assert indexed(x, (slice(None), t32)) is None
        assert indexed(x, (t32, t64)) is None  # (mixed dtypes: TF's refusal)
        assert indexed(x, (t32, 1 << 40)) is None  # (past int32)
        assert indexed(x, (tf.constant(True),)) is None
        assert indexed(x, (t64, -1)).op.type == "StridedSlice"
