"""The body janus builds for a loop that breaks on a value (graphgen/exits.py) picks
each carried value at the exit test with `tf.where` only where the two may differ: a
value the iteration does not change after the test, or equal constants, cost no op on
every iteration. Compared with plain Python call by call."""
import numpy as np
import tensorflow as tf

import janus
from models.envs import Walker
from tests.differential import assert_same


def walk(env, w, start):
    env.state = np.array([start, 0.0])
    env.steps = 0
    obs = env.state.astype(np.float32)
    pushes, rewards = [], []
    for t in range(60):
        push = tf.reduce_sum(tf.convert_to_tensor(obs) * w)
        pushes.append(push)
        obs, reward, done = env.step(push)
        rewards.append(reward)
        if done:
            break
    return tf.stack(pushes), sum(rewards), len(rewards)


def _same_branches(graph_def) -> int:
    """SelectV2 ops whose two value inputs are one tensor, in any function body."""
    count = 0
    for fn in graph_def.library.function:
        for node in fn.node_def:
            if node.op == "SelectV2" and node.input[1] == node.input[2]:
                count += 1
    return count


def test_values_unchanged_after_the_exit_test_are_not_selected():
    calls = [(tf.constant([0.4 * (-1) ** i, 0.3]), 0.1 * (i % 5)) for i in range(10)]
    jitted = janus.jit(walk)
    stats = assert_same(walk, calls, make_state=lambda: Walker(1.0, 40), jitted=jitted)
    assert stats.graph_calls >= 4, stats
    loops = [spec for spec in jitted.specializations
             if spec.op_histogram().get("While", 0) + spec.op_histogram().get("StatelessWhile", 0)]
    assert loops, "the episode did not run as one tf.while_loop"
    for spec in loops:
        assert _same_branches(spec.concrete.graph.as_graph_def()) == 0
