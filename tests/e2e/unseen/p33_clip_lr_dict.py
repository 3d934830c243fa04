"""A custom loop with `apply_gradients(zip(...))` per layer group: learning rates from a
dict keyed by layer name (one optimizer each), gradient clipping by global norm behind a
Python flag the caller flips, the norm logged with an f-string."""
import keras
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True
MIN_GRAPH_CALLS = 5


class State:
    def __init__(self):
        keras.utils.set_random_seed(36)
        self.model = keras.Sequential([keras.Input((6,)),
                                       keras.layers.Dense(8, activation="relu", name="body"),
                                       keras.layers.Dense(3, name="head")], name="mlp")
        self.lrs = {"body": 0.01, "head": 0.05}
        self.opts = {name: keras.optimizers.SGD(lr) for name, lr in self.lrs.items()}
        self.clip = True
        self.norms = []


def make_state():
    return State()


def step(s, x, y, clip):
    s.clip = clip
    with tf.GradientTape() as tape:
        logits = s.model(x)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
    variables = s.model.trainable_variables
    grads = tape.gradient(loss, variables)
    if s.clip:
        grads, norm = tf.clip_by_global_norm(grads, 1.0)
        s.norms.append(norm)
        print(f"clipped, norm {norm:.3f}")
    by_layer = {}
    for g, v in zip(grads, variables):
        by_layer.setdefault(v.path.split("/")[1], []).append((g, v))
    for name, pairs in by_layer.items():
        s.opts[name].apply_gradients(pairs)
    return loss


def calls():
    return [(x, y, i < 5) for i, (x, y) in enumerate(data.classification(10, seed=37))]
