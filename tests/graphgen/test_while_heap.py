"""A `while <test>:` loop (no `break`) that steps heap objects and Python numbers runs as
one tf.while_loop (graphgen/general_while.py): its first iteration peeled, the attributes
its body writes carried, the Python numbers it changes fed. Every test compares janus
with plain Python call by call (results, heap, RNG state) on episodes of varying length,
and checks that one graph ran them all."""
import pytest
import numpy as np
import tensorflow as tf

from models.envs import Walker
from tests.differential import assert_same


def _starts(n: int = 12, spread: float = 1.0):
    """Calls that reset the walker to states whose episodes differ in length."""
    def call(i):
        def start(env):
            env.state = np.array([0.01 * i * spread, -0.02 * (i % 3)])
            env.steps = 0
            return (env, tf.constant([0.3 * (-1) ** i, 0.2]), env.state.astype(np.float32))
        return start
    return [call(i) for i in range(n)]


def episode(env, w, obs):
    total = tf.constant(0.0)
    done, steps = False, 0
    while not done:
        push = tf.reduce_sum(tf.convert_to_tensor(obs) * w)
        obs, reward, done = env.step(push)
        total = total + push * reward
        steps += 1
    return total, steps


def test_an_environment_stepped_while_not_done_runs_as_one_loop_graph():
    stats = assert_same(episode, _starts(), make_state=Walker)
    # (on main: a graph per trip count, each failing on the next episode, then plainly)
    assert stats.generations == 1 and stats.graph_calls >= 8, stats


def bounded(env, w, obs, limit):
    done, steps, rewards = False, 0, []
    while steps < limit and not done:
        obs, reward, done = env.step(tf.reduce_sum(tf.convert_to_tensor(obs) * w))
        rewards.append(reward)
        steps += 1
    return steps, len(rewards), done


def test_a_counter_and_a_done_flag_in_one_test():
    calls = [lambda env, i=i, s=s: s(env) + (3 + i % 4,) for i, s in enumerate(_starts(10))]
    stats = assert_same(bounded, calls, make_state=lambda: Walker(0.6, 40))
    assert stats.generations <= 2 and stats.graph_calls >= 6, stats


class Meter:
    def __init__(self):
        self.total = tf.constant(0.0)
        self.ticks = 0
        self.level = 0.0


def fill(m, x, limit):
    t = 0
    while t < limit:  # (limit varies: a fed number, the test a tensor in the trace)
        m.total = m.total + x * t
        m.ticks += 1
        m.level = m.level * 0.5 + 1.0
        t += 1
    return t


def test_a_counted_while_with_heap_writes_is_one_graph():
    def call(k, n):
        def start(m):
            m.ticks, m.level = 0, 0.0
            return (m, tf.constant(0.5 + k), n)
        return start
    calls = [call(k, n) for k, n in enumerate([3, 5, 2, 7, 4, 6, 1, 8, 5, 3])]
    stats = assert_same(fill, calls, make_state=Meter)
    # (the limit is fed once a guard on it failed: one more graph, for every trip count)
    assert stats.generations <= 2 and stats.graph_calls >= 6, stats


def drain(m, x):
    while tf.reduce_sum(x) > 0.0:  # (a tensor test from the start: zero trips possible)
        x = x - 1.0
        m.ticks += 1
    return x


def test_a_tensor_test_with_a_heap_counter_and_zero_trip_calls():
    calls = [(tf.constant([v, 1.0]),) for v in (2.0, 0.5, 4.0, -3.0, 1.5, 3.0, -1.0, 2.5)]
    stats = assert_same(drain, calls, make_state=Meter)
    assert stats.graph_calls >= 4, stats


def shrink(m, x):
    while tf.reduce_sum(x) > 0.0:  # (only tensors change: no peeled iteration)
        x = x - 1.0
    return x


def test_a_loop_changing_only_tensors_keeps_zero_trip_calls_in_the_graph():
    calls = [(tf.constant([v, 1.0]),) for v in (2.0, 0.5, 4.0, -3.0, 1.5, 3.0, -1.0, 2.5)]
    stats = assert_same(shrink, calls, make_state=Meter)
    assert stats.fallback_calls == 0 and stats.graph_calls >= 6, stats


def scripted(env, pushes):
    done = False
    while not done:
        obs, reward, done = env.step(pushes[env.steps])  # (out of range on long episodes)
    return env.steps


def _scripted_calls():
    def call(i):
        def start(env):
            env.state = np.array([0.02 * i - 0.05, 0.0])
            env.steps = 0
            return (env, tf.constant([1.0, 1.0, -1.0, 1.0, -1.0, 1.0]))
        return start
    # episodes of 5, 3, 1, 8 (past the 6 pushes: raises), 5, 3, 7 (raises), ... steps
    return [call(i) for i in (3, 4, 5, 0, 3, 4, 2, 5, 4, 1, 3)]


def test_a_body_that_raises_on_some_calls_raises_as_python_and_leaves_its_heap():
    stats = assert_same(scripted, _scripted_calls(), make_state=lambda: Walker(0.05, 40))
    assert stats.generations == 1 and stats.graph_calls >= 5, stats


def grow(m, x, n):
    t = 0
    while t < n:
        m.ticks = m.ticks * 1000 + 7  # (past what a graph computes exactly on long calls)
        m.total = m.total + x
        t += 1
    return m.total


def _grow_calls():
    def call(n):
        def start(m):
            m.ticks = 0
            return (m, tf.constant(1.0), n)
        return start
    return [call(n) for n in (2, 3, 4, 2, 9, 3, 4, 12, 2)]


def test_a_guard_failing_mid_loop_leaves_no_attribute_half_written():
    stats = assert_same(grow, _grow_calls(), make_state=Meter)
    assert stats.graph_calls >= 3 and stats.fallback_calls >= 1, stats


class Noisy(Walker):
    def __init__(self):
        super().__init__(0.8, 40)
        self.rng = np.random.RandomState(7)

    def step(self, push):
        self.state = self.state + np.array([0.0, self.rng.uniform(-0.02, 0.02)])
        return super().step(push)


def noisy_episode(env, w, obs):
    done, total = False, 0.0
    while not done:
        obs, reward, done = env.step(tf.reduce_sum(tf.convert_to_tensor(obs) * w))
        total += reward
    return total


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_numpy_draws_in_the_loop_keep_the_rng_as_python_does():
    # (a `while` has no bound on its draws to feed ahead: the loop runs plainly, and the
    # RNG must be where Python leaves it after every call)
    assert_same(noisy_episode, _starts(10), make_state=Noisy,
                observe=lambda env: repr(env.rng.get_state()[1][:4]) +
                str(env.rng.get_state()[2]))


class RawWalker(Walker):
    def step(self, push):
        obs, reward, done = super().step(push)
        x = self.state[0]
        return obs, reward, abs(x) > self.limit or self.steps >= self.max_steps  # (raw)


def raw_episode(env, w, obs):
    done, steps = False, 0
    while not done:  # (`done` a numpy bool or a Python bool: only its truth is known)
        obs, reward, done = env.step(tf.reduce_sum(tf.convert_to_tensor(obs) * w))
        steps += 1
    return steps, bool(done)


def raw_episode_repr(env, w, obs):
    steps, _ = raw_episode(env, w, obs)
    done = False
    while not done:
        obs, reward, done = env.step(tf.reduce_sum(tf.convert_to_tensor(obs) * w))
    return steps, repr(done)  # (np.True_ or True: the graph cannot say: runs plainly)


def test_a_done_flag_of_either_bool_type_is_carried_by_its_truth():
    stats = assert_same(raw_episode, _starts(10), make_state=RawWalker)
    assert stats.generations == 1 and stats.graph_calls >= 6, stats
    assert_same(raw_episode_repr, _starts(8), make_state=RawWalker)
