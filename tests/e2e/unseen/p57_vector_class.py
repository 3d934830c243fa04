"""A small parameter-vector class with operator overloading (`__add__`, `__mul__`,
`__rmul__`, `__iter__`) over a dict of tensors, `tf.nest.map_structure` over nested
parameters, a `**kwargs` config and metric keys built with f-strings."""
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = False  # (operators of a class of the program's (`momentum * s.velocity`) are implicit calls janus does not convert, by design; segments around the call since F485)


class Params:
    def __init__(self, values):
        self.values = dict(values)

    def __add__(self, other):
        return Params({k: v + other.values[k] for k, v in self.values.items()})

    def __mul__(self, scale):
        return Params({k: v * scale for k, v in self.values.items()})

    __rmul__ = __mul__

    def __iter__(self):
        return iter(sorted(self.values))


class State:
    def __init__(self):
        rng = np.random.RandomState(86)
        self.vars = {"w": tf.Variable(rng.randn(4, 1).astype(np.float32)),
                     "b": tf.Variable(tf.zeros([1]))}
        self.velocity = Params({"w": tf.zeros([4, 1]), "b": tf.zeros([1])})
        self.metrics = {}


def make_state():
    return State()


def update(s, grads, lr=0.05, momentum=0.9, **extra):
    s.velocity = momentum * s.velocity + Params(grads)
    for name in s.velocity:
        s.vars[name].assign_sub(lr * s.velocity.values[name] * extra.get("scale", 1.0))


def step(s, x, y, i):
    with tf.GradientTape() as tape:
        pred = x @ s.vars["w"] + s.vars["b"]
        loss = tf.reduce_mean(tf.square(pred - y))
    grads = dict(zip(s.vars, tape.gradient(loss, list(s.vars.values()))))
    norms = tf.nest.map_structure(tf.norm, grads)
    update(s, grads, **{"lr": 0.02, "scale": 0.5})
    s.metrics[f"loss_{i % 3}"] = loss
    return loss, norms


def calls():
    return [(x, y, i) for i, (x, y) in enumerate(data.regression(9, seed=87))]
