"""Globals are guarded in the module they belong to, also for callees in other modules."""
import numpy as np
import tensorflow as tf

import janus
import other_module

SCALE = 2.0


def caller(x):
    return other_module.helper(x) + SCALE


def test_callee_globals_are_read_from_the_callee_module():
    jitted = janus.jit(caller)
    x = tf.constant([1.0, 2.0])
    for scale in [3.0, 3.0, 3.0, 3.0, 5.0, 5.0, 7.0]:
        other_module.SCALE = scale
        np.testing.assert_allclose(jitted(x).numpy(), caller(x).numpy())
    stats = janus.stats(jitted)
    assert stats.graph_calls >= 3
    guards = [line for spec in jitted.specializations for line in spec.guards.describe()]
    assert any(line.startswith("MOD['other_module']['SCALE']") for line in guards)
    assert any(line.startswith("G['SCALE'] == 2.0") for line in guards)
