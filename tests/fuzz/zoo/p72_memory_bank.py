"""A MoCo-style contrastive learner with a memory bank of negatives kept in a
tf.Variable: the newest keys written into the bank at a Python pointer
(`bank[ptr:ptr + n].assign(keys)`, wrapping around), single rows refreshed with
`bank[i].assign(...)`, a per-slot age vector bumped with `v.scatter_nd_update`, and a
class-prototype table updated with `tf.compat.v1.scatter_update`; next to them, numpy
arrays on the heap updated in place (`self.loss_buf[self.k % W] = float(loss)`, a
`np.roll` of a recent-norms window, `self.hits += counts` from `.numpy()`); the momentum
encoder copied from the query encoder with `assign(m * k + (1 - m) * q)`; the Python
pointer and a step count kept as attributes."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 20
BANK = 24
DIM = 6
W = 5


def encoder():
    return keras.Sequential([keras.Input((8,)), keras.layers.Dense(12, activation="relu"),
                             keras.layers.Dense(DIM)])


class State:
    def __init__(self):
        self.q_enc, self.k_enc = encoder(), encoder()
        self.k_enc.set_weights(self.q_enc.get_weights())
        self.opt = keras.optimizers.Adam(0.01)
        init = tf.math.l2_normalize(tf.random.stateless_normal([BANK, DIM], seed=[72, 0]), -1)
        self.bank = tf.Variable(init, trainable=False)
        self.age = tf.Variable(tf.zeros([BANK], tf.int32), trainable=False)
        self.protos = tf.Variable(tf.zeros([3, DIM]), trainable=False)
        self.ptr = 0
        self.k = 0
        self.loss_buf = np.zeros(W, np.float32)
        self.norms = np.zeros(W, np.float32)
        self.hits = np.zeros(3, np.int64)


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    n = 4 if i % 3 else 6
    x = rng.randn(n, 8).astype(np.float32)
    labels = rng.randint(0, 3, size=n).astype(np.int32)
    return tf.constant(x), tf.constant(labels), 0.9 if i < 10 else 0.99


@JIT
def step(s, x, labels, momentum):
    x1 = x + 0.1 * tf.roll(x, 1, axis=1)
    x2 = x - 0.1 * tf.roll(x, 1, axis=0)
    keys = tf.math.l2_normalize(s.k_enc(x2), -1)
    with tf.GradientTape() as tape:
        q = tf.math.l2_normalize(s.q_enc(x1), -1)
        pos = tf.reduce_sum(q * keys, -1, keepdims=True)
        neg = q @ tf.transpose(s.bank)
        logits = tf.concat([pos, neg], 1) / 0.2
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            tf.zeros([tf.shape(x)[0]], tf.int32), logits))
    grads = tape.gradient(loss, s.q_enc.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.q_enc.trainable_variables))
    for kv, qv in zip(s.k_enc.variables, s.q_enc.variables):
        kv.assign(momentum * kv + (1.0 - momentum) * qv)

    n = x.shape[0]
    end = s.ptr + n
    if end <= BANK:
        s.bank[s.ptr:end].assign(keys)
        idx = list(range(s.ptr, end))
    else:
        head = BANK - s.ptr
        s.bank[s.ptr:].assign(keys[:head])
        s.bank[:end - BANK].assign(keys[head:])
        idx = list(range(s.ptr, BANK)) + list(range(end - BANK))
    s.age.assign_add(tf.ones_like(s.age))
    s.age.scatter_nd_update(tf.constant(idx)[:, None], tf.zeros([n], tf.int32))
    s.ptr = end % BANK
    if s.k % 4 == 3:
        oldest = int(tf.argmax(s.age))
        s.bank[oldest].assign(tf.math.l2_normalize(tf.reduce_mean(keys, 0), -1))
    means = tf.math.unsorted_segment_mean(keys, labels, 3)
    tf.compat.v1.scatter_update(s.protos, tf.constant([0, 1, 2]),
                                0.5 * s.protos + 0.5 * means)
    s.loss_buf[s.k % W] = float(loss)
    s.norms = np.roll(s.norms, 1)
    s.norms[0] = float(tf.linalg.global_norm(grads))
    s.hits += np.bincount(labels.numpy(), minlength=3)
    s.k += 1
    return loss, s.ptr


STEP = step
