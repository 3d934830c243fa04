"""An op whose result nothing uses still runs, and may raise, as in eager code.

Fuzz generator v15 (seed 462256): `acc = acc + tf.gather(flat, [2])` inside `try/finally`,
then `acc` overwritten: with a 1-element input eager raised InvalidArgumentError (after
the `finally` block's effects); TF pruned the dead gather from janus's graph, which
returned a value. Dead ends are now fetched (janus/graphgen/specialize._dead_ends), and
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
