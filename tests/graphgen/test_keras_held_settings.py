"""Keras settings a graph kept beyond F188's (session 27, probes): a learning rate set
inside the call through the optimizer's property (F190), an optimizer update run as its
own graph by mixed mode (F191), a callable or swapped learning rate (F192), the settings of
regularizers, constraints and losses (F193). Compared with plain Python call by call."""
import functools

import keras
import numpy as np
import tensorflow as tf

from tests.differential import assert_same


class State:
    def __init__(self, lr=0.1, clipvalue=None, loss=None):
        keras.utils.set_random_seed(0)
        self.v = tf.Variable([1.0, -2.0])
        self.opt = keras.optimizers.SGD(lr, clipvalue=clipvalue)
        self.opt.build([self.v])
        self.log = []
        self.n = 0
        self.loss = loss


def _descend(s, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(s.v * x)
    s.opt.apply_gradients(zip(tape.gradient(loss, [s.v]), [s.v]))
    return loss


# -- F190: a write to a library property inside the call

def lr_set_inside(s, x, lr):
    s.opt.learning_rate = lr  # (Keras' setter assigns its variable: the update reads it)
    return _descend(s, x)


def test_a_learning_rate_set_inside_the_call_is_the_one_applied():
    calls = [(tf.constant([1.0, float(i)]), tf.constant(0.1 / (i + 1))) for i in range(6)]
    assert_same(lr_set_inside, calls, State)


def lr_halved_inside(s, x):
    s.n += 1
    if s.n % 3 == 0:
        s.opt.learning_rate = s.opt.learning_rate * 0.5
    return _descend(s, x)


def test_a_learning_rate_halved_inside_the_call():
    assert_same(lr_halved_inside, [(tf.constant([1.0, float(i)]),) for i in range(7)], State)


# -- F191: mixed mode's optimizer update graph

def descend_logged(s, g):
    s.opt.apply_gradients([(g, s.v)])
    s.log.append(s.v.numpy().tolist())  # (a graph break: the call runs mixed)


def _clip_between(i, s, g):
    s.opt.clipvalue = 1.0 / (i + 1)
    return (s, g)


def test_a_clip_changed_between_calls_is_the_mixed_update_s():
    g = tf.constant([10.0, -10.0])
    calls = [(lambda s, i=i: _clip_between(i, s, g)) for i in range(6)]
    assert_same(descend_logged, calls, lambda: State(clipvalue=1.0))


def clip_set_inside(s, g):
    s.n += 1
    s.opt.clipvalue = 0.5 / s.n  # (a trace refuses it: the call runs mixed)
    s.opt.apply_gradients([(g, s.v)])
    return s.v + 0.0


def test_a_clip_set_inside_the_call_is_the_mixed_update_s():
    assert_same(clip_set_inside, [(tf.constant([10.0, -10.0]),) for _ in range(6)],
                lambda: State(clipvalue=1.0))


# -- F192: a learning rate's object

LR = {"value": 0.1}


def _callable_lr_state():
    LR["value"] = 0.1
    return State(lr=lambda: LR["value"])


def _decayed(i, s, x):
    LR["value"] = 0.1 / (i + 1)  # (the user's decay, between calls)
    return (s, x)


def test_a_python_callable_learning_rate_is_called_on_each_call():
    x = tf.constant([3.0, 4.0])
    calls = [(lambda s, i=i: _decayed(i, s, x)) for i in range(6)]
    assert_same(_descend, calls, _callable_lr_state)


def _schedule_swapped(i, s, x):
    if i == 3:
        s.sched = keras.optimizers.schedules.ExponentialDecay(0.5, 1, 0.5)
        s.opt.learning_rate = s.sched
    if i == 5:
        s.sched.decay_rate = 0.9  # (read by the schedule Keras calls)
    return (s, x)


def test_a_schedule_swapped_in_or_changed_between_calls():
    x = tf.constant([3.0, 4.0])
    calls = [(lambda s, i=i: _schedule_swapped(i, s, x)) for i in range(8)]
    assert assert_same(_descend, calls, State).graph_calls > 0


# -- F193: what a layer or a loss holds

class Held:
    def __init__(self):
        keras.utils.set_random_seed(0)
        self.d = keras.layers.Dense(2, kernel_regularizer=keras.regularizers.L2(0.01),
                                    kernel_constraint=keras.constraints.MaxNorm(2.0))
        self.d.build((None, 3))
        self.opt = keras.optimizers.SGD(0.5)
        self.huber = keras.losses.Huber(delta=1.0)


def fit(s, x):
    with tf.GradientTape() as tape:
        y = s.d(x)
        loss = s.huber(tf.zeros_like(y), y) + tf.add_n(s.d.losses)
    grads = tape.gradient(loss, s.d.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.d.trainable_variables))
    return loss


def _held_change(i, s, x):
    if i == 3:
        s.d.kernel_regularizer.l2 = 0.5
    if i == 5:
        s.d.kernel_constraint.max_value = 0.3
    if i == 7:
        s.huber.reduction = "sum"
    return (s, x)


def test_held_regularizer_constraint_and_loss_settings_changed_between_calls():
    x = tf.constant([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    calls = [(lambda s, i=i: _held_change(i, s, x)) for i in range(9)]
    assert assert_same(fit, calls, Held).graph_calls > 0


def _kwargs_rebound(i, s, x):
    if i == 3:
        s.huber._fn_kwargs = {"delta": 0.1}
    return (s, x)


def test_a_loss_s_keyword_arguments_rebound_between_calls():
    x = tf.constant([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    calls = [(lambda s, i=i: _kwargs_rebound(i, s, x)) for i in range(6)]
    assert assert_same(fit, calls, Held).graph_calls > 0


def held_set_inside(s, x, n):
    s.d.kernel_regularizer.l2 = 0.1 * (n % 3)  # (Keras reads it in `s.d.losses`)
    s.huber.reduction = "sum" if n % 2 else "sum_over_batch_size"
    return fit(s, x)


def test_held_settings_set_inside_the_call_are_the_ones_keras_reads():
    x = tf.constant([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    assert_same(held_set_inside, [(x, n) for n in range(6)], Held)


# -- F230: lists and dicts Keras objects hold, changed in place

class HeldContainers:
    def __init__(self):
        self.huber = keras.losses.Huber(delta=1.0)
        self.sched = keras.optimizers.schedules.PiecewiseConstantDecay([5, 10], [1.0, 0.5, 0.1])
        self.resc = keras.layers.Rescaling(scale=[1.0, 2.0])


def _change_held(s, i):
    if i == 3:
        s.huber._fn_kwargs["delta"] = 0.1
    if i == 5:
        s.sched.values[0] = 3.0
    if i == 7:
        s.resc.scale[1] = 5.0
    return (s, tf.constant([[1.0, 4.0]]))


def held_in_place(s, x):
    return s.huber(x, tf.zeros_like(x)) * s.sched(tf.constant(2)) + s.resc(x)


def test_held_lists_and_dicts_changed_in_place_between_calls():
    stats = assert_same(held_in_place, [lambda s, i=i: _change_held(s, i) for i in range(10)],
                        HeldContainers)
    assert stats.graph_calls >= 3


# -- session 29 (F281): what Keras holds beyond numbers and functions: a Lambda's
# `arguments`, a partial activation, a schedule holding a schedule

def scale_shift(x, k, b):
    return x * k + b


def leaky(x, alpha):
    return tf.nn.leaky_relu(x, alpha=alpha)


class WarmUp(keras.optimizers.schedules.LearningRateSchedule):
    """BERT's shape: a warmup, then the schedule it holds."""

    def __init__(self, after, warmup):
        self.after, self.warmup = after, warmup

    def __call__(self, step):
        s = tf.cast(step, tf.float32)
        return tf.cond(s < self.warmup, lambda: 0.1 * (s + 1.0) / self.warmup,
                       lambda: self.after(step))


class Wrapped:
    def __init__(self):
        keras.utils.set_random_seed(0)
        self.lam = keras.layers.Lambda(scale_shift, arguments={"k": 2.0, "b": 0.0})
        self.lib = keras.layers.Dense(2, activation=functools.partial(tf.nn.leaky_relu,
                                                                      alpha=0.1))
        self.mine = keras.layers.Dense(2, activation=functools.partial(leaky, alpha=0.1))
        self.v = tf.Variable([1.0, -2.0])
        self.sched = WarmUp(keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5), 2.0)
        self.opt = keras.optimizers.SGD(self.sched)
        self.opt.build([self.v])


def wrapped_step(s, x):
    _descend(s, x[0])
    return s.lam(x) + s.lib(x) + s.mine(x) + s.v[0]


def _wrapped_change(i, s):
    change = {3: lambda: s.lam.arguments.__setitem__("k", 5.0),
              4: lambda: setattr(s.lam, "arguments", {"k": 3.0, "b": 1.0}),
              5: lambda: setattr(s.lib, "activation",
                                 functools.partial(tf.nn.leaky_relu, alpha=0.5)),
              6: lambda: s.mine.activation.keywords.__setitem__("alpha", 0.7),
              7: lambda: setattr(s.sched.after, "initial_learning_rate", 1.0),
              8: lambda: setattr(s.sched, "after",
                                 keras.optimizers.schedules.ExponentialDecay(2.0, 5, 0.9))}
    change.get(i, lambda: None)()
    return (s, tf.constant([[-1.0, 2.0]]))


def test_keras_held_arguments_partials_and_nested_schedules_changed_between_calls():
    calls = [lambda s, i=i: _wrapped_change(i, s) for i in range(12)]
    stats = assert_same(wrapped_step, calls, Wrapped)
    assert stats.graph_calls >= 3, stats
