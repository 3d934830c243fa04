"""An optimizer of the program's class runs its update plainly in a mixed step (F310).

A step janus runs mixed (split by `.numpy()`) makes a library optimizer's
`apply_gradients` one graph of its update ops (fallback/mixed.py). A subclass of the
program's whose `update_step` reads `self.scale`, or whose `apply_gradients` counts its
calls, would run that code once, at the graph's trace: its update must run plainly.
A subclass defining only its construction keeps the graph. So, since F332, does one
whose methods only read what a guard checks before each run (held_code.program_methods:
`self.scale`, a LARS's `eta` and slot list, a class constant): the graph is made again
when they change; one that writes (counts its calls), prints or reads a global runs
plainly.
"""
import keras
import numpy as np
import pytest
import tensorflow as tf

from janus.fallback import mixed
from tests.differential import assert_same



class ScaledSGD(keras.optimizers.Optimizer):
    def __init__(self, learning_rate=0.1, scale=1.0, **kw):
        super().__init__(learning_rate=learning_rate, name="scaled_sgd", **kw)
        self.scale = scale

    def update_step(self, grad, var, lr):
        self.assign_sub(var, tf.cast(lr, var.dtype) * self.scale * grad)


class CountingSGD(keras.optimizers.SGD):
    def __init__(self, *a, **kw):
        super().__init__(*a, name="counting_sgd", **kw)
        self.applied = 0
        self.factor = 1.0

    def apply_gradients(self, grads_and_vars):
        self.applied += 1
        return super().apply_gradients([(g * self.factor, v) for g, v in grads_and_vars])


class MomentumLars(keras.optimizers.Optimizer):
    def __init__(self, learning_rate=0.1, eta=0.001, **kw):
        super().__init__(learning_rate=learning_rate, name="lars", **kw)
        self.eta = eta

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self.moms = [self.add_variable_from_reference(v, "mom") for v in var_list]

    def update_step(self, grad, var, lr):
        m = self.moms[self._get_variable_index(var)]
        trust = self.eta * tf.norm(var) / (tf.norm(grad) + 1e-9)
        self.assign(m, 0.9 * m + tf.cast(lr, var.dtype) * trust * grad)
        self.assign_sub(var, m)


class PresetAdam(keras.optimizers.Adam):
    def __init__(self):
        super().__init__(learning_rate=0.05, name="preset_adam")


class State:
    def __init__(self, make_optimizer):
        self.w = tf.Variable([1.0, 2.0])
        self.opt = make_optimizer()
        self.log = []


def step(s, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(s.w * s.w * x)
    s.log.append(float(loss.numpy()))  # (not convertible: the step runs mixed)
    s.opt.apply_gradients([(tape.gradient(loss, s.w), s.w)])
    return loss


def step_refused(s, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(s.w * s.w * x)
    s.opt.apply_gradients([(tape.gradient(loss, s.w), s.w)])  # (refused in a trace: split)
    return loss


def _calls(n, change_at, change):
    def make(i):
        def call(s):
            if i == change_at:
                change(s.opt)
            return (tf.constant([1.0, 0.5]),)
        return call
    return [make(i) for i in range(n)]


@pytest.mark.parametrize("fn", [step, step_refused])
def test_a_program_optimizer_attribute_read_in_update_step_is_read_every_call(fn):
    assert_same(fn, _calls(16, 8, lambda o: setattr(o, "scale", 100.0)),
                lambda: State(lambda: ScaledSGD(0.01)), segments=False)


def test_a_program_apply_gradients_override_runs_its_python_every_call():
    assert_same(step, _calls(16, 8, lambda o: setattr(o, "factor", 10.0)),
                lambda: State(lambda: CountingSGD(0.01)), segments=False)


@pytest.mark.parametrize("fn", [step, step_refused])
def test_a_program_optimizer_with_its_own_build_and_slots_follows_its_settings(fn):
    assert_same(fn, _calls(16, 8, lambda o: setattr(o, "eta", 0.05)),
                lambda: State(lambda: MomentumLars(0.5)), segments=False)


def test_a_program_optimizer_class_constant_is_read_every_call():
    def make_state():
        class ConstSGD(keras.optimizers.SGD):  # (a class per side: its constant changes)
            SCALE = 1.0

            def update_step(self, grad, var, lr):
                self.assign_sub(var, tf.cast(lr, var.dtype) * type(self).SCALE * grad)
        return State(lambda: ConstSGD(0.01, name="const_sgd"))
    assert_same(step, _calls(16, 8, lambda o: setattr(type(o), "SCALE", 7.0)), make_state,
                segments=False)


def _step_of(make_optimizer, change):
    """(plain, janus) states after 16 steps run side by side. (Under pytest, assert_same's
    run of this step does not reach the mixed update: its trace fails first, "step() missing
    1 required positional argument" — a lead for later; a plain script does reach it.)"""
    import janus
    states = State(make_optimizer), State(make_optimizer)
    jitted = janus.jit(step, segments=False)
    for i in range(16):
        for s, fn in zip(states, (step, jitted)):
            if i == 8:
                change(s.opt)
            fn(s, tf.constant([1.0, 0.5]))
    return states


@pytest.mark.parametrize("make_optimizer, change", [
    (lambda: ScaledSGD(0.01), lambda o: setattr(o, "scale", 100.0)),
    (lambda: CountingSGD(0.01), lambda o: setattr(o, "factor", 10.0)),
    (lambda: MomentumLars(0.5), lambda o: setattr(o, "eta", 0.05)),
])
def test_a_mixed_step_runs_a_program_optimizer_update_plainly(make_optimizer, change):
    plain, jitted = _step_of(make_optimizer, change)
    np.testing.assert_allclose(jitted.w.numpy(), plain.w.numpy(), rtol=1e-5, atol=1e-6)
    assert getattr(jitted.opt, "applied", 0) == getattr(plain.opt, "applied", 0)
    assert not mixed._library_update(plain.opt)


def test_a_library_optimizer_and_a_construction_only_subclass_keep_the_update_graph():
    assert mixed._library_update(keras.optimizers.Adam(0.1))
    before = mixed.update_builds
    plain, jitted = _step_of(PresetAdam, lambda o: None)
    np.testing.assert_allclose(jitted.w.numpy(), plain.w.numpy(), rtol=1e-5, atol=1e-6)
    assert mixed.update_builds > before


def _const_sgd():
    class ConstSGD(keras.optimizers.SGD):  # (a class per side: its constant changes)
        SCALE = 1.0

        def update_step(self, grad, var, lr):
            self.assign_sub(var, tf.cast(lr, var.dtype) * type(self).SCALE * grad)
    return ConstSGD(0.01, name="const_sgd")


@pytest.mark.parametrize("make_optimizer, change", [
    (lambda: ScaledSGD(0.01), lambda o: setattr(o, "scale", 100.0)),
    (lambda: MomentumLars(0.5), lambda o: setattr(o, "eta", 0.05)),
    (_const_sgd, lambda o: setattr(type(o), "SCALE", 7.0)),
])
def test_a_program_optimizer_whose_reads_are_guarded_keeps_the_update_graph(
        make_optimizer, change):
    # (F332: its update ran plainly; now a graph, made again when what it read changed)
    before = mixed.update_builds
    plain, jitted = _step_of(make_optimizer, change)
    np.testing.assert_allclose(jitted.w.numpy(), plain.w.numpy(), rtol=1e-5, atol=1e-6)
    assert mixed.update_builds - before == 2  # (before and after the change)


G_SCALE = {"s": 1.0}


class GlobalSGD(keras.optimizers.SGD):
    def update_step(self, grad, var, lr):
        self.assign_sub(var, tf.cast(lr, var.dtype) * G_SCALE["s"] * grad)


def test_a_program_optimizer_reading_a_global_still_runs_its_update_plainly():
    before = mixed.update_builds
    plain, jitted = _step_of(lambda: GlobalSGD(0.01), lambda o: G_SCALE.update(s=5.0))
    np.testing.assert_allclose(jitted.w.numpy(), plain.w.numpy(), rtol=1e-5, atol=1e-6)
    assert mixed.update_builds == before
