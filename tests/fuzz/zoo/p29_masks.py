"""Masked and dynamically shaped tensor code: tf.boolean_mask, tf.where, tf.unique,
segment sums, a RaggedTensor from Python lists, top-k, all in a metric step."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14


class State:
    def __init__(self):
        self.w = tf.Variable(tf.ones([3]) * 0.5)
        self.counts = tf.Variable(tf.zeros([4]))


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    n = 5 + i % 3
    return (tf.constant(rng.randn(n, 3), tf.float32), tf.constant(rng.randint(0, 4, n)),
            [list(rng.randint(0, 9, rng.randint(1, 4))) for _ in range(3)])


@JIT
def step(s, x, groups, lists):
    scores = tf.linalg.matvec(x, s.w)
    positive = tf.boolean_mask(scores, scores > 0)
    clipped = tf.where(scores > 1.0, tf.ones_like(scores), scores)
    uniq, idx = tf.unique(groups)
    per_group = tf.math.unsorted_segment_sum(clipped, groups, 4)
    s.counts.assign_add(tf.math.bincount(groups, minlength=4, maxlength=4, dtype=tf.float32))
    ragged = tf.ragged.constant(lists)
    lengths = ragged.row_lengths()
    top = tf.math.top_k(scores, k=2)
    return {"pos": tf.reduce_sum(positive), "groups": per_group, "uniq": tf.size(uniq),
            "lengths": lengths, "rsum": tf.reduce_sum(ragged, axis=1), "top": top.indices}


STEP = step
