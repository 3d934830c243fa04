"""benchmarks/overhead.py `lockstep_cpu`: janus and the expert step in turns on the same
batches from fresh states (the same work), timed in process CPU (fields, not timings)."""
import types

import numpy as np
import tensorflow as tf

from benchmarks import overhead


class _State:
    def __init__(self):
        self.w = tf.Variable(np.ones((3,), np.float32))
        self.steps = 0


def _step(state, x):
    state.w.assign(state.w * 0.5 + x)
    state.steps += 1
    return tf.reduce_sum(state.w)


def _expert(state):
    @tf.function(autograph=False)
    def graph(x):
        state.w.assign(state.w * 0.5 + x)
        return tf.reduce_sum(state.w)

    def run(x):
        state.steps += 1
        return graph(x)
    return run


def test_both_take_the_same_steps_on_the_same_batches():
    made = []

    def make_state():
        made.append(_State())
        return made[-1]

    xs = [(tf.constant(np.full((3,), i, np.float32)),) for i in range(60)]
    workload = types.SimpleNamespace(make_state=make_state, step=_step, expert=_expert,
                                     batches=lambda n: xs[:n])
    cpu = overhead.lockstep_cpu(workload, steps=5, warmup=12)
    assert set(cpu) == {"janus", "expert"} and all(t > 0 for t in cpu.values())
    jit_state, expert_state = made
    assert 5 < jit_state.steps == expert_state.steps <= 17
    np.testing.assert_array_equal(jit_state.w.numpy(), expert_state.w.numpy())
