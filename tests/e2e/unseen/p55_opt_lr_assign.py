"""The learning rate set inside the step: `opt.learning_rate = lr` from a Python
schedule function of `opt.iterations`, a warmup read with `int(opt.iterations)`, and
`opt.iterations` compared in a Python `if` for a periodic weight clamp."""
import keras
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = False  # (`int(opt.iterations)` is a host read and `opt.learning_rate = lr` in the call is refused by design: F190)


def schedule(it, base=0.05, warmup=3):
    if it < warmup:
        return base * (it + 1) / warmup
    return base * 0.9 ** (it - warmup)


class State:
    def __init__(self):
        keras.utils.set_random_seed(82)
        self.model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3)], name="lin")
        self.opt = keras.optimizers.SGD(0.05, momentum=0.9)
        self.lrs = []


def make_state():
    return State()


def step(s, x, y):
    lr = schedule(int(s.opt.iterations))
    s.opt.learning_rate = lr
    s.lrs.append(lr)
    with tf.GradientTape() as tape:
        logits = s.model(x)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
    grads = tape.gradient(loss, s.model.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
    if s.opt.iterations % 4 == 0:
        for v in s.model.trainable_variables:
            v.assign(tf.clip_by_value(v, -0.5, 0.5))
    return loss


def calls():
    return data.classification(10, seed=83)
