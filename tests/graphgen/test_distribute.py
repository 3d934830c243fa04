"""What a specialization assumes about tf.distribute (janus/graphgen/distribute.py), in
one process: OneDeviceStrategy needs no logical-device setup. Two devices:
tests/distribute/test_mirrored.py."""
import numpy as np
import tensorflow as tf

import janus


class Counter:
    def __init__(self):
        self.calls = 0
        self.outputs = []


def step(counter, x):
    counter.calls += 1
    y = x * 2.0 + 1.0
    counter.outputs.append(y)
    return y


def test_graph_traced_outside_a_strategy_is_not_run_inside_its_scope():
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    fn = janus.jit(step)
    counter, reference = Counter(), Counter()
    x = tf.constant([1.0, 2.0])
    for scoped in (False, False, False, False, True, True, True, False):
        if scoped:
            with strategy.scope():
                result = fn(counter, x)
        else:
            result = fn(counter, x)
        np.testing.assert_allclose(result, step(reference, x))
    assert counter.calls == reference.calls and len(counter.outputs) == len(reference.outputs)
    specs = fn.specializations
    assert len({spec.context for spec in specs}) == 2, [spec.context for spec in specs]
    assert fn.stats.graph_calls >= 4


def test_call_in_a_replica_context_runs_plainly():
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    fn = janus.jit(step)
    counter, reference = Counter(), Counter()
    x = tf.constant([3.0])
    for _ in range(4):
        result = strategy.run(fn, args=(counter, x))
        np.testing.assert_allclose(result, step(reference, x))
    assert counter.calls == reference.calls == 4
    assert all(not tf.is_tensor(y) or hasattr(y, "numpy") for y in counter.outputs)
    assert fn.stats.graph_calls == 0 and fn.stats.fallback_calls == 4


def test_strategy_run_of_a_user_function_inside_a_trace_is_traced_by_janus():
    """The function handed to strategy.run is janus's to trace: its effects happen on every
    call, as in eager (before: once, at trace time, with a symbolic tensor left in
    `counter.outputs`), and the steady state runs as graphs."""
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")

    def dist_step(counter, x):
        return strategy.run(step, args=(counter, x))

    fn = janus.jit(dist_step)
    counter, reference = Counter(), Counter()
    x = tf.constant([3.0])
    for _ in range(5):
        np.testing.assert_allclose(fn(counter, x), dist_step(reference, x))
    assert counter.calls == reference.calls == 5
    for y in counter.outputs:
        assert hasattr(y, "numpy"), y  # eager values, not symbolic ones
    assert fn.stats.graph_calls >= 2, fn.stats
