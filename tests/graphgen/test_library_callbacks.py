"""Class: functions handed to TensorFlow as callbacks run as TensorFlow calls them
(issue 9, failure 4).

A nested `def` passed to `tf.numpy_function` used to be janus's hooked copy, which at
graph run time found no trace (`RuntimeError: no janus trace is active`) or, converted
again, ran with the wrong globals. Nested defs now stay the user's plain function (own
globals and live closure); converted callees close over the original's cells; and a graph
never holds a Python callback: it could run twice (graph, then the eager rerun after a
failed guard), so such a call runs eagerly.
"""
import functools
import weakref

import numpy as np
import tensorflow as tf

import janus
from tests.differential import assert_same


class Env:
    def __init__(self):
        self.state = np.zeros(2, np.float32)
        self.steps = 0

    def step(self, action):
        self.steps += 1
        self.state = (self.state + action).astype(np.float32)
        return self.state, np.float32(self.state.sum())


class Agent:
    def __init__(self):
        self.env = Env()
        self.w = tf.Variable([[0.5, -0.2], [0.1, 0.3]])


def actor_critic_nested_step(agent, x):
    env = agent.env

    def env_step(action):
        return env.step(action)
    total = tf.constant(0.0)
    for _ in range(3):
        action = tf.tanh(x @ agent.w)[0]
        state, reward = tf.numpy_function(env_step, [action], [tf.float32, tf.float32])
        x = tf.reshape(state, [1, 2]) * 0.1
        total += reward
    agent.w.assign_add(tf.ones([2, 2]) * 0.01)
    return total


def test_nested_env_step_handed_to_numpy_function():
    calls = [(tf.ones([1, 2]),)] * 5
    assert_same(actor_critic_nested_step, calls, make_state=Agent)


ENV = Env()


def global_env_step(action):
    return ENV.step(action)


def numpy_function_then_tensor_branch(x):
    state, reward = tf.numpy_function(global_env_step, [x], [tf.float32, tf.float32])
    if reward > 7.0:  # flips after the graph is built: a failing in-graph guard, then a rerun
        return state * 2.0
    return state


def test_python_callback_runs_once_per_call_even_when_a_guard_fails():
    global ENV
    results = {}
    for side in ("plain", "janus"):
        ENV = Env()
        fn = numpy_function_then_tensor_branch
        fn = janus.jit(fn) if side == "janus" else fn
        values = [fn(tf.ones([2])).numpy().tolist() for _ in range(6)]
        results[side] = (values, ENV.steps, ENV.state.tolist())
    assert results["janus"] == results["plain"]


def py_function_with_lambda(x, k):
    y = tf.py_function(lambda v: v * k + ENV.steps, [x], tf.float32)
    return y + 1.0


def test_lambda_handed_to_py_function():
    calls = [(tf.ones([2]), 2.0)] * 5
    assert_same(py_function_with_lambda, calls)


class Scaled:
    def __init__(self):
        self.scale = 1.0


def map_with_nested_fn(s, xs):
    def scaled(v):
        return v * s.scale
    return tf.map_fn(scaled, xs)


def _same(s):
    return (s, tf.ones([3, 2]))


def _bump(s):
    s.scale = s.scale + 1.0
    return (s, tf.ones([3, 2]))


def test_nested_fn_traced_by_map_fn_keeps_its_heap_reads_guarded():
    # a plain function TF traces inside janus's graph would freeze `s.scale`
    stats = assert_same(map_with_nested_fn, [_same] * 4 + [_bump] * 3, make_state=Scaled)
    assert stats.graph_calls >= 3


# -- a functools.partial of the program's code as a callback (F264) ----------------------

class Branch:
    def __init__(self, scale):
        self.scale = scale

    def __call__(self, x):
        return x * self.scale


SHIFT = 1.0


def _shifted(x, k):
    return x + SHIFT * k


class Branches:
    def __init__(self):
        self.b, self.c = Branch(2.0), Branch(3.0)


def partial_branches(s, x):
    taken = tf.cond(tf.reduce_sum(x) > 0, functools.partial(s.b, x),
                    functools.partial(s.c, x))
    return taken + tf.map_fn(functools.partial(_shifted, k=2.0), x)


def partial_branch_written_first(s, x, k):
    s.b.scale = k
    return tf.cond(tf.reduce_sum(x) > 0, functools.partial(s.b, x), lambda: x)


def _changed(i):
    def call(s):
        s.b.scale = float(i // 3)  # (the caller's changes, between calls)
        globals()["SHIFT"] = float(i // 4)
        return s, tf.constant([1.0 - 2 * (i % 2)])
    return call


def test_a_partial_of_a_callable_object_as_a_branch_keeps_its_reads_guarded():
    try:
        stats = assert_same(partial_branches, [_changed(i) for i in range(10)],
                            make_state=Branches)
    finally:
        globals()["SHIFT"] = 1.0
    assert stats.graph_calls >= 5
    stats = assert_same(partial_branch_written_first,
                        [(tf.constant([1.0 - 2 * (i % 2)]), 1.0 + i) for i in range(8)],
                        make_state=Branches)
    assert stats.graph_calls >= 4


# -- a function handed to code that only compares or keeps it is the function itself (F399)

def make_hook(k):
    def hook(reg, y):
        return y * k, reg.index(hook)
    return hook


def make_once(k):
    def once(registry, y):
        registry.hooks.remove(once)  # (a one-shot hook removing itself)
        at = registry.once.index(once)
        registry.seen[at] = registry.seen.get(at, 0) + 1
        return y + k
    return once


class Registry:
    def __init__(self):
        self.hooks = [make_hook(2.0), make_hook(3.0)]
        self.once = [make_once(1.0), make_once(5.0)]
        self.seen = {}


def indexed_hooks(registry, x):
    positions = []
    for h in registry.hooks:
        x, p = h(registry.hooks, x)
        positions.append(p)
    return tf.reduce_sum(x), positions


def one_shot_hooks(registry, x):
    registry.hooks = list(registry.once)
    for h in list(registry.hooks):
        x = h(registry, x)
    return tf.reduce_sum(x), len(registry.hooks), sorted(registry.seen.values())


def make_keeper(k):
    def keeper(kept, y):
        ref = weakref.ref(keeper)
        kept.append(keeper)
        found = {keeper: 1}.pop(keeper) + (ref() is keeper) + (kept[-1] is keeper)
        kept.pop()
        return y * k + found
    return keeper


class Keepers:
    def __init__(self):
        self.keepers, self.kept = [make_keeper(2.0)], []


def kept_hooks(s, x):
    for h in s.keepers:
        x = h(s.kept, x)
    return tf.reduce_sum(x)


def _x(i):
    return (tf.constant([1.0, float(i)]),)


def test_hooks_that_find_themselves_in_their_registry_stay_graphs():
    stats = assert_same(indexed_hooks, [_x(i) for i in range(8)], Registry)
    assert stats.graph_calls >= 4


def test_one_shot_hooks_that_remove_themselves_stay_graphs():
    stats = assert_same(one_shot_hooks, [_x(i) for i in range(8)], Registry)
    assert stats.graph_calls >= 4


def test_a_hook_kept_hashed_or_weakly_referenced_is_itself():
    stats = assert_same(kept_hooks, [_x(i) for i in range(8)], Keepers)
    assert stats.graph_calls >= 4
