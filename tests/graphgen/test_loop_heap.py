"""Heap attributes written in a loop janus builds as one tf.while_loop (graphgen/
loop_heap.py): an environment object stepped until it says done, its numpy state and
Python step counter carried through the loop and written back once. Every test compares
janus with plain Python call by call (results, heap) on episodes of varying length."""
import numpy as np
import tensorflow as tf

from models.envs import Walker
from tests.differential import assert_same


def episode(env, w, obs):
    rewards = []
    total = tf.constant(0.0)
    for t in range(100):
        x = tf.convert_to_tensor(obs)
        push = tf.reduce_sum(x * w) + 0.05 * t
        obs, reward, done = env.step(push)
        rewards.append(reward)
        total = total + push
        if done:
            break
    return total, len(rewards)


def _episodes(n: int = 12):
    def call(i):
        def start(env):
            env.state = np.array([0.01 * i, -0.02 * (i % 3)])
            env.steps = 0
            return (env, tf.constant([0.3 * (-1) ** i, 0.2]), env.state.astype(np.float32))
        return start
    return [call(i) for i in range(n)]


def _stepped(env, w, obs):  # (the state object passed as the environment)
    return episode(env, w, obs)


def test_an_environment_stepped_until_done_runs_as_one_loop_graph():
    stats = assert_same(_stepped, _episodes(), make_state=Walker)
    # (without carried attributes, the loop is unrolled per trip count or runs plainly)
    assert stats.generations == 1 and stats.graph_calls >= 8, stats


def test_an_episode_cut_by_the_step_limit_writes_the_counter_back():
    stats = assert_same(_stepped, _episodes(8), make_state=lambda: Walker(5.0, 7))
    assert stats.graph_calls >= 4, stats


class Counter:
    def __init__(self):
        self.calls = 0
        self.last = tf.constant(0.0)


def count_until(c, xs):
    for i in range(10):
        c.calls += 1
        if tf.reduce_sum(xs[: i + 1]) > 2.0:
            break
        c.last = xs[i] * 2.0  # (after the exit test: not written where it stops)
    return c.last


def test_an_attribute_written_after_the_exit_test_keeps_its_value_where_the_loop_stops():
    calls = [(tf.constant([0.5, 0.7, 0.2, 0.9, 1.5, 0.1, 0.3, 0.4, 0.2, 0.1]) * (1 + k % 3),)
             for k in range(10)]
    stats = assert_same(count_until, calls, make_state=Counter)
    assert stats.graph_calls >= 5, stats


def mixed_done(env, push):
    x = env.state[0] + push
    env.state = np.array([x, 0.0])
    env.steps += 1
    done = abs(x) > 1.0 or env.steps >= 3
    return done  # (a numpy bool or a Python bool: plain Python's type, not the graph's)


def mixed_twice(env, push):
    first = mixed_done(env, push)
    return first, type(mixed_done(env, push)).__name__, bool(first)


def test_a_bool_of_either_type_is_not_handed_out_of_the_graph():
    calls = [(0.4,), (0.3,), (0.5,), (0.1,), (0.9,), (0.2,), (0.6,), (0.05,)]
    assert_same(mixed_done, calls, make_state=Walker)
    assert_same(mixed_twice, calls, make_state=Walker)


def state_as_numbers(env, x):
    env.state = env.state * 0.5 + 0.25
    xs = env.state.tolist()  # (a heap array's items as Python floats, in the graph)
    return x * xs[0] + xs[1], repr(xs), type(xs[1]).__name__


def test_tolist_of_a_fed_array_gives_python_floats():
    calls = [(tf.constant([1.0, 2.0]) * k,) for k in range(6)]
    stats = assert_same(state_as_numbers, calls, make_state=Walker)
    assert stats.graph_calls >= 3, stats


def taped_episode(env, w, obs):
    """The policy's gradient through an episode: the numpy state is a constant to the
    tape (janus cuts the loop's gradient there: no zeros backpropagated through the
    environment's arithmetic, loop_values.from_loop)."""
    with tf.GradientTape() as tape:
        tape.watch(w)
        total = tf.constant(0.0)
        for t in range(100):
            x = tf.convert_to_tensor(obs)
            push = tf.tanh(tf.reduce_sum(x * w)) + 0.05 * t
            obs, reward, done = env.step(push)
            total = total + push * reward
            if done:
                break
    return total, tape.gradient(total, w)


def _taped(env, w, obs):
    return taped_episode(env, w, obs)


def test_a_gradient_through_an_episode_loop_is_python_s():
    stats = assert_same(_taped, _episodes(), make_state=Walker)
    assert stats.graph_calls >= 8, stats
