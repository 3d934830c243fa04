"""A `functools.partial` a Keras layer holds, compared by its function, arguments and
keywords (graphgen/held_partials.py, F296): rebound on every call to an equal new
partial, it keeps one graph; rebound to another, or its keywords changed in place (also
those of the new partial), it is seen."""
import functools

import keras
import tensorflow as tf

from tests.differential import assert_same


def mine(x, alpha, shift=0.0):
    return tf.nn.leaky_relu(x, alpha=alpha) + shift


class Model:
    def __init__(self):
        keras.utils.set_random_seed(0)
        self.dense = keras.layers.Dense(
            4, activation=functools.partial(tf.nn.leaky_relu, alpha=0.2))
        self.model = keras.Sequential([keras.Input((3,)), self.dense, keras.layers.Dense(1)])


def forward(s, x):
    return s.model(x)


def _rebound(i, s):
    x = tf.random.stateless_normal((5, 3), (i, 0))
    if i < 12:  # (an equal new partial on every call)
        s.dense.activation = functools.partial(tf.nn.leaky_relu, alpha=0.2)
    elif i == 12:  # (another function's, with a positional argument)
        s.dense.activation = functools.partial(mine, alpha=0.2, shift=1.0)
    elif i == 14:
        s.dense.activation = functools.partial(mine, alpha=0.2, shift=1.0)
        s.dense.activation.keywords["shift"] = 2.0  # (the new one's keywords, in place)
    elif i == 16:
        s.dense.activation.keywords["alpha"] = 0.5  # (in place, no rebinding)
    return (s, x)


def test_a_partial_rebound_to_an_equal_one_keeps_its_graph():
    stats = assert_same(forward, [(lambda s, i=i: _rebound(i, s)) for i in range(12)],
                        Model)
    assert stats.generations <= 1, stats
    assert stats.graph_calls >= 8, stats


def test_a_partial_rebound_or_changed_in_place_is_seen():
    stats = assert_same(forward, [(lambda s, i=i: _rebound(i, s)) for i in range(19)],
                        Model)
    assert stats.generations <= 5, stats
