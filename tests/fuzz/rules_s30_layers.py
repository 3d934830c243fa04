"""Generator rules (session 30) for Keras layers of the program's classes that run Keras's
own code: `super().call(x)` in their `call` (janus converts the program's `call` and lets
Keras's base `call` read the layer's settings under their guard: it was refused), a
subclass keeping Keras's `call` whose settings change between calls (F323: an activation
rebound was not seen), a temperature the layer's own `call` anneals (read through janus's
hooks: not a setting).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

WEIGHT = 0.4

_LAYERS = '''\
import keras


class SlScaled(keras.layers.Dense):
    def __init__(self, units, scale=2.0):
        super().__init__(units, kernel_initializer="ones", bias_initializer="zeros",
                         name="sl_scaled")
        self.scale = scale

    def call(self, x):
        return super().call(x) * self.scale


class SlKept(keras.layers.Dense):
    def __init__(self, units):
        super().__init__(units, kernel_initializer="ones", bias_initializer="zeros",
                         name="sl_kept")
        self.note = "kept"


class SlAnnealed(keras.layers.Dense):
    def __init__(self, units):
        super().__init__(units, kernel_initializer="ones", bias_initializer="zeros",
                         name="sl_annealed")
        self.tau = 1.0

    def call(self, x):
        self.tau = self.tau * 0.9
        return super().call(x) / self.tau


SL_LAYERS = [SlScaled(2), SlKept(2), SlAnnealed(2)]
for _layer in SL_LAYERS:
    _layer.build((None, 3))


def sl_apply(i, a):
    v = tf.reshape(tf.cast(a, tf.float32), [1, -1])[:, :3]
    v = tf.pad(v, [[0, 0], [0, 3 - tf.shape(v)[1]]])
    return tf.reduce_sum(SL_LAYERS[i](v))
'''

_CHANGES = [
    "SL_LAYERS[{i}].activation = keras.activations.relu if flag else keras.activations.linear",
    "SL_LAYERS[{i}].use_bias = not flag",
    "SL_LAYERS[0].scale = 1.0 + n % 3",
    "SL_LAYERS[2].tau = 1.0",
]


@rule(WEIGHT, max_depth=1)
def keras_layer_subclass(g):
    """A Dense subclass calling `super().call`, one keeping Keras's `call`, one annealing
    its own temperature; some calls rebind a setting or the subclass's own number."""
    _helper(g, _LAYERS)
    i = g.rng.randrange(3)
    use = f"acc = acc + tf.cast(sl_apply({i}, acc), acc.dtype) * 0.1"
    if g.rng.random() < 0.5:
        return [use]
    change = g.choice(_CHANGES).format(i=i)
    return g.choice([[f"if {g.pcond()}:", f"    {change}", use],
                     [use, f"if {g.pcond()}:", f"    {change}"]])
