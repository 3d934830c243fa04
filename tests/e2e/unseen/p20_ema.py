"""Polyak averaging of the weights by hand (an EMA copy in tf.Variables updated with
assign after each step), evaluation with the averaged weights every 3rd step, and a
checkpoint-like dict of numpy arrays kept in Python when the eval loss improves."""
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True


class State:
    def __init__(self):
        rng = np.random.RandomState(28)
        self.w = tf.Variable(rng.randn(4, 1).astype(np.float32))
        self.b = tf.Variable([0.0])
        self.ema = [tf.Variable(v) for v in (self.w, self.b)]
        self.decay = 0.8
        self.opt = tf.keras.optimizers.SGD(0.1)
        self.t = 0
        self.best = None
        self.saved = {}


def make_state():
    return State()


def step(s, x, y):
    params = [s.w, s.b]
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ s.w + s.b - y))
    s.opt.apply_gradients(zip(tape.gradient(loss, params), params))
    for e, p in zip(s.ema, params):
        e.assign(s.decay * e + (1 - s.decay) * p)
    s.t += 1
    if s.t % 3 == 0:
        eval_loss = tf.reduce_mean(tf.square(x @ s.ema[0] + s.ema[1] - y))
        if s.best is None or eval_loss < s.best:
            s.best = eval_loss
            s.saved = {"w": s.ema[0].numpy(), "b": s.ema[1].numpy(), "step": s.t}
        return loss, eval_loss
    return loss, None


def calls():
    return data.regression(12, seed=29)
