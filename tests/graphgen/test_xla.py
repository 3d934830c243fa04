"""XLA is tried per specialization (opt-in) and kept only where it is faster; results
stay those of plain Python either way."""
import numpy as np
import tensorflow as tf

import janus
from janus.graphgen import xla


def cell(w, h, x):
    for _ in range(4):
        h = tf.tanh(tf.matmul(h, w) + x)
    return tf.reduce_sum(h)


def test_xla_trial_decides_and_results_stay_equal():
    w = tf.constant(np.full((8, 8), 0.05, np.float32))
    jitted = janus.jit(cell, xla=True)
    for i in range(5 + 2 * xla.ROUNDS + 3):
        h, x = tf.ones([2, 8]) * i, tf.ones([2, 8])
        np.testing.assert_allclose(jitted(w, h, x).numpy(), cell(w, h, x).numpy(), rtol=1e-5)
    spec = jitted.specializations[0]
    assert spec.xla.startswith(("on", "off"))
    assert spec.trial is None
    assert "xla:" in spec.describe()


def test_dynamic_shapes_are_not_tried():
    jitted = janus.jit(cell, xla=True)
    w = tf.constant(np.full((8, 8), 0.05, np.float32))
    for n in [1, 2, 3, 4, 5, 6, 7, 8, 9]:
        h = tf.ones([n, 8])
        np.testing.assert_allclose(jitted(w, h, h).numpy(), cell(w, h, h).numpy(), rtol=1e-5)
    dynamic = [spec for spec in jitted.specializations
               if any(d is None for _, _, (_, shape) in spec.inputs for d in shape)]
    assert dynamic and all(spec.xla == "" and spec.trial is None for spec in dynamic)
