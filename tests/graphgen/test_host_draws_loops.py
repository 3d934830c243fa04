"""numpy draws in the body of a loop that breaks on a tensor, built as one tf.while_loop
(janus/graphgen/loop_draws.py): each stream's position a tensor carried through the
loop, K an upper bound, the count used a graph output. Plain Python on one RNG and janus
on a twin, call by call: results bit for bit, the RNGs' states after every call.
"""
import numpy as np
import pytest
import tensorflow as tf

import janus
from tests.graphgen.test_host_draws import GEN, RS, _same, _state, run_twins


def before_and_after_the_test(rs, g, x, limit):
    total = x
    out = []
    for t in range(8):
        a = g.uniform(-1.0, 1.0)  # drawn in the stopping iteration too
        total = total + a
        if tf.reduce_sum(total) > limit:
            break
        b = rs.random_sample()  # not drawn where the iteration stops
        out.append(b)
        total = total * 0.9
    return total, len(out), out


def test_draws_before_and_after_the_exit_test_count_as_python_draws():
    calls = [(tf.constant(float(i % 4) * 0.1, tf.float64), 0.5 + (i % 3) * 0.4)
             for i in range(20)]
    stats = run_twins(before_and_after_the_test, lambda: (RS(1), GEN(2)), calls)
    assert stats.graph_calls >= 8, stats


def choose_in_episode(rs, x, w):
    total = tf.constant(0.0, tf.float64)
    actions = []
    for t in range(12):
        probs = tf.nn.softmax(tf.cast(tf.matmul(x, w), tf.float64))[0]
        action = rs.choice(3, p=probs)
        actions.append(action)
        x = x + tf.gather(w, action, axis=1)[None, :2] * 0.5
        total = total + probs[action]
        if total > 2.0:
            break
        noise = rs.uniform(-0.1, 0.1, size=2)
        x = x + tf.constant([[0.0, 0.0]]) + tf.cast(noise, tf.float32)[None, :]
    return total, actions, rs.random_sample(2)  # (after the loop: a tensor position)


@pytest.mark.parametrize("seed", range(3))
def test_choice_with_p_a_tensor_in_episodes_of_different_lengths(seed):
    data = np.random.RandomState(seed)
    w = tf.constant(data.normal(size=(2, 3)), tf.float32)
    calls = [(tf.constant(data.normal(size=(1, 2)) * (i % 3), tf.float32), w)
             for i in range(16)]
    stats = run_twins(choose_in_episode, lambda: (RS(seed + 10),), calls)
    assert stats.graph_calls >= 11 and stats.generations == 1, stats  # (one loop graph)


class Walker:
    """An environment drawing its noise from its own Generator in `step`."""

    def __init__(self, seed):
        self.rng = GEN(seed)
        self.x, self.v, self.steps = 0.0, 0.0, 0

    def step(self, push):
        force = 0.5 if push > 0 else -0.3
        self.v = self.v + 0.1 * force + self.rng.uniform(-0.05, 0.05)
        self.x = self.x + self.v
        self.steps += 1
        return self.x, self.x > 0.3 or self.x < -0.3 or self.steps >= 20


def walk(env, x):
    env.x, env.v, env.steps = 0.0, 0.0, 0
    ob = 0.0
    rewards = []
    for t in range(30):
        push = tf.reduce_sum(x) * 0.1 + ob
        ob, done = env.step(push)
        rewards.append(push)
        if done:
            break
    return len(rewards), env.steps, env.x


def test_an_environment_drawing_in_its_step_through_the_loop():
    plain, twin = Walker(3), Walker(3)
    jitted = janus.jit(walk)
    for i in range(14):
        x = tf.constant([0.3 * ((i % 5) - 2), 0.1])
        _same(walk(plain, x), jitted(twin, x))
        assert (plain.x, plain.v) == (twin.x, twin.v)
        assert _state(plain.rng) == _state(twin.rng), i
    assert janus.stats(jitted).graph_calls >= 5, janus.stats(jitted)


def guarded_episode(rs, x):
    total = x
    for t in range(6):
        total = total + rs.uniform(0.0, 1.0, size=2)
        if tf.reduce_max(total) > 3.0:
            break
    if tf.reduce_sum(x) > 0:  # specialized: the graph fails where the sign flips
        return total + rs.random_sample()
    return total - rs.random_sample()


def test_a_failed_guard_after_the_loop_leaves_the_rng_untouched():
    calls = [(tf.constant([0.1 * i, 0.2], tf.float64),) for i in range(1, 8)] + \
        [(tf.constant([v, 0.1], tf.float64),) for v in (-1.0, 2.0, -3.0, 0.5, -0.5)]
    stats = run_twins(guarded_episode, lambda: (RS(6),), calls)
    assert stats.graph_calls >= 4, stats


def bad_p_in_loop(rs, x, p):
    total = x
    for t in range(5):
        total = total + tf.cast(rs.choice(3, p=p), tf.float64)
        if total > 6.0:
            break
    return total


def test_p_numpy_refuses_in_the_loop_raises_as_numpy_and_keeps_the_rng():
    good = np.array([0.25, 0.25, 0.5])
    x = tf.constant(0.0, tf.float64)
    calls = [(x, good)] * 6 + [(x, np.array([0.3, 0.3, 0.5])), (x, good),
                               (x, np.array([0.5, 0.6, -0.1])), (x, good)]
    stats = run_twins(bad_p_in_loop, lambda: (RS(8),), calls)
    assert stats.graph_calls >= 4, stats


def first_draw_in_the_body(rs, x):
    total = x
    for t in range(4):
        if t > 0:  # (a tf.cond in the loop body: draws there are refused)
            total = total + rs.random_sample()
        if total > 1.5:
            break
        total = total + 0.25
    return total


def test_draws_in_a_tf_cond_of_the_loop_body_stay_plain_and_match_python():
    calls = [(tf.constant(0.1 * i, tf.float64),) for i in range(8)]
    run_twins(first_draw_in_the_body, lambda: (RS(9),), calls)


def list_repr(x):
    seen = []
    for t in range(6):
        x = x * 1.5
        seen.append(x)
        if tf.reduce_sum(x) > 4.0:
            break
    return repr(seen), len(seen)


def test_repr_of_a_list_grown_in_the_loop_is_python_s():
    """drawloop11-F100: `repr()` of a list a generalized loop grew gave janus's own
    text (`DynamicList(<tf.Tensor ...>)`); now it fails the trace (the call runs plainly)."""
    jitted = janus.jit(list_repr)
    for i in range(8):
        x = tf.constant([0.1 * (i % 4 + 1)])
        assert jitted(x) == list_repr(x), i


def p_of_the_loop_state(rs, w, steps):
    chosen = tf.constant(0, tf.int64)
    for t in range(6):
        p = tf.stack([w, 0.5 - w, tf.constant(0.5, tf.float64)])
        chosen = chosen + rs.choice(3, p=p)
        w = w + 0.2
        if t + 1 >= steps:  # (a tensor: how many steps varies per call)
            break
    return chosen, w


def test_a_p_numpy_refuses_in_a_later_iteration_raises_and_keeps_the_rng():
    """The in-graph checks of `p` run in the loop body: at iteration 4, `0.5 - w` < 0,
    the graph fails and the plain rerun raises as numpy does."""
    calls = [(tf.constant(0.1, tf.float64), tf.constant(s))
             for s in (2, 3, 1, 2, 3, 4, 2, 5, 3, 1, 6, 2)]
    stats = run_twins(p_of_the_loop_state, lambda: (RS(12),), calls)
    assert stats.graph_calls >= 5, stats


def two_loops(g, x):
    total = x
    for t in range(5):
        total = total + g.random()
        if total > 1.0:
            break
    for t in range(4):  # (starts at the first loop's count: a tensor)
        if total > 2.5:
            break
        total = total + g.uniform(0.0, 0.5, size=2)[1]
    return total, g.random()


def test_two_loops_drawing_from_one_generator():
    calls = [(tf.constant(0.2 * (i % 6), tf.float64),) for i in range(14)]
    stats = run_twins(two_loops, lambda: (GEN(21),), calls)
    assert stats.graph_calls >= 7, stats
