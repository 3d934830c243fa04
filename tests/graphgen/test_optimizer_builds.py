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
