"""A lambda made outside converted code (`get_lr = lambda: lr` of a factory, a schedule
`lambda: BASE * DECAY ** STEP`) is converted as the `def` it stands for; its reads of its
closure and of globals were not hooked (the converted `def janus__lambda` was taken for a
block janus made: transform/control_flow.OwnBody), so a graph kept the values of its
trace, unguarded (F165: a learning rate changed between calls stayed the first one)."""
import tensorflow as tf

import janus
from tests.differential import assert_same

BASE, DECAY, STEP = 0.5, 0.9, 0


def _factory():
    lr = 0.1

    def set_lr(value):
        nonlocal lr
        lr = value
    return set_lr, lambda: lr


SET_LR, GET_LR = _factory()
SCHEDULE = lambda: BASE * DECAY ** STEP  # noqa: E731 - the idiom under test


def scaled(x):
    return x * GET_LR() + SCHEDULE()


def _at(i):
    def call(_state=None):
        global STEP
        SET_LR(0.1 if i < 3 else 0.1 * i)  # (rebound between calls, outside janus)
        STEP = i // 2
        return (tf.constant([1.0, 2.0]),)
    return call


def test_a_lambda_s_closure_and_globals_are_read_on_each_call():
    stats = assert_same(scaled, [_at(i) for i in range(8)], jitted=janus.jit(scaled))
    assert stats.graph_calls >= 3, stats


def _counter():
    count = 0

    def bump(by):
        nonlocal count
        count += by
    return bump, lambda: count


def _stepper():
    bump, read = _counter()

    def step(x):
        bump(2)
        return x * float(read())
    return step


def test_a_lambda_reads_a_cell_the_call_stored_into():
    stats = assert_same(_stepper(), [(tf.constant(1.0),)] * 6, jitted=janus.jit(_stepper()))
    assert stats.graph_calls >= 2, stats
