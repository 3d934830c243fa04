"""tf.data datasets and iterators in a jitted function (F44: found by hand probing the
fuzz v20 constructs). `for b in DS.take(k)` in a trace never saw the end of the data
(TF raises after many `get_next` calls in a graph: an internal error), and an
iterator's position would move again when a failed graph's call reruns. Now a trace
refuses to iterate them; the call runs plainly (split at that loop with segments)."""
import tensorflow as tf

import janus
from tests.differential import assert_same


def _compare(make, calls):
    outs = {}
    for jit in (False, True):
        fn = make()
        fn = janus.jit(fn) if jit else fn
        outs[jit] = [float(tf.reduce_sum(fn(x, k))) for x, k in calls]
    assert outs[True] == outs[False]


def test_a_loop_over_a_dataset():
    def make():
        ds = tf.data.Dataset.from_tensor_slices(tf.range(5, dtype=tf.float32)).batch(2)

        def f(x, k):
            acc = x * 0.5
            for b in ds.take(k):
                acc = acc + tf.reduce_sum(b)
            return acc
        return f
    _compare(make, [(tf.constant([1.0, 2.0]), 2)] * 4 + [(tf.constant([1.0, 2.0]), 3)] * 3)


def test_an_iterator_read_with_next_and_get_next():
    def make():
        it = iter(tf.data.Dataset.range(100))

        def f(x, k):
            a = next(it)
            b = it.get_next()
            return x + tf.cast(a + b * k, tf.float32)
        return f
    _compare(make, [(tf.constant(1.0), 1)] * 6)


def test_a_comprehension_over_a_dataset():
    def make():
        ds = tf.data.Dataset.range(4)

        def f(x, k):
            return x + tf.cast(sum([e * k for e in ds]), tf.float32)
        return f
    _compare(make, [(tf.constant(1.0), 1)] * 4 + [(tf.constant(1.0), 2)] * 2)


DATA = tf.data.Dataset.from_tensor_slices(tf.range(12, dtype=tf.float32)).batch(3)


def mapped(x):
    return DATA.map(lambda b: b * x).reduce(0.0, lambda a, b: a + tf.reduce_sum(b))


def test_a_dataset_map_of_a_lambda_gives_no_autograph_warning_plain_code_does_not(caplog):
    """tf.data runs AutoGraph on the functions it maps: on a lambda janus's converted code
    made it failed (its source has no `janus__`) and warned before running it as it is."""
    import logging

    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        stats = assert_same(mapped, [(tf.constant(float(i)),) for i in range(6)])
    assert stats.graph_calls >= 2
    assert not [r for r in caplog.records if "AutoGraph could not" in r.getMessage()]


def _explained(jitted, *args) -> str:
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()) as out:
        janus.explain(jitted, *args)
    return out.getvalue()


def test_a_loop_over_a_distributed_dataset_is_refused_up_front():
    """`for x in strategy.experimental_distribute_dataset(ds)` (F363): refused like a
    tf.data dataset, not traced until TF's `get_next` alarm (seconds per trace)."""
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    data = tf.data.Dataset.range(6).map(lambda i: tf.cast(i, tf.float32)).batch(2)

    class State:
        def __init__(self):
            self.w = tf.Variable(1.0)
            self.data = strategy.experimental_distribute_dataset(data)

    def epoch(state, k):
        total = tf.constant(0.0)
        for x in state.data:
            total += tf.reduce_sum(x * state.w) * k
        state.w.assign_add(0.5)
        return total

    def steps(state, k):
        it = iter(state.data)
        return next(it) * k + state.w

    jitted = janus.jit(epoch)
    assert_same(epoch, [(1.0 + i,) for i in range(5)], State, jitted=jitted)
    assert "iterates a tf.distribute DistributedDataset" in _explained(jitted, State(), 1.0)
    jitted = janus.jit(steps)
    assert_same(steps, [(1.0 + i,) for i in range(5)], State, jitted=jitted)
    assert "iterates a tf.distribute Distributed" in _explained(jitted, State(), 1.0)
