"""Keras state a graph read (janus/graphgen/keras_state.py): a layer frozen between calls
(`layer.trainable = False`) or inside the call (the GAN idiom `d.trainable = False` ...
`d.trainable = True`) changes `model.trainable_variables`; a graph kept the list it
traced and went on training the frozen layer (zoo p40, F146). Each test runs the same
calls plainly and through janus and compares, call by call, the results (the length of
the list trained included) and every variable."""
import keras
import numpy as np
import pytest
import tensorflow as tf

import janus
from janus.graphgen import keras_epoch

CALLS = 8


class State:
    """The program's state: models and optimizer as attributes."""

    def __init__(self, **parts):
        self.__dict__.update(parts)

    def variables(self):
        return [v for part in vars(self).values() if isinstance(part, keras.Model)
                for v in part.variables]


def _sequential(name, units, inputs, norm=False):
    layers = [keras.Input((inputs,))]
    for k, width in enumerate(units):
        layers.append(keras.layers.Dense(width, name=f"{name}{k}"))
        if norm and k == 0:
            layers.append(keras.layers.BatchNormalization(name=f"{name}_norm"))
    return keras.Sequential(layers, name=name)


def _batch(i):
    return tf.constant(np.random.RandomState(i).randn(4, 4), tf.float32)


def _numbers(result):
    return [round(float(v), 5) if hasattr(v, "numpy") else v for v in result]


def _compare(make, step, between=lambda state, i: None, calls=CALLS):
    """Run `step` plainly and jitted on fresh states; assert every call agrees. Returns
    the jitted function (for its stats)."""
    jitted = janus.jit(step)
    runs = {}
    for name, fn in (("plain", step), ("janus", jitted)):
        keras.utils.set_random_seed(0)
        state = make()
        rows = []
        for i in range(calls):
            between(state, i)
            rows.append((_numbers(fn(state, _batch(i))),
                         [v.numpy().copy() for v in state.variables()]))
        runs[name] = rows
    for i, ((result, variables), (j_result, j_variables)) in enumerate(
            zip(runs["plain"], runs["janus"])):
        assert j_result == result, f"call {i}: plain {result}, janus {j_result} " \
                                   f"({janus.stats(jitted)})"
        for v, w in zip(variables, j_variables):
            np.testing.assert_allclose(w, v, rtol=1e-5, atol=1e-6, err_msg=f"call {i}")
    return jitted


def _one_model():
    return State(model=_sequential("net", (3, 1), 4), opt=keras.optimizers.SGD(0.1))


def _train(state, x, training=None):
    variables = state.model.trainable_variables
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(state.model(x, training=training)))
    grads = tape.gradient(loss, variables)
    state.opt.apply_gradients(zip(grads, variables))
    return len(variables), loss


def test_layer_frozen_between_calls_is_not_trained():
    def between(state, i):
        if i == 4:
            state.model.layers[0].trainable = False  # fine-tuning: the first layer frozen
        if i == 6:
            state.model.layers[0].trainable = True

    jitted = _compare(_one_model, _train, between)
    assert janus.stats(jitted).graph_calls >= 5


def test_trainable_toggled_every_call_reuses_its_graphs():
    def between(state, i):
        state.model.layers[0].trainable = i % 2 == 0

    jitted = _compare(_one_model, _train, between, calls=10)
    stats = janus.stats(jitted)
    assert stats.generations == 2 and stats.graph_calls == 8


def test_variable_flags_read_in_a_comprehension():
    def step(state, x):
        variables = [v for v in state.model.variables if v.trainable]
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(state.model(x)))
        state.opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return len(variables), loss

    def between(state, i):
        if i == 4:
            state.model.layers[1].trainable = False

    _compare(_one_model, step, between)


def _gan():
    generator = _sequential("g", (3,), 2)
    discriminator = _sequential("d", (1,), 3)
    opt = keras.optimizers.SGD(0.1)
    opt.build(generator.trainable_variables + discriminator.trainable_variables)
    return State(g=generator, d=discriminator, opt=opt)


def _generator_step(state, x):
    """Keras' GAN idiom: the discriminator frozen while the generator trains through it."""
    state.d.trainable = False
    variables = state.g.trainable_variables + state.d.trainable_variables
    with tf.GradientTape() as tape:
        loss = -tf.reduce_mean(state.d(state.g(x[:, :2])))
    if variables:
        state.opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    state.d.trainable = True
    return len(variables), len(state.d.trainable_variables), loss


def test_trainable_toggled_inside_the_call():
    jitted = _compare(_gan, _generator_step)
    stats = janus.stats(jitted)
    assert stats.graph_calls == CALLS - 2 and stats.generations == 1


def test_trainable_toggled_inside_the_call_and_between_calls():
    def between(state, i):
        state.g.trainable = i % 3 != 2  # (a frozen generator: nothing to train)

    _compare(_gan, _generator_step, between)


def _normalized():
    model = _sequential("bn", (3, 1), 4, norm=True)
    return State(model=model, norm=model.layers[1], opt=keras.optimizers.SGD(0.1))


def test_batch_norm_frozen_between_calls_runs_in_inference_mode():
    def step(state, x):
        return [tf.reduce_mean(state.model(x, training=True))]

    def between(state, i):
        if i == 4:
            state.norm.trainable = False  # BatchNormalization's `call` reads it

    _compare(_normalized, step, between)


def test_batch_norm_frozen_inside_the_call():
    def step(state, x):
        state.norm.trainable = False
        result = _train(state, x, training=True)
        state.norm.trainable = True
        return result

    jitted = _compare(_normalized, step)
    assert janus.stats(jitted).graph_calls == CALLS - 2


def _grown():
    return State(model=_sequential("grown", (3,), 4), opt=keras.optimizers.SGD(0.1))


def _add_layer(state, i):
    if i == 4:
        state.model.add(keras.layers.Dense(1, name="added"))  # its call changes too


def test_layer_added_between_calls_is_trained_and_called():
    def step(state, x):
        variables = state.model.trainable_variables
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(state.model(x)))
        for variable, grad in zip(variables, tape.gradient(loss, variables)):
            variable.assign_sub(0.1 * grad)
        return len(variables), loss

    _compare(_grown, step, _add_layer)


def test_layer_added_between_calls_is_called():
    def step(state, x):
        return [tf.reduce_sum(state.model(x))]

    _compare(_grown, step, _add_layer)


def test_guard_describes_the_lists_it_read():
    jitted = janus.jit(_train)
    keras.utils.set_random_seed(0)
    state = _one_model()
    for i in range(3):
        jitted(state, _batch(i))
    lines = jitted.specializations[0].guards.describe()
    assert any("args[0].model.trainable_variables is the same 4 objects" in line
               for line in lines), lines


def test_epoch_moves_only_when_a_flag_changes():
    keras_epoch.install()
    model = _sequential("epoch", (2,), 2)
    before = keras_epoch.EPOCH.n
    model.trainable = True  # already: nothing changes
    assert keras_epoch.EPOCH.n == before
    model.trainable = False
    assert keras_epoch.EPOCH.n > before
