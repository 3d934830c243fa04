"""Keras' own training: model.compile() once, then model.train_on_batch(...,
return_dict=True) called from the step, its logs collected in a dict of lists (setdefault)."""
import keras
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = False  # (train_on_batch: a graph break by design; Keras runs its own train function)


class State:
    def __init__(self):
        keras.utils.set_random_seed(18)
        self.model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                                       keras.layers.Dense(3)])
        self.model.compile(optimizer=keras.optimizers.Adam(1e-2),
                           loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                           metrics=["accuracy"])
        self.logs = {}


def make_state():
    return State()


def step(s, x, y):
    logs = s.model.train_on_batch(x, y, return_dict=True)
    for k, v in logs.items():
        s.logs.setdefault(k, []).append(round(float(v), 5))
    return logs["loss"]


def calls():
    return data.classification(8, seed=26)
