"""Domain adaptation with an optimal-transport alignment loss: a shared feature
extractor and a classifier trained on labelled source batches, plus an entropic OT
(Sinkhorn) distance between source and target features; the Sinkhorn iterations run in
log space in a Python `for` loop with an early exit on a tensor test
(`if tf.reduce_max(tf.abs(u - u_prev)) < tol: break`), epsilon and the loss weight come
from a Python warmup schedule (`lam = LAMBDA * min(1.0, step / WARM)`), the number of
iterations actually run is counted in a Python list, the transport plan's marginal error
is returned; the cost matrix is normalized by its max (a tensor), and `tf.stop_gradient`
keeps the plan fixed in the gradient (the "detached plan" trick).

janus (session 28, h2): agrees on all 14 calls; 12 as graphs (the Sinkhorn loop with its
tensor `break` one loop); steady 18x faster than plain, tracing makes the 14 calls 4.6x
slower in total."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14
FEAT, CLASSES = 5, 3
LAMBDA, WARM, MAX_ITERS, TOL = 0.5, 5, 30, 1e-3


class State:
    def __init__(self):
        self.feat = keras.Sequential([keras.layers.Dense(16, activation="relu"),
                                      keras.layers.Dense(8)])
        self.clf = keras.layers.Dense(CLASSES)
        self.feat.build((None, FEAT))
        self.clf.build((None, 8))
        self.opt = keras.optimizers.Adam(5e-3)
        self.step = 0
        self.iters = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(1010 + i)
    xs = rng.randn(10, FEAT).astype(np.float32)
    ys = (xs[:, 0] > 0).astype(np.int32) + (xs[:, 1] > 1).astype(np.int32)
    xt = (rng.randn(8 + i % 3, FEAT) + 0.7).astype(np.float32)
    return tf.constant(xs), tf.constant(ys), tf.constant(xt), 0.1 if i < 7 else 0.05


def sinkhorn(cost, eps):
    n, m = tf.shape(cost)[0], tf.shape(cost)[1]
    log_a = -tf.math.log(tf.cast(n, tf.float32)) * tf.ones([n])
    log_b = -tf.math.log(tf.cast(m, tf.float32)) * tf.ones([m])
    u, v = tf.zeros([n]), tf.zeros([m])
    used = 0
    for _ in range(MAX_ITERS):
        used += 1
        u_prev = u
        u = eps * (log_a - tf.reduce_logsumexp((-cost + v[None, :]) / eps, 1))
        v = eps * (log_b - tf.reduce_logsumexp((-cost + u[:, None]) / eps, 0))
        if tf.reduce_max(tf.abs(u - u_prev)) < TOL:
            break
    plan = tf.exp((-cost + u[:, None] + v[None, :]) / eps)
    return plan, used


@JIT
def train_step(s, xs, ys, xt, eps):
    s.step += 1
    lam = LAMBDA * min(1.0, s.step / WARM)
    with tf.GradientTape() as tape:
        fs, ft = s.feat(xs), s.feat(xt)
        ce = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(ys, s.clf(fs)))
        cost = tf.reduce_sum(tf.square(fs[:, None, :] - ft[None, :, :]), -1)
        cost_n = cost / tf.stop_gradient(tf.reduce_max(cost))
        plan, used = sinkhorn(tf.stop_gradient(cost_n), eps)
        ot = tf.reduce_sum(tf.stop_gradient(plan) * cost_n)
        loss = ce + lam * ot
    variables = s.feat.trainable_variables + s.clf.trainable_variables
    s.opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    s.iters.append(used)
    marginal = tf.reduce_max(tf.abs(tf.reduce_sum(plan, 1) - 1.0 / tf.cast(tf.shape(xs)[0], tf.float32)))
    return loss, ot, marginal


STEP = train_step
