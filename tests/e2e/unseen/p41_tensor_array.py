"""An RNN unrolled with a `tf.TensorArray` written in a Python `for` over `tf.range`
and a second, `dynamic_size` one in a Python loop over the time steps; a loss on the
stacked outputs."""
import numpy as np
import tensorflow as tf

GRAPHS = True
MIN_GRAPH_CALLS = 4


class State:
    def __init__(self):
        rng = np.random.RandomState(52)
        self.wx = tf.Variable(rng.randn(3, 4).astype(np.float32) * 0.5)
        self.wh = tf.Variable(rng.randn(4, 4).astype(np.float32) * 0.5)
        self.wo = tf.Variable(rng.randn(4, 1).astype(np.float32) * 0.5)


def make_state():
    return State()


def step(s, xs, ys):
    T = xs.shape[1]
    with tf.GradientTape() as tape:
        h = tf.zeros([xs.shape[0], 4])
        outs = tf.TensorArray(tf.float32, size=T)
        for t in tf.range(T):
            h = tf.tanh(xs[:, t] @ s.wx + h @ s.wh)
            outs = outs.write(t, h @ s.wo)
        pred = tf.transpose(outs.stack()[:, :, 0])
        loss = tf.reduce_mean(tf.square(pred - ys))
    grads = tape.gradient(loss, [s.wx, s.wh, s.wo])
    for g, v in zip(grads, [s.wx, s.wh, s.wo]):
        v.assign_sub(0.05 * g)
    errs = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    for t in range(T):
        errs = errs.write(t, tf.reduce_mean(tf.abs(pred[:, t] - ys[:, t])))
    return loss, errs.stack()


def calls():
    rng = np.random.RandomState(53)
    return [(tf.constant(rng.randn(2, 5, 3).astype(np.float32)),
             tf.constant(rng.randn(2, 5).astype(np.float32))) for _ in range(8)]
