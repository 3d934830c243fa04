"""Keras' private state set through its public API between calls (session 28, probes,
F247): `layer.dtype_policy = ...` (writes `_dtype_policy`, or a DTypePolicyMap entry),
`layer.input_spec = ...`, `AdamW.exclude_from_weight_decay(...)` (writes its private
exclusions and resets their cache). The next call follows, as plain Python does."""
import keras
import tensorflow as tf

from tests.differential import assert_same


class Layered:
    def __init__(self):
        keras.utils.set_random_seed(0)
        self.layer = keras.layers.Dense(2)
        self.layer.build((None, 3))


def forward(s, x):
    y = s.layer(x)
    return y.dtype.name, y


def _policy(i, s, x):
    if i == 5:
        s.layer.dtype_policy = "mixed_float16"
    if i == 8:
        s.layer.dtype_policy = "float32"
    return (s, x)


def test_a_layer_s_dtype_policy_set_between_calls():
    calls = [(lambda s, i=i: _policy(i, s, tf.ones((1, 3)) * i)) for i in range(11)]
    stats = assert_same(forward, calls, Layered)
    assert stats.graph_calls >= 5


class Decayed:
    def __init__(self):
        keras.utils.set_random_seed(0)
        self.w = tf.Variable(tf.ones((2,)), name="bias")
        self.k = tf.Variable(tf.ones((2,)), name="kernel")
        self.opt = keras.optimizers.AdamW(0.1, weight_decay=0.5)


def decay(s, g):
    s.opt.apply_gradients([(g, s.w), (g, s.k)])
    return s.w + 0.0, s.k + 0.0


def _exclude(i, s, g):
    if i == 5:
        s.opt.exclude_from_weight_decay(var_names=["bias"])
    if i == 8:
        s.opt.exclude_from_weight_decay(var_list=[s.k])
    return (s, g)


def test_adamw_exclusions_set_between_calls():
    calls = [(lambda s, i=i: _exclude(i, s, tf.constant([0.1, -0.1]) * i)) for i in range(11)]
    stats = assert_same(decay, calls, Decayed)
    assert stats.graph_calls >= 5
