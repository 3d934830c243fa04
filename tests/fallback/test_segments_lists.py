"""Lists that grow from step to step, handed across segments (issue 10).

A list a segment only appends to (`logps.append(...)`) is no assumption of its graph: its
length is neither guarded nor part of the segment's input structure, so one graph serves
every length. A list of tensors a segment reads (`tf.stack(values)`) is fed stacked, of any
length. A list of Python numbers whose length changes still costs a trace per length: that
segment runs inline. Every test compares janus with plain Python call by call.
"""
import numpy as np
import tensorflow as tf

import janus
from janus.fallback import trial
from janus.transform import segments
from tests.differential import assert_same


class Agent:
    def __init__(self):
        self.w = tf.Variable(np.linspace(-0.5, 0.5, 8).reshape(4, 2).astype(np.float32))
        self.v = tf.Variable(np.full((4, 1), 0.2, np.float32))
        self.rng = np.random.default_rng(7)
        self.lengths = []


def rollout(agent, obs, steps):
    """Per-step lists grow inside one tape; the loss reads them after the loop."""
    logps, values, rewards = [], [], []
    with tf.GradientTape() as tape:
        for t in range(steps):
            probs = tf.nn.softmax(tf.tanh(tf.matmul(obs, agent.w)) * 2.0)
            value = tf.reduce_sum(tf.matmul(obs, agent.v))
            action = int(agent.rng.choice(2, p=probs.numpy()[0] / probs.numpy()[0].sum()))
            logps.append(tf.math.log(probs[0, action]) * 1.0 + 0.0)
            values.append(tf.tanh(value) * 2.0 + 1.0)
            rewards.append(float(action))
            obs = obs * 0.9 + tf.cast(action, tf.float32) * 0.1
        stacked = tf.stack(values)
        loss = -tf.reduce_sum(tf.stack(logps) * tf.stop_gradient(stacked)) + \
            tf.reduce_sum(tf.square(stacked)) * 0.5
    grads = tape.gradient(loss, [agent.w, agent.v])
    agent.lengths.append(len(rewards))
    return loss, grads[0], grads[1]


def _segment_at(jitted, text: str):
    import inspect
    lines, first = inspect.getsourcelines(rollout)
    line = first + next(i for i, src in enumerate(lines) if text in src)
    found = [s for s in jitted.segmented.all_segments()
             if s.stretch.first_line <= line <= s.stretch.last_line]
    assert found, jitted.explain()
    return found[-1]


def test_appended_lists_do_not_cost_a_graph_per_length(any_size):
    jitted = janus.jit(rollout, segments=True)
    obs = np.array([[0.3, -0.2, 0.5, 0.1]], np.float32)
    calls = [(tf.constant(obs * (1 + k % 3)), 3 + k % 4) for k in range(10)]
    stats = assert_same(rollout, calls, make_state=Agent, jitted=jitted)
    assert stats.segment_graph_calls > 0
    appender = _segment_at(jitted, "logps.append")
    assert {"logps", "values", "rewards"} <= set(appender.stretch.inputs)
    assert {"logps", "values", "rewards"} <= appender.stretch.appended
    # the lists grow every step, yet the segment keeps one graph (the int action is fed)
    assert appender.state == "kept", jitted.explain()
    assert appender.jit.stats.generations <= 2, appender.jit.stats
    assert appender.jit.stats.graph_calls > 10


def test_a_list_of_tensors_read_after_the_loop_is_fed_stacked(any_size):
    jitted = janus.jit(rollout, segments=True)
    obs = np.array([[0.1, 0.2, -0.3, 0.4]], np.float32)
    calls = [(tf.constant(obs), 2 + k % 5) for k in range(12)]
    assert_same(rollout, calls, make_state=Agent, jitted=jitted)
    reader = _segment_at(jitted, "stacked = tf.stack(values)")
    assert reader.state in ("graph", "kept"), jitted.explain()
    assert reader.jit.stats.generations <= 2, reader.jit.stats


def test_structure_ignores_only_what_a_graph_does_not_assume():
    t = tf.constant(1.0)
    same = trial._structure
    # appended-only list (index 0): any length; tensors of one dtype: any length
    assert same(([1], [t]), frozenset({0})) == same(([1, 2, 3], [t, t]), frozenset({0}))
    # a list of numbers read by the segment: its length is an assumption
    assert same(([1.0],), frozenset()) != same(([1.0, 2.0],), frozenset())
    # mixed dtypes or non-tensors are not fed stacked
    assert same(([t, tf.constant(1)],)) != same(([t, tf.constant(1), t],))


def test_appended_only_is_read_from_the_stretch():
    import gast
    tree = gast.parse("xs.append(v)\nys.append(len(ys))\nzs.extend(w)\nn = len(zs)\n"
                      "ws.append(a)\nf = lambda: ws\n")
    found = segments.appended_only(tree.body, {"xs", "ys", "zs", "ws", "v"})
    assert found == {"xs"}
