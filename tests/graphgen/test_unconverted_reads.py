"""The program's functions janus runs unconverted (behind `@tf.custom_gradient` or
`tf.recompute_grad`, a Keras Loss's `call`, a Metric's `update_state`/`result`) stay in
the graph when they write no Python state and read only immutable values (guarded by
value: a module constant, a closure's float, `args.lam`, a loss's `self.gamma`) and
variables (by identity); changed between calls, the guards see it. Data they read
otherwise (a list, a counter they write, a value the call wrote before) still refuses
(F211, F213). Compared with plain Python call by call (graphgen/unconverted_reads.py)."""
import argparse
import functools

import keras
import tensorflow as tf

from tests.differential import assert_same

X = tf.constant([1.0, -2.0, 3.0])
GRL_SCALE = 0.3
ARGS = argparse.Namespace(grl_lambda=0.5, name="run")


@tf.custom_gradient
def scaled(x):
    def grad(dy):
        return GRL_SCALE * dy
    return tf.identity(x), grad


@tf.custom_gradient
def reversed_by_args(x):
    def grad(dy):
        return -ARGS.grl_lambda * dy
    return tf.identity(x), grad


def make_grl(lam):
    @tf.custom_gradient
    def grl(x):
        def grad(dy):
            return -lam * dy
        return tf.identity(x), grad
    return grl


def make_grl_of(args):
    @tf.custom_gradient
    def grl(x):
        def grad(dy):
            return -args.grl_lambda * dy
        return tf.identity(x), grad
    return grl


class Model:
    def __init__(self):
        self.args = argparse.Namespace(grl_lambda=0.5)
        self.grl_of_args = make_grl_of(self.args)
        self.w1 = tf.Variable([[0.5, -0.25, 1.0]] * 3)
        self.spare = tf.Variable([[1.0, 0.0, 2.0]] * 3)
        self.grl = make_grl(0.7)
        self.block = tf.recompute_grad(lambda h: h + tf.nn.relu(h @ self.w1))


def gradients(m, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        h = m.block(tf.reshape(x, [1, 3]))
        y = tf.reduce_sum(scaled(x) * 3.0) + tf.reduce_sum(reversed_by_args(x) * 5.0) + \
            tf.reduce_sum(m.grl(x) * 2.0) + tf.reduce_sum(h)
    return tape.gradient(y, [x, m.w1])


def written_first(m, x):
    m.args.grl_lambda = m.args.grl_lambda + 0.25  # (deferred: the gradient must see it)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(m.grl_of_args(x) * 5.0)
    return tape.gradient(y, x)


def test_custom_gradients_reading_constants_stay_graphs_and_see_changes():
    """F253: a gradient reading a module float, a closure's float, `args.grl_lambda`, a
    recompute_grad lambda reaching variables through `self`: graphs (refused before);
    the values and the variable changed between calls reach the gradients."""
    global GRL_SCALE

    def entry(i):
        def make(m):
            global GRL_SCALE
            if i in (5, 9):
                GRL_SCALE = 0.1 * i
                ARGS.grl_lambda = 0.05 * i
            if i == 7:
                m.w1 = m.spare
            return (m, X * float(i + 1))
        return make
    try:
        stats = assert_same(gradients, [entry(i) for i in range(12)], make_state=Model)
        assert stats.graph_calls >= 6, stats
        assert_same(written_first, [(X,) for _ in range(6)], make_state=Model)
    finally:
        GRL_SCALE, ARGS.grl_lambda = 0.3, 0.5


@tf.custom_gradient
def scaled_in_a_lambda(x):
    def grad(dy):
        scale = lambda v: v * GRL_SCALE  # noqa: E731
        return scale(dy) + ARGS.grl_lambda * dy
    return tf.identity(x), grad


def make_noting(m):
    @tf.custom_gradient
    def noting(x):
        def grad(dy):
            def note():
                m.notes += 1
                return dy
            return -note()
        return tf.identity(x), grad
    return noting


class Noting(Model):
    def __init__(self):
        super().__init__()
        self.notes = 0
        self.noting = make_noting(self)


def nested_gradients(m, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(scaled_in_a_lambda(x) * 3.0) + tf.reduce_sum(m.grl(x) * 2.0)
    return tape.gradient(y, x)


def noted_gradient(m, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(m.noting(x) * 3.0)
    return tape.gradient(y, x), m.notes


def test_custom_gradients_with_nested_code():
    """Session 29 (one bytecode reader, graphgen/held_bytecode.py: F259): a lambda inside
    the gradient reading a module float, guarded by value (a graph, changes seen); a
    counter written in a nested function refuses (it counts every call)."""
    global GRL_SCALE

    def entry(i):
        def make(m):
            global GRL_SCALE
            if i in (4, 7):
                GRL_SCALE = 0.1 * i
                ARGS.grl_lambda = 0.05 * i
            return (m, X * float(i + 1))
        return make
    try:
        stats = assert_same(nested_gradients, [entry(i) for i in range(10)], make_state=Model)
        assert stats.graph_calls >= 5, stats
        assert_same(noted_gradient, [(X,) for _ in range(5)], make_state=Noting)
    finally:
        GRL_SCALE, ARGS.grl_lambda = 0.3, 0.5


class SquaredError(keras.losses.Loss):
    def __init__(self):
        super().__init__(name="mse")

    def call(self, y_true, y_pred):
        return tf.square(y_true - y_pred)


class Focal(keras.losses.Loss):
    def __init__(self, gamma=2.0):
        super().__init__(name="focal")
        self.gamma = gamma

    def call(self, y_true, y_pred):
        return tf.abs(y_true - y_pred) ** self.gamma * self._weight()

    def _weight(self):
        return 0.5


class Errors(keras.metrics.Metric):
    def __init__(self):
        super().__init__(name="errors")
        self.wrong = self.add_weight(name="wrong", initializer="zeros")
        self.total = self.add_weight(name="total", initializer="zeros")
        self.scale = 1.0

    def update_state(self, y, p, sample_weight=None):
        self.wrong.assign_add(tf.reduce_sum(tf.abs(y - p)) * self.scale)
        self.total.assign_add(tf.cast(tf.size(y), self.dtype))

    def result(self):
        return self.wrong / tf.maximum(self.total, 1.0)


class Listed(keras.losses.Loss):
    def __init__(self):
        super().__init__(name="listed")
        self.weights_ = [1.0]

    def call(self, y_true, y_pred):
        return tf.square(y_true - y_pred) * self.weights_[-1]


class Losses:
    def __init__(self):
        self.w = tf.Variable([0.5, 1.0, -1.0])
        self.mse = SquaredError()
        self.focal = Focal()
        self.errors = Errors()
        self.listed = Listed()


def step(s, y, x):
    with tf.GradientTape() as tape:
        p = x * s.w
        loss = s.mse(y, p) + s.focal(y, p)
    s.w.assign_sub(0.01 * tape.gradient(loss, s.w))
    return loss, s.errors(y, p)


def listed(s, y, x):
    return s.listed(y, x * s.w)


def gamma_written(s, y, x):
    s.focal.gamma = s.focal.gamma + 1.0
    return s.focal(y, x * s.w)


def test_pure_keras_losses_and_metrics_stay_graphs():
    """F254: a Loss whose `call` reads only its arguments and `self.gamma` (guarded by
    value), a Metric whose state is variables (and a Python `scale` setting): graphs
    inside a tape (the whole step ran eagerly); settings changed between calls seen."""
    def entry(i):
        def make(s):
            if i in (5, 8):
                s.focal.gamma = 1.0 + i / 4
                s.errors.scale = 0.5 * i
            return (s, X, X * 0.5 + i)
        return make
    stats = assert_same(step, [entry(i) for i in range(11)], make_state=Losses)
    assert stats.graph_calls >= 5, stats


def test_keras_hooks_reading_data_or_a_setting_written_first_stay_plain_pythons():
    def entry(i):
        def make(s):
            s.listed.weights_.append(float(i))
            return (s, X, X + i)
        return make
    assert_same(listed, [entry(i) for i in range(6)], make_state=Losses)
    assert_same(gamma_written, [(X, X * 2.0) for _ in range(6)], make_state=Losses)


# -- a singledispatch implementation reading its argument (F398) ---------------------------

class Opt:
    def __init__(self, lr=0.1):
        self.lr = lr


class Scheduled(Opt):
    pass


class Tuned:
    def __init__(self):
        self.lr, self.schedule = 0.5, [1.0, 2.0]


@functools.singledispatch
def lr_of(opt):
    return 0.0


@lr_of.register
def _(opt: Opt):
    return opt.lr


@lr_of.register
def _(opt: Scheduled):
    return opt.lr * 2.0


@lr_of.register
def _(opt: Tuned):
    return opt.lr * opt.schedule[0]


@lr_of.register
def _(opt: dict):
    return opt["lr"]


class Optimizers:
    def __init__(self):
        self.opt = Opt()


def dispatched_step(s, x):
    return x * lr_of(s.opt)


def _set(i, change=None):
    def call(s):
        if change is not None:
            change(s)
        return s, tf.constant([1.0, float(i)])
    return call


def test_a_singledispatch_implementation_reading_its_argument_sees_changes():
    calls = [_set(i) for i in range(4)] + [
        _set(4, lambda s: setattr(s.opt, "lr", 10.0)), _set(5), _set(6),
        _set(7, lambda s: setattr(s, "opt", Scheduled(3.0))), _set(8),
        _set(9, lambda s: setattr(s, "opt", object())), _set(10),
        _set(11, lambda s: setattr(s, "opt", Opt(0.25))), _set(12)]
    stats = assert_same(dispatched_step, calls, Optimizers)
    assert stats.graph_calls >= 5


def test_a_singledispatch_implementation_reading_data_of_its_argument():
    def tuned(s):
        s.opt = Tuned()

    def scheduled(s):
        s.opt.schedule[0] = 5.0

    def as_dict(s):
        s.opt = {"lr": 0.5}

    def relearned(s):
        s.opt["lr"] = 7.0
    calls = [_set(0, tuned)] + [_set(i) for i in range(1, 4)] + [
        _set(4, scheduled), _set(5), _set(6, as_dict), _set(7), _set(8), _set(9, relearned),
        _set(10)]
    assert_same(dispatched_step, calls, Optimizers)
