"""Library-wide settings read through a library getter inside a jitted function
(graphgen/global_settings.py, F224): `keras.backend.floatx()`, `epsilon()` (also read by
Keras' own losses), the global dtype policy, environment variables, `sys.argv`; each
changed between calls and compared with plain Python call by call."""
import os
import sys

import keras
import tensorflow as tf

from tests.differential import assert_same

X = tf.constant([0.25, 0.5])


def _restored(fn):
    def run(*args, **kwargs):
        argv = list(sys.argv)
        saved = (keras.backend.floatx(), keras.backend.epsilon(),
                 keras.mixed_precision.global_policy().name, os.environ.get("JANUS_T_FLAG"))
        try:
            return fn(*args, **kwargs)
        finally:
            sys.argv[:] = argv
            keras.backend.set_floatx(saved[0])
            keras.backend.set_epsilon(saved[1])
            keras.mixed_precision.set_global_policy(saved[2])
            os.environ.pop("JANUS_T_FLAG", None)
            if saved[3] is not None:
                os.environ["JANUS_T_FLAG"] = saved[3]
    return run


def _between(i, settings):
    for when, change in settings:
        if i == when:
            change()
    return (X,)


@_restored
def test_keras_getters_changed_between_calls():
    def step(x):
        y = tf.cast(x, keras.backend.floatx()) + keras.backend.epsilon()
        print(keras.mixed_precision.global_policy().name, keras.backend.image_data_format())
        return y

    changes = [(4, lambda: keras.backend.set_floatx("float64")),
               (6, lambda: keras.backend.set_epsilon(0.5)),
               (8, lambda: keras.mixed_precision.set_global_policy("mixed_float16")),
               (9, lambda: keras.mixed_precision.set_global_policy("float32"))]
    # (each entry runs once per side before both calls: the changes are idempotent)
    stats = assert_same(step, [lambda _, i=i: _between(i, changes) for i in range(11)],
                        make_state=object)
    assert stats.graph_calls >= 3


@_restored
def test_epsilon_read_by_a_keras_loss():
    def step(x):
        return keras.losses.binary_crossentropy(tf.ones_like(x), x * 0.0)

    changes = [(5, lambda: keras.backend.set_epsilon(0.5))]
    stats = assert_same(step, [lambda _, i=i: _between(i, changes) for i in range(8)],
                        make_state=object)
    assert stats.graph_calls >= 3


@_restored
def test_environment_and_argv_read_in_the_call():
    def step(x):
        y = x
        if "--double" in sys.argv:
            y = y * 2.0
        if "JANUS_T_FLAG" in os.environ:
            y = y + float(os.environ["JANUS_T_FLAG"])
        return y * float(os.environ.get("JANUS_T_FLAG", "1"))

    changes = [(4, lambda: "--double" in sys.argv or sys.argv.append("--double")),
               (6, lambda: os.environ.__setitem__("JANUS_T_FLAG", "2")),
               (8, lambda: os.environ.__setitem__("JANUS_T_FLAG", "5")),
               (9, lambda: sys.argv.remove("--double") if "--double" in sys.argv else 0)]
    stats = assert_same(step, [lambda _, i=i: _between(i, changes) for i in range(11)],
                        make_state=object)
    assert stats.graph_calls >= 3


@_restored
def test_settings_set_inside_the_call():
    def step(x, n):
        keras.backend.set_epsilon(0.125 * (n % 3) + 0.5)
        y = x + keras.backend.epsilon()
        os.environ["JANUS_T_FLAG"] = str(n % 2)
        return y * float(os.environ["JANUS_T_FLAG"]) + keras.backend.epsilon()

    # (process-wide: each call sets before it reads, whichever side ran before)
    assert_same(step, [(X, i) for i in range(6)])
