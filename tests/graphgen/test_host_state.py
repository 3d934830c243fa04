"""Library code a trace runs that changes host state a graph would not change on each
call (graphgen/host_state.py): Keras seeds a layer it builds from Python's `random` and
numbers its name. The trace is refused and the state put back: the user's `random` stream
and later layers' names stay plain Python's. Both sides run the same sequence from the
same seed and Keras session; results, draws and names are compared."""
import random

import keras
import numpy as np
import tensorflow as tf

import janus


def fresh_head(s, x):
    if s["n"] % 3 == 0:
        s["drop"] = keras.layers.Dropout(0.5)  # a new head every 3 steps
    s["n"] += 1
    return tf.reduce_sum(s["drop"](x, training=True))


def local_layer(s, x):
    layer = keras.layers.Dense(2, kernel_initializer="ones")  # (built per call, dropped)
    s["names"].append(layer.name)
    return tf.reduce_sum(layer(x))


def _run(fn):
    keras.backend.clear_session()
    keras.utils.set_random_seed(0)
    state = {"n": 0, "names": []}
    outs, draws = [], []
    for i in range(9):
        outs.append(float(fn(state, tf.ones((4, 3)) * (i + 1))))
        draws.append(random.random())
    return outs, draws, state["names"]


def test_library_code_drawing_from_python_random_or_naming_layers_stays_plain_pythons():
    for fn in (fresh_head, local_layer):
        plain, jitted = _run(fn), _run(janus.jit(fn))
        np.testing.assert_allclose(jitted[0], plain[0], rtol=1e-6)
        assert jitted[1:] == plain[1:]
