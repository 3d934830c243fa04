"""Keras' process-global objects a graph holds (graphgen/keras_globals.py, F361): the
global SeedGenerator unseeded `keras.random.*` draws from, replaced between calls (by
`keras.utils.set_random_seed`, `keras.backend.clear_session`), and Keras' ambient call
context (an outer layer's `training`) around the call; compared with plain Python."""
import keras
import numpy as np
import tensorflow as tf
from keras.src.backend.common import global_state
from keras.src.random.seed_generator import SeedGenerator

import janus
from tests.differential import assert_same

X = tf.constant([1.0, 2.0, 3.0])
_GENERATOR = "global_seed_generator"


class Side:
    """One side's own global SeedGenerator (installed around each of its calls: both
    sides run in one process) and its draws' sum."""

    def __init__(self):
        self.total = tf.Variable(tf.zeros([3]))
        self.generator = SeedGenerator(seed=7)


def _installed(fn):
    def call(side, *args):
        saved = global_state.get_global_attribute(_GENERATOR)
        global_state.set_global_attribute(_GENERATOR, side.generator)
        try:
            return fn(side, *args)
        finally:
            global_state.set_global_attribute(_GENERATOR, saved)
    return call


def _reseeded(i: int, every: set, clear: set):
    def entry(side):
        if i in clear:  # (the whole of Keras' global state replaced)
            keras.backend.clear_session(free_memory=False)
        if i in every | clear:  # (as `keras.utils.set_random_seed(i)` makes the next one)
            side.generator = SeedGenerator(seed=i)
        return (side, X * (1.0 + 0.1 * i))
    return entry


def _draw(side, x):
    side.total.assign_add(keras.random.normal([3]) * x)
    return keras.random.uniform([3]) + x


def _dropped(side, x):
    return tf.reduce_sum(keras.random.dropout(x, 0.5) * x)


def _assert_same_draws(step, every: set, clear: set = frozenset()):
    jitted = janus.jit(step)
    saved = global_state.get_global_attribute(_GENERATOR)
    try:
        stats = assert_same(_installed(step), [_reseeded(i, every, clear) for i in range(14)],
                            Side, jitted=_installed(jitted), stats_of=jitted)
    finally:
        global_state.set_global_attribute(_GENERATOR, saved)
    assert stats.graph_calls >= 6, stats
    return stats


def test_global_seed_generator_replaced_between_calls():
    _assert_same_draws(_draw, every={5, 9})


def test_dropout_after_clear_session():
    _assert_same_draws(_dropped, every={4}, clear={8})


class _Outer(keras.layers.Layer):
    """Calls `fn` (set per side) in its `call`: the inner Dropout takes `training` from
    the call context Keras' `__call__` set."""

    def __init__(self):
        super().__init__(name="outer")  # (named: both sides' the same)
        self.fn = None
        self.drop = keras.layers.Dropout(0.5, seed=1, name="drop")

    def call(self, x, training=None):
        return self.fn(self.drop, x)


def _inner(drop, x):
    return drop(x) * 2.0


def test_outer_layers_training_flag_around_the_call():
    jitted = janus.jit(_inner)

    def through(fn):
        def call(outer, training):
            outer.fn = fn
            try:
                return np.asarray(outer(tf.ones([6]), training=training))
            finally:
                outer.fn = None
        return call

    calls = [(i % 5 == 4 or i >= 10,) for i in range(14)]
    stats = assert_same(through(_inner), calls, _Outer, jitted=through(jitted), stats_of=jitted)
    assert stats.graph_calls >= 6, stats
