"""A helper doing what a graph refuses (a `.numpy()` janus cannot keep) called from the
jitted step: the refusal the profile records is located at the step's line that calls
the helper, so the split breaks that line only and the step's tensor work around it runs
as segment graphs (F485). Before, the refusal named the helper's line, which is no line
of the step: the split had no line and the whole step ran eagerly every call."""
import numpy as np
import tensorflow as tf

import janus
from tests.differential import assert_same


class State:
    def __init__(self):
        self.w = tf.Variable(np.linspace(-1.0, 1.0, 12).reshape(4, 3).astype(np.float32))
        self.log = []


def to_number(v):
    if hasattr(v, "numpy"):
        v = v.numpy()
    return float(v)


def step(s, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ s.w - y))
    s.w.assign_sub(0.05 * tape.gradient(loss, s.w))
    s.log.append(round(to_number(loss), 5))
    return loss * 2.0


def test_a_helpers_refusal_breaks_the_calling_line_only(any_size):
    import inspect
    lines, first = inspect.getsourcelines(step)
    call = first + next(i for i, s in enumerate(lines) if "to_number(loss)" in s)
    rng = np.random.RandomState(0)
    calls = [(tf.constant(rng.randn(2, 4).astype(np.float32)),
              tf.constant(rng.randn(2, 3).astype(np.float32))) for _ in range(10)]
    jitted = janus.jit(step, segments=True)
    stats = assert_same(step, calls, make_state=State, jitted=jitted)
    split = jitted.segmented
    assert split is not None and call in split.breaks, jitted.explain()
    assert "to_number" in split.breaks[call].reason, split.breaks[call].reason
    assert stats.segment_graph_calls > 0, jitted.explain()
