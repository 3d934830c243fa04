"""Library objects a trace makes and its graph hands out (janus/fallback/made_objects.py,
F150): plain Python makes them anew on every call, so must janus.

A graph handed back the object its trace made, on every run: a Keras model made in a
segment of a split function came back from the segment's graph on a later call, and its
BatchNormalization's moving statistics went on from the earlier call's (twice plain's
after one more call). Each test compares janus with plain Python call by call (values,
and which results are the same object as another call's or another place's).
"""
import keras
import numpy as np
import tensorflow as tf

import janus
from tests.differential import assert_same


class Trainer:
    def __init__(self):
        self.models = []


def fresh_model_each_call(s, x):
    """A new model with BatchNormalization per call, trained one step after a graph break:
    the model's making is a segment of its own (its build, which creates variables, a
    break)."""
    model = keras.Sequential([keras.layers.Dense(3, kernel_initializer="ones"),
                              keras.layers.BatchNormalization()])
    model.build((None, 3))
    scale = float(np.sum(x.numpy()))  # a graph break
    model(x / scale, training=True)
    s.models.append(model)
    return model.layers[1].moving_mean + 0.0


def test_a_model_made_in_a_segment_is_new_on_every_call(any_size):
    calls = [(tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3) * (1 + 0.1 * i)),)
             for i in range(14)]
    seen = []

    def observe(s):  # each call's model is a new object (plain: always)
        seen.append(len({id(m) for m in s.models}) == len(s.models))
        return seen[-1]
    assert_same(fresh_model_each_call, calls, make_state=Trainer, observe=observe,
                segments=True)


def made_containers(x, n):
    a = np.zeros(3) + n  # (n is guarded: the array is made at trace time)
    seen = {1, 2}
    return x * 2.0, a, seen, a


def test_made_arrays_and_sets_are_copied_per_run():
    jitted = janus.jit(made_containers)
    outs = []
    for _ in range(6):
        expected = made_containers(tf.constant(1.0), 2)
        got = jitted(tf.constant(1.0), 2)
        np.testing.assert_array_equal(got[1], expected[1])
        assert got[2] == expected[2]
        assert got[1] is got[3]  # one object in two places: one copy
        got[1][0] = -1.0  # the caller's changes stay in its copy
        got[2].add(3)
        outs.append(got)
    assert len({id(o[1]) for o in outs}) == len(outs)
    assert len({id(o[2]) for o in outs}) == len(outs)
    assert janus.stats(jitted).graph_calls >= 3  # still graphs


def made_layer(x):
    layer = keras.layers.Dense(2)
    return x * 2.0, layer


def test_a_made_layer_is_not_handed_out_by_a_graph():
    jitted = janus.jit(made_layer)
    layers = [jitted(tf.constant([[1.0]]))[1] for _ in range(6)]
    assert len({id(layer) for layer in layers}) == len(layers)



def bn_model():
    model = keras.Sequential([keras.layers.Dense(3, kernel_initializer="ones"),
                              keras.layers.BatchNormalization()])
    model.build((None, 3))
    return model


def train_given_model(model, x):
    y = model(x, training=True)
    scale = float(np.sum(x.numpy()))  # a graph break
    model(y * scale, training=True)
    return model.layers[1].moving_mean + 0.0


def test_a_segment_given_up_on_updates_the_statistics_once(any_size):
    """What F150 first looked like: the segments calling a new model on every call
    regenerate (its variables are new objects) until their trial gives up; on that call,
    as on every other, each update is made once (also before the fix)."""
    calls = [lambda _, i=i: (bn_model(),  # (a model of its own for each side)
                             tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3) * (1 + i)))
             for i in range(12)]
    jitted = janus.jit(train_given_model, segments=True)
    assert_same(train_given_model, calls, jitted=jitted)
    text = janus.explain(jitted)  # (its trial gave up, or F242's churn bound stopped it)
    assert "no steady graph" in text or "ran only the calls that made them" in text
