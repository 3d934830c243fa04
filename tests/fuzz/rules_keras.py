"""Generator v50 and v55 rules: a Keras model trained by hand on its `trainable_variables` while
a layer's (or the whole model's) `trainable` flag changes: frozen inside the call before
the list is read (fine-tuning), Keras' GAN idiom (frozen, trained through, unfrozen in one
call), toggled after the step so that the next call trains another set, and the flags
read in Python (F146: a graph kept the variable list it traced and went on training a
frozen layer). The model is a module global or the state's sub-model (made at its first
call); its layers are reachable as globals / state attributes, so that janus locates the
writes. Keras variables are not in the heap snapshot: each step keeps the count of
variables trained in `s.hist` and adds the weights' sum to `acc`.

v55: a Keras layer class of the program's own, its `call` with Python effects and tensor
tests (`user_layer`).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_NET = '''\
import keras


def keras_net():
    """Two Dense layers of fixed weights (and a BatchNormalization between them, whose
    `call` reads its own `trainable` flag), and the layers."""
    first = keras.layers.Dense(3, kernel_initializer=keras.initializers.Constant(0.3),
                               bias_initializer="ones", activation="tanh")
    norm = keras.layers.BatchNormalization()
    second = keras.layers.Dense(1, kernel_initializer=keras.initializers.Constant(-0.2))
    return keras.Sequential([keras.Input((3,)), first, norm, second]), first, norm, second


KNET, KNET_A, KNET_N, KNET_B = keras_net()


def kfeat(a):
    """A [4, 3] float32 batch summarizing a tensor of any shape and dtype (its rows apart:
    the batch variance a BatchNormalization divides by is not tiny)."""
    a = tf.cast(a, tf.float32)
    row = tf.stack([tf.reduce_mean(a), tf.reduce_max(a), tf.reduce_min(a)])
    return tf.stack([row, -row, row + 1.0, row * 0.5 - 0.5])


def kweights(model):
    return tf.add_n([tf.reduce_sum(w) for w in model.weights])
'''


def _helper(g, text: str) -> None:
    if text not in g.helpers:
        g.helpers.append(text)


def _train(g, model: str, read: str) -> list[str]:
    """One hand-written SGD step on the variables `read` lists; what it trained kept."""
    vs, tape, loss, grads, v, gv = (g.fresh(p) for p in ("kvs", "ktape", "kloss", "kgrads",
                                                        "kv", "kg"))
    training = g.choice(["", ", training=True", ", training=flag"])
    return [f"{vs} = {read}",
            f"with tf.GradientTape() as {tape}:",
            f"    {loss} = tf.reduce_mean(tf.square({model}(kfeat(acc){training})))",
            f"{grads} = {tape}.gradient({loss}, {vs})",
            f"for {v}, {gv} in zip({vs}, {grads}):",
            f"    if {gv} is not None:",
            f"        {v}.assign_sub(0.05 * {gv})",
            f"s.hist.append(len({vs}))",
            f"acc = acc + tf.cast({loss} + 0.01 * kweights({model}), acc.dtype)"]


@rule(0.8, max_depth=1)
def keras_trainable(g):
    """(v50) A Keras layer's `trainable` written inside the call before the trained list
    is read, in the GAN idiom, or after the step (read by the next call), and the flags
    read as Python values."""
    _helper(g, _NET)
    if g.chance(0.5):
        model, layers, lines = "KNET", ["KNET_A", "KNET_N", "KNET_B"], []
    else:
        model, layers = "s.knet", ["s.ka", "s.kn", "s.kb"]
        lines = ["if getattr(s, 'knet', None) is None:",
                 "    s.knet, s.ka, s.kn, s.kb = keras_net()"]
    layer = g.choice(layers + [model])
    value = g.choice(["False", "not flag", "n % 2 == 0", f"not {layer}.trainable",
                      "s.count % 3 != 1", "len(xs) > 1"])
    read = g.choice([f"{model}.trainable_variables", f"{model}.trainable_weights",
                     f"[w for w in {model}.weights if w.trainable]"])
    kind = g.rng.randint(0, 3)
    if kind == 0:  # frozen (or toggled) in the call, then read
        return lines + [f"if {g.pcond()}:", f"    {layer}.trainable = {value}"] + \
            _train(g, model, read)
    if kind == 1:  # the GAN idiom
        return lines + [f"{layer}.trainable = False"] + _train(g, model, read) + \
            [f"{layer}.trainable = True"]
    if kind == 2:  # written after the step: the next call reads it
        return lines + _train(g, model, read) + \
            [f"if {g.pcond()}:", f"    {layer}.trainable = {value}"]
    v = g.fresh("kv")
    return lines + [f"k = k + sum(1 for {v} in {model}.variables if {v}.trainable)",
                    f"if {layer}.trainable:",
                    f"    s.hist.append(len({model}.non_trainable_weights))"]


_USER_LAYERS = '''\
import keras


class UserLayer(keras.layers.Layer):
    """A layer of the program's own: its `call` counts in Python, keeps a Python list
    (Keras tracks it), tests a tensor and its own flag."""

    def __init__(self, name):
        super().__init__(name=name)
        self.calls = 0
        self.seen = []
        self.halve = False

    def build(self, shape):
        self.w = self.add_weight(shape=(shape[-1], 3), name="w",
                                 initializer=keras.initializers.Constant(0.2))

    def compute_output_shape(self, shape):  # (Keras builds a Sequential symbolically)
        return (shape[0], 3)

    def call(self, x, training=False):
        self.calls += 1
        y = tf.matmul(x, self.w)
        if self.halve:
            y = y * 0.5
        if tf.reduce_sum(y) > 1.0:
            y = y - 1.0
        if training:
            y = y * 2.0
        return y


class LoggingLayer(UserLayer):
    def call(self, x, training=False):
        self.seen.append(self.calls)
        return super().call(x, training=training)


def user_layers():
    first = UserLayer("u_first")
    stack = keras.Sequential([keras.Input((3,)), LoggingLayer("u_log"), first,
                              keras.layers.Dense(2, kernel_initializer="ones")])
    return stack, first


ULAYERS, ULAYER = user_layers()
'''


@rule(0.6, max_depth=1)
def user_layer(g):
    """(v55) A Keras layer class of the program's own (`UserLayer.call` counts its calls
    in `self.calls`, tests a tensor, reads a Python flag; a subclass appends to a list
    Keras tracks), called alone or inside a Sequential, its flag changed between calls
    (graphgen/layer_calls.py: its `call` ran unconverted inside Keras' `__call__`: the
    counter moved once at trace time, a failed trace's append stayed)."""
    _helper(g, _NET)  # (kfeat)
    _helper(g, _USER_LAYERS)
    called = g.choice(["ULAYER", "ULAYERS"])
    training = g.choice(["", ", training=True", ", training=flag"])
    out = g.fresh("uy")
    lines = [f"{out} = {called}(kfeat(acc){training})",
             f"acc = acc + tf.cast(tf.reduce_mean({out}), acc.dtype) * 0.1",
             g.choice(["s.count = ULAYER.calls", "s.hist.append(ULAYER.calls)",
                       "k = k + ULAYER.calls % 3",
                       "s.hist.append(len(ULAYERS.layers[0].seen))"])]
    if g.chance(0.4):
        lines += [f"if {g.pcond()}:", "    ULAYER.halve = not ULAYER.halve"]
    return lines
