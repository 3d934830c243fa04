"""Library-wide settings read through a library getter inside a jitted function
(graphgen/global_settings.py, F224): `keras.backend.floatx()`, `epsilon()` (also read by
Keras' own losses), the global dtype policy, environment variables, `sys.argv`, tf.config's
getters (F400); each changed between calls and compared with plain Python call by call."""
import functools
import os
import sys

import janus
import keras
import tensorflow as tf

from janus.graphgen import global_settings
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


def _tf_config_restored(fn):
    def run(*args, **kwargs):
        saved = (tf.config.experimental.tensor_float_32_execution_enabled(),
                 tf.config.get_soft_device_placement(), tf.config.optimizer.get_jit(),
                 tf.config.experimental.get_synchronous_execution())
        try:
            return fn(*args, **kwargs)
        finally:
            tf.config.experimental.enable_tensor_float_32_execution(saved[0])
            tf.config.set_soft_device_placement(saved[1])
            tf.config.optimizer.set_jit(saved[2])
            tf.config.experimental.set_synchronous_execution(saved[3])
    return run


@_tf_config_restored
def test_tf_config_getters_changed_between_calls():
    """tf.config's getters (F400): each read again on every call, as Keras' are."""
    def step(x):
        y = x * (2.0 if tf.config.experimental.tensor_float_32_execution_enabled() else 3.0)
        if tf.config.get_soft_device_placement():
            y = y + 1.0
        if tf.config.optimizer.get_jit():
            y = y - 0.5
        threads = tf.config.threading.get_inter_op_parallelism_threads()
        devices = len(tf.config.list_logical_devices("CPU"))
        print(tf.config.experimental.get_synchronous_execution(), threads, devices)
        return y

    changes = [(0, lambda: tf.config.experimental.enable_tensor_float_32_execution(True)),
               (0, lambda: tf.config.set_soft_device_placement(True)),
               (0, lambda: tf.config.optimizer.set_jit(False)),
               (4, lambda: tf.config.experimental.enable_tensor_float_32_execution(False)),
               (6, lambda: tf.config.set_soft_device_placement(False)),
               (8, lambda: tf.config.optimizer.set_jit("autoclustering")),
               (9, lambda: tf.config.experimental.set_synchronous_execution(False)),
               (10, lambda: tf.config.experimental.set_synchronous_execution(True))]
    stats = assert_same(step, [lambda _, i=i: _between(i, changes) for i in range(12)],
                        make_state=object)
    assert stats.graph_calls >= 3


@_tf_config_restored
def test_tf_config_set_inside_the_call():
    """A tf.config setter in the call refuses a graph (the graph would never set it)."""
    def step(x, on):
        tf.config.set_soft_device_placement(on)
        return x * 2.0

    jitted = janus.jit(step)
    for i in range(8):
        on = i % 2 == 0
        tf.config.set_soft_device_placement(not on)
        jitted(X, on)
        assert tf.config.get_soft_device_placement() == on, f"call #{i}"


def test_tf_config_getters_are_portable_by_name():
    """A graph cache records tf.config's argument-less getters by name (a warm start finds
    them again), not those called with arguments."""
    for getter in (tf.config.experimental.tensor_float_32_execution_enabled,
                   tf.config.get_soft_device_placement, tf.config.optimizer.get_jit):
        name = global_settings.portable_name(functools.partial(getter))
        assert name is not None and global_settings.portable_getter(name) is getter
    assert global_settings.portable_name(
        functools.partial(tf.config.list_logical_devices, "CPU")) is None
