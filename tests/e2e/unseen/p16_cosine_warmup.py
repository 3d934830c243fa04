"""A cosine learning-rate schedule with linear warmup computed in Python (math.cos) from a
Python step counter, written into the Keras optimizer's learning_rate variable with
assign(); the step returns Python floats for logging."""
import math

import keras
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True
MIN_GRAPH_CALLS = 6  # (0 before F456: the returned `float(loss)` was a break)


class Trainer:
    def __init__(self, total_steps=12, warmup=3, base_lr=0.05):
        keras.utils.set_random_seed(16)
        self.model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3)])
        self.opt = keras.optimizers.SGD(base_lr)
        self.total_steps, self.warmup, self.base_lr = total_steps, warmup, base_lr
        self.step = 0
        self.lrs = []

    def lr_at(self, step):
        if step < self.warmup:
            return self.base_lr * (step + 1) / self.warmup
        progress = (step - self.warmup) / max(1, self.total_steps - self.warmup)
        return 0.5 * self.base_lr * (1 + math.cos(math.pi * progress))


def make_state():
    return Trainer()


def step(t, x, y):
    lr = t.lr_at(t.step)
    t.opt.learning_rate.assign(lr)
    with tf.GradientTape() as tape:
        logits = t.model(x)
        loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))
    grads = tape.gradient(loss, t.model.trainable_variables)
    t.opt.apply_gradients(zip(grads, t.model.trainable_variables))
    t.lrs.append(lr)
    t.step += 1
    return {"loss": float(loss), "lr": lr}


def calls():
    return data.classification(12, seed=23)
