"""Keras methods that compute a layer's state in Python are not traced (F276,
graphgen/refusals.keras_host_reason): `Normalization.adapt` run while tracing kept the
trace's tensors as the layer's mean and variance, and every later call of the layer —
plain Python's too — failed ("... is out of scope and cannot be used here")."""
import keras
import numpy as np
import tensorflow as tf

from tests.differential import assert_same


def _state():
    norm = keras.layers.Normalization(axis=None)
    norm.adapt(np.array([0.0, 2.0]))
    return {"norm": norm, "w": tf.Variable(0.5)}


def adapt_step(s, x, n):
    y = tf.reduce_sum(s["norm"](x)) * s["w"]
    s["norm"].adapt(np.array([float(n % 3), 4.0 + n % 2]))
    s["w"].assign_add(0.01 * y)
    return y + tf.reduce_sum(s["norm"](x))


def test_a_layer_adapted_in_the_step_is_adapted_as_in_plain_python():
    calls = [(tf.constant([1.0, 2.0, 3.0]), n) for n in range(8)]
    assert_same(adapt_step, calls, make_state=_state)


def test_adapt_under_a_caller_s_tape_leaves_the_layer_usable():
    def run(fn, s):
        out = []
        for n in range(6):
            x = tf.constant([1.0, float(n)])
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = fn(s, x, n)
            out.append((float(y), tape.gradient(y, x).numpy().tolist()))
        return out

    import janus
    jitted = janus.jit(adapt_step)
    assert run(jitted, _state()) == run(adapt_step, _state())
