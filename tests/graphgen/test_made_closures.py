"""Functions the traced call makes itself that TensorFlow runs unconverted (a
`@tf.custom_gradient` def, a `tf.function`, a `tf.recompute_grad` lambda), closing over
the program's objects: their reads are guarded through the source the object came from
(`args[0].cfg.scale`), not through the call's own cell, which a later call replaces (F340,
graphgen/made_closures.py); a number read so that changes per call is fed, not a graph
per value; janus's own runtime is never the program's data. Compared with plain Python
call by call."""
import functools

import keras
import tensorflow as tf

from tests.differential import assert_same

X = tf.constant([1.0, -2.0, 3.0])


class Cfg:
    def __init__(self, scale):
        self.scale = scale


class State:
    def __init__(self):
        self.cfg = Cfg(1.0)


def make(cfg):
    @tf.custom_gradient
    def f(x):
        return x * 1.0, lambda dy: dy * cfg.scale
    return f


def made_by_a_helper(s, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = make(s.cfg)(x)
    return tape.gradient(y, x)


def made_in_the_step(s, x):
    cfg = s.cfg

    def grad_of():
        return lambda dy: dy * cfg.scale

    @tf.custom_gradient
    def f(v):
        return tf.identity(v), grad_of()
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(f(x))
    return tape.gradient(y, x)


def made_with_a_default(s, x):
    @tf.custom_gradient
    def f(v, cfg=s.cfg):
        return tf.identity(v), lambda dy: dy * cfg.scale
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(f(x))
    return tape.gradient(y, x)


def a_tf_function_made_per_call(s, x):
    cfg = s.cfg

    @tf.function
    def h(v):
        return v * cfg.scale
    return h(x)


def a_local_object(s, x):
    cfg = Cfg(s.cfg.scale * 2.0)
    return made_by_a_helper_of(cfg, x)


def made_by_a_helper_of(cfg, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = make(cfg)(x)
    return tape.gradient(y, x)


def a_recompute_lambda(s, x):
    cfg = s.cfg
    f = tf.recompute_grad(lambda h: h * cfg.scale)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(f(x))
    return y, tape.gradient(y, x)


def _replacing(i):
    def entry(s):
        s.cfg = Cfg(1.0 if i < 5 else 3.0 + (i % 3))
        return (s, X)
    return entry


def test_functions_made_in_the_call_see_the_replaced_object():
    """F340: the object replaced between calls (`s.cfg = Cfg(...)`) reaches the gradient
    (the graph kept the first one's scale: a guard on the trace's own cell passed)."""
    for fn in (made_by_a_helper, made_in_the_step, made_with_a_default,
               a_tf_function_made_per_call, a_local_object):
        stats = assert_same(fn, [_replacing(i) for i in range(12)], make_state=State)
        assert stats.graph_calls >= 5, (fn.__name__, stats)


def test_a_converted_lambda_reading_janus_own_runtime_stays_a_graph():
    """M4 (session 31): a lambda janus converted, handed to tf.recompute_grad, reads
    `janus__` and hands `cfg` to janus's hooks: a graph (refused before)."""
    stats = assert_same(a_recompute_lambda, [_replacing(i) for i in range(12)],
                        make_state=State)
    assert stats.graph_calls >= 6, stats


class ReverseGradient(keras.layers.Layer):
    """DANN's gradient reversal: `call` (converted) makes the custom gradient per call,
    its gradient reads `self.lam` through the call's cell `self`."""

    def __init__(self):
        super().__init__(name="grl")
        self.lam = 0.0

    def call(self, x):
        @tf.custom_gradient
        def reverse(v):
            return tf.identity(v), lambda dy: -self.lam * dy
        return reverse(x)


class Dann:
    def __init__(self):
        self.grl = ReverseGradient()
        self.w = tf.Variable([0.5, -1.0, 2.0])
        self.it = 0


def dann_step(s, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(s.grl(x * s.w) ** 2)
    g = tape.gradient(loss, s.w)
    s.w.assign_sub(0.01 * g)
    return loss, g


def dann_step_annealing_itself(s, x):
    s.it += 1
    s.grl.lam = 2.0 / (1.0 + 2.718281828 ** (-s.it / 4.0)) - 1.0
    return dann_step(s, x)


def _annealed(i):
    def entry(s):
        s.it += 1
        s.grl.lam = 2.0 / (1.0 + 2.718281828 ** (-s.it / 4.0)) - 1.0
        return (s, X)
    return entry


def test_an_annealed_reversal_weight_is_fed_not_a_graph_per_value():
    """M2 (session 31): `s.grl.lam` annealed between calls, read by a gradient the layer's
    `call` makes per call: guarded through `args[0].grl.lam`, then fed (a guard on the
    call's own cell failed on every call before: a graph per value to the limit)."""
    stats = assert_same(dann_step, [_annealed(i) for i in range(16)], make_state=Dann)
    assert stats.graph_calls >= 10 and stats.generations <= 3, stats
    assert_same(dann_step_annealing_itself, [(X,) for _ in range(8)], make_state=Dann)
