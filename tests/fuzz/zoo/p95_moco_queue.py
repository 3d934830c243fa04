"""MoCo-style contrastive learning: a query encoder trained by SGD with momentum, a key
encoder updated as an exponential moving average of it (`k.assign(m * k + (1 - m) * q)`
over `zip(key.weights, query.weights)`), a queue of negative keys held in a tf.Variable
with a Python int pointer (`queue[ptr:ptr + n].assign(keys)`, wrapping around with two
slices when it crosses the end), augmentations (random crop by a numpy-drawn offset and
Gaussian noise from a `tf.random.Generator` owned by the state; the crop offsets come
from the data pipeline as a Python tuple of ints), the InfoNCE logits
`[l_pos, l_neg] / T` with the temperature warmed from a Python list of milestones
(`bisect`), the momentum itself following a cosine schedule of a Python step counter,
a `keras.metrics.Mean` for the loss and the top-1 accuracy of the positive computed in
graph ops, and the queue only used once it has been filled (`self.filled` flag).

janus (session 27, h4): agrees on all 18 calls; 8 as graphs, each specialized to the
step (it goes through `bisect` and `math.cos` on the host: kept guarded) and the crop
offsets; the generations stop at the churn bound ("graphs generated are not reused"),
then plain; steady about even with plain."""
import bisect
import math

import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 18
FEAT, DIM, QUEUE, N = 10, 8, 20, 6
MILESTONES, TEMPS = [3, 8, 12], [0.5, 0.3, 0.2, 0.1]


def encoder():
    net = keras.Sequential([keras.layers.Dense(16, activation="relu"), keras.layers.Dense(DIM)])
    net.build((None, FEAT - 2))
    return net


class State:
    def __init__(self):
        self.query = encoder()
        self.key = encoder()
        for k, q in zip(self.key.weights, self.query.weights):
            k.assign(q)
        self.queue = tf.Variable(tf.math.l2_normalize(tf.random.normal([QUEUE, DIM], seed=95), 1),
                                 trainable=False)
        self.ptr = 0
        self.filled = False
        self.opt = keras.optimizers.SGD(0.05, momentum=0.9)
        self.noise = tf.random.Generator.from_seed(95)
        self.loss_metric = keras.metrics.Mean()
        self.step = 0
        self.acc = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(950 + i)
    return (tf.constant(rng.randn(N, FEAT).astype(np.float32)),
            (int(rng.randint(0, 3)), int(rng.randint(0, 3))), 18)


def augment(s, x, off):
    crop = x[:, off:off + FEAT - 2]
    return crop + 0.1 * s.noise.normal(tf.shape(crop))


def enqueue(s, keys):
    n = keys.shape[0]
    end = s.ptr + n
    if end <= QUEUE:
        s.queue[s.ptr:end].assign(keys)
    else:
        first = QUEUE - s.ptr
        s.queue[s.ptr:].assign(keys[:first])
        s.queue[:n - first].assign(keys[first:])
        s.filled = True
    s.ptr = end % QUEUE


@JIT
def train_step(s, x, offsets, total_steps):
    s.step += 1
    temp = TEMPS[bisect.bisect_right(MILESTONES, s.step)]
    m = 1.0 - (1.0 - 0.99) * (math.cos(math.pi * s.step / total_steps) + 1) / 2
    xq, xk = augment(s, x, offsets[0]), augment(s, x, offsets[1])
    k = tf.stop_gradient(tf.math.l2_normalize(s.key(xk), 1))
    with tf.GradientTape() as tape:
        q = tf.math.l2_normalize(s.query(xq), 1)
        l_pos = tf.reduce_sum(q * k, 1, keepdims=True)
        if s.filled:
            l_neg = q @ tf.transpose(s.queue)
        else:
            l_neg = q @ tf.transpose(k)  # in-batch negatives until the queue is full
            l_neg = l_neg - 1e9 * tf.eye(tf.shape(q)[0])
        logits = tf.concat([l_pos, l_neg], 1) / temp
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            tf.zeros([tf.shape(q)[0]], tf.int32), logits))
    grads = tape.gradient(loss, s.query.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.query.trainable_variables))
    for kw, qw in zip(s.key.weights, s.query.weights):
        kw.assign(m * kw + (1.0 - m) * qw)
    enqueue(s, k)
    s.loss_metric.update_state(loss)
    top1 = tf.reduce_mean(tf.cast(tf.argmax(logits, 1) == 0, tf.float32))
    s.acc.append(top1)
    return loss, top1, s.loss_metric.result()


STEP = train_step
