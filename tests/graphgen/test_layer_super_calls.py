"""`super().call(...)` in the `call` of a Keras layer of the program's class: Keras's own
`call` of the base class reads the layer's Keras state as for a library layer (guarded by
its settings), so the step stays a graph (it was refused: 0 graphs, h1 session 30 E).
Changes between calls (an activation rebound, the subclass's own number, a layer flag)
are seen; a program property in front of Keras's attributes keeps it refused."""
import numpy as np
import tensorflow as tf
import keras

import janus
from tests.differential import assert_same


class Scaled(keras.layers.Dense):
    def __init__(self, units, scale=2.0):
        super().__init__(units, kernel_initializer=keras.initializers.GlorotUniform(seed=1),
                         name="scaled")
        self.scale = scale

    def call(self, x):
        return super().call(x) * self.scale


class GhostNorm(keras.layers.BatchNormalization):
    def __init__(self):
        super().__init__(name="ghost_norm")

    def call(self, x, training=None):
        halves = tf.split(x, 2, axis=0)
        return tf.concat([super(GhostNorm, self).call(h, training=training)
                          for h in halves], axis=0)


class Masked(keras.layers.Dense):
    def __init__(self, units):
        super().__init__(units, kernel_initializer=keras.initializers.GlorotUniform(seed=1),
                         name="masked")

    @property
    def kernel(self):  # (program code Keras's call would run unconverted: refused)
        return super().kernel * self.mask

    def build(self, shape):
        super().build(shape)
        self.mask = tf.ones_like(super().kernel)


class State:
    def __init__(self, layer):
        self.layer = layer
        layer.build((None, 4))


def step(s, x, training):
    return tf.reduce_sum(s.layer(x, training=training)) if isinstance(s.layer, GhostNorm) \
        else tf.reduce_sum(s.layer(x))


def _calls(n, change=None):
    rng = np.random.default_rng(3)
    xs = [tf.constant(rng.normal(size=(4, 4)), tf.float32) for _ in range(n)]

    def call(i):
        def make(s):
            if change is not None and i == n // 2:
                change(s)
            return (s, xs[i], i % 3 != 0)
        return make
    return [call(i) for i in range(n)]


def _same(make_layer, change=None, graphs=True):
    jitted = janus.jit(step)
    stats = assert_same(step, _calls(12, change), make_state=lambda: State(make_layer()),
                        jitted=jitted)
    if graphs:
        assert stats.graph_calls >= 6, janus.explain(jitted)
    return stats


def test_super_call_of_a_dense_subclass_is_a_graph():
    _same(lambda: Scaled(3))


def test_changes_between_calls_are_seen():
    def rebind(s):
        s.layer.activation = keras.activations.relu
    _same(lambda: Scaled(3), rebind)

    def rescale(s):
        s.layer.scale = 5.0
    _same(lambda: Scaled(3), rescale)

    def no_bias(s):
        s.layer.use_bias = False
    _same(lambda: Scaled(3), no_bias)


def test_super_call_of_batch_normalization_with_training():
    _same(GhostNorm)


def test_a_program_property_in_front_of_keras_attributes_still_agrees():
    _same(lambda: Masked(3), graphs=False)


class Sub(keras.layers.Dense):
    """A subclass of Dense that keeps Keras's `call` (F323: its settings were not guarded:
    Keras's inherited code read an activation rebound between calls as traced)."""

    def __init__(self, units):
        super().__init__(units, kernel_initializer=keras.initializers.GlorotUniform(seed=1),
                         name="sub")
        self.note = "x"


def test_a_subclass_keeping_keras_call_sees_its_settings_change():
    def rebind(s):
        s.layer.activation = keras.activations.relu
    _same(lambda: Sub(3), rebind)


class Annealed(keras.layers.Dense):
    """A temperature its own `call` updates: read through janus's hooks (fed), not a
    setting of the inherited code (no graph per value)."""

    def __init__(self, units):
        super().__init__(units, kernel_initializer=keras.initializers.GlorotUniform(seed=1),
                         name="annealed")
        self.tau = 1.0

    def call(self, x):
        self.tau = self.tau * 0.9
        return super().call(x) / self.tau


def test_a_temperature_the_layer_anneals_is_not_a_graph_per_value():
    stats = _same(lambda: Annealed(3))
    assert stats.generations <= 3, stats
