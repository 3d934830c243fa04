"""A number that changes on every call, read by the program's code Keras runs unconverted
(graphgen/held_numbers.py, F295): `x * HP.alpha` in an activation is fed to one graph
(a stand-in while tracing); `tf.nn.leaky_relu(x, alpha=HP.alpha)` (an op's attribute:
no fed value fits) runs that call in Python after a few values, never a graph per value
until the specialization limit."""
import math
import types

import keras
import tensorflow as tf

from tests.differential import assert_same


class HP:
    alpha = 0.5


HELD = types.ModuleType("held_numbers_cfg")  # (a config module of the program's: `C.ALPHA`)
HELD.ALPHA = 0.5
RECORD = types.SimpleNamespace(scale=1.0)  # (`args.scale`)


def _annealed(i, s, x):
    HP.alpha = HELD.ALPHA = 0.01 * i + 0.05
    RECORD.scale = 1.0 + 0.5 * i
    return (s, x)


def scaled(x):  # (arithmetic on each: fed)
    return tf.nn.relu(x) - x * HP.alpha + HELD.ALPHA * RECORD.scale


def leaky(x):  # (an op's attribute: no fed value fits)
    return tf.nn.leaky_relu(x, alpha=HP.alpha)


def leaky_module(x):
    return tf.nn.leaky_relu(x, alpha=HELD.ALPHA)


def cosine(x):  # (a float's `math`: `float()` of the stand-in)
    return x * math.cos(HP.alpha)


class Model:
    def __init__(self, activation):
        keras.utils.set_random_seed(0)
        HP.alpha = HELD.ALPHA = 0.5
        RECORD.scale = 1.0
        self.model = keras.Sequential([keras.Input((3,)),
                                       keras.layers.Dense(4, activation=activation),
                                       keras.layers.Dense(1)])


def forward(s, x):
    return s.model(x)


def _calls(n=16):
    return [(lambda s, i=i: _annealed(i, s, tf.random.stateless_normal((5, 3), (i, 0))))
            for i in range(n)]


def test_a_held_number_changing_per_call_is_fed_to_one_graph():
    stats = assert_same(forward, _calls(), lambda: Model(scaled))
    assert stats.generations <= 3, stats  # (not one per value)
    assert stats.graph_calls >= 10, stats


def test_a_held_number_janus_cannot_feed_runs_the_call_in_python():
    for activation in (leaky, leaky_module, cosine):
        stats = assert_same(forward, _calls(), lambda: Model(activation))
        assert stats.generations <= 4, (activation.__name__, stats)  # (not 8: the limit)


def test_a_held_number_changed_once_keeps_its_graphs():
    def once(i, s, x):
        HP.alpha = 0.5 if i < 6 else 0.25
        return (s, x)
    calls = [(lambda s, i=i: once(i, s, tf.random.stateless_normal((5, 3), (i, 0))))
             for i in range(12)]
    stats = assert_same(forward, calls, lambda: Model(leaky))
    assert stats.graph_calls >= 7, stats
