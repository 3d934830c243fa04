"""A loop whose trace really fails inside its segment is opened (issue 10): the loop runs
in Python and its body is split again around the failing statement, which becomes a break
of its own. The failure is only found while tracing (a host helper iterating a numpy
array), not from the source. Compared with plain Python call by call."""
import numpy as np
import tensorflow as tf

import janus
from tests.differential import assert_same


class Env:
    def __init__(self):
        self.state = np.array([0.5, -0.25, 1.0], np.float32)
        self.log = []

    def step(self, k):
        total = 0.0
        for e in self.state:          # iterating a numpy array: no graph can do this
            total = total + float(e) * (k + 1)
        self.state = self.state * 0.5 + np.float32(k)
        self.log.append(round(total, 4))
        return total


def walk(env, x, steps):
    acc = tf.zeros([3])
    for t in range(steps):
        acc = acc * 0.5 + tf.tanh(x * 1.5 + acc) * 2.0
        r = env.step(t)
        acc = acc + tf.sin(acc) * r * 0.01
    return tf.reduce_sum(acc)


def test_a_trace_failing_inside_a_loop_opens_the_loop(any_size):
    import inspect
    lines, first = inspect.getsourcelines(walk)
    loop = first + next(i for i, s in enumerate(lines) if "for t in range" in s)
    call = first + next(i for i, s in enumerate(lines) if "env.step(t)" in s)
    jitted = janus.jit(walk, segments=True)
    calls = [(tf.constant([0.1 * k, -0.2, 0.3]), 2 + k % 3) for k in range(10)]
    stats = assert_same(walk, calls, make_state=Env, jitted=jitted)
    split = jitted.segmented
    assert loop in split.opened, jitted.explain()
    assert call in split.breaks, jitted.explain()
    assert "numpy" in split.breaks[call].reason
    # the loop's body still runs as graphs around the break
    body = [s for s in split.segments if loop < s.stretch.first_line and s.stretch.first_line != call]
    assert body and stats.segment_graph_calls > 0, jitted.explain()
    text = jitted.explain()
    assert f":{loop} (its body split)" in text and f":{call}: " in text, text
