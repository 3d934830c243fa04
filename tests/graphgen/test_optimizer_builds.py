"""A Keras optimizer built on its first update, when that update first comes in a trace
(gradient accumulation: the optimizer steps every third call, after janus profiled).

F154: building in the trace left the optimizer marked built without its slots (the plain
rerun raised AttributeError); the refusal that fixed it made janus give up on the
function (zoo p02: every call split or plain). Now the call runs plainly, which builds
the optimizer, and the next call is traced again (errors.BuildsOnFirstCall)."""
import keras
import pytest
import tensorflow as tf

from tests.differential import assert_same


class Accumulating:
    def __init__(self, optimizer):
        self.w = tf.Variable([[0.5], [-0.25]])
        self.opt = optimizer
        self.accum = None
        self.micro = 0


def accumulate(s, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ s.w))
    (g,) = tape.gradient(loss, [s.w])
    s.accum = g if s.accum is None else s.accum + g
    s.micro += 1
    if s.micro == 3:
        s.opt.apply_gradients([(s.accum / 3.0, s.w)])
        s.accum, s.micro = None, 0
    return loss


@pytest.mark.parametrize("make", [lambda: keras.optimizers.SGD(0.1),
                                  lambda: keras.optimizers.Adam(0.1),
                                  lambda: keras.optimizers.RMSprop(0.05)],
                         ids=["SGD", "Adam", "RMSprop"])
def test_an_optimizer_first_applied_in_a_trace_is_built_by_a_plain_call(make):
    calls = [(tf.constant([[1.0, 2.0]]) * (1 + i % 2),) for i in range(18)]
    stats = assert_same(accumulate, calls, make_state=lambda: Accumulating(make()))
    assert stats.graph_calls >= 9, stats


class Adversarial:
    """A GAN-style state: the generator's optimizer steps every k-th call only, and its
    losses go to a history list in a dict of histories."""

    def __init__(self, prebuilt: bool):
        self.step = 0
        self.hist = {"d": [], "g": []}
        self.w = tf.Variable(tf.ones((4, 4)))
        self.v = tf.Variable(tf.ones((4, 4)) * 0.5)
        self.dopt = keras.optimizers.Adam(1e-3)
        self.gopt = keras.optimizers.Adam(1e-3)
        if prebuilt:
            self.dopt.build([self.w])
            self.gopt.build([self.v])


def adversarial_step(s, x, k):
    s.step += 1
    with tf.GradientTape() as t:
        d = tf.reduce_sum(tf.matmul(x, s.w) ** 2)
    s.dopt.apply_gradients([(t.gradient(d, s.w), s.w)])
    s.hist["d"].append(d)
    gl = None
    if s.step % k == 0:
        with tf.GradientTape() as t:
            gl = tf.reduce_sum(tf.matmul(x, s.v) ** 2)
        s.gopt.apply_gradients([(t.gradient(gl, s.v), s.v)])
        s.hist["g"].append(gl)
    return d, gl


def _optimizer_state(s) -> list:
    return [(int(o.iterations.numpy()), [v.numpy().round(5).tolist() for v in o.variables])
            for o in (s.dopt, s.gopt)]


@pytest.mark.parametrize("prebuilt", [False, True], ids=["built-in-branch", "prebuilt"])
def test_a_second_optimizer_stepping_in_a_rare_branch_keeps_graphs(prebuilt):
    # F356: its losses' list, which only the rare outcome appends to, was fed as a stacked
    # tensor once it grew, which the rare outcome cannot append to: 8-21% of the calls ran
    # as graphs; now a graph per outcome, both kept
    calls = [(tf.ones((4, 4)) * (i % 5), 3) for i in range(30)]
    stats = assert_same(adversarial_step, calls, make_state=lambda: Adversarial(prebuilt),
                        observe=_optimizer_state)
    assert stats.graph_calls >= 20, stats
