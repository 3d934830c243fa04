"""Manual SGD: a learning-rate schedule object called with a tf.Variable step counter,
tf.clip_by_global_norm, the global norm logged in a Python list."""
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True


class State:
    def __init__(self):
        rng = np.random.RandomState(3)
        self.w = tf.Variable(rng.randn(4, 1).astype(np.float32), name="w")
        self.b = tf.Variable(tf.zeros([1]), name="b")
        self.global_step = tf.Variable(0, dtype=tf.int64, trainable=False)
        self.schedule = tf.keras.optimizers.schedules.ExponentialDecay(
            0.1, decay_steps=3, decay_rate=0.5, staircase=True)
        self.norms = []


def make_state():
    return State()


def step(s, x, y):
    with tf.GradientTape() as tape:
        pred = tf.matmul(x, s.w) + s.b
        loss = tf.reduce_mean(tf.square(pred - y))
    grads = tape.gradient(loss, [s.w, s.b])
    grads, norm = tf.clip_by_global_norm(grads, 1.0)
    lr = s.schedule(s.global_step)
    for v, g in zip([s.w, s.b], grads):
        v.assign_sub(lr * g)
    s.global_step.assign_add(1)
    s.norms.append(norm)
    return loss, lr


def calls():
    return data.regression(10)
