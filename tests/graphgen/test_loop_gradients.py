"""A tape's gradient of the lists a generalized loop grows (graphgen/loop_gradients.py):
items computed from the weights and each iteration's own values get one batched
gradient after the loop; items that depend on what the loop carries, or a tape used
inside the loop, keep TF's while gradient. Every test compares janus with plain Python
call by call (losses, gradients, variables, the environment) on episodes of varying
length."""
import pytest
import numpy as np
import tensorflow as tf

import janus
from tests.differential import assert_same
from tests.graphgen.policy_agent import Agent, probs_of as _probs, reset as _reset


def policy_gradient(agent, start):
    obs = _reset(agent, start)
    log_probs, rewards = [], []
    with tf.GradientTape() as tape:
        for t in range(40):
            probs = _probs(agent, obs)
            a = agent.rng.choice(2, p=probs.numpy()[0])
            log_probs.append(tf.math.log(probs[0, a]))
            obs, reward, done = agent.env.step(1.0 if a == 1 else -1.0)
            rewards.append(reward + 0.01 * t)
            if done:
                break
        loss = -tf.reduce_sum(tf.stack(log_probs)) * sum(rewards)
    return loss, tape.gradient(loss, [agent.w1, agent.w2])


def _starts(n: int = 10):
    return [(0.3 * ((-1) ** i) * (i % 4),) for i in range(n)]


def _backward_loops(jitted) -> int:
    return sum(spec.op_histogram().get("TensorListPopBack", 0)
               for spec in jitted.specializations)


def test_items_from_the_weights_and_each_step_get_one_batched_gradient():
    jitted = janus.jit(policy_gradient)
    stats = assert_same(policy_gradient, _starts(), make_state=Agent, jitted=jitted)
    assert stats.graph_calls >= 6, stats
    assert _backward_loops(jitted) == 0  # (no reverse loop popping each step's values)
    assert "one batched gradient after the loop" in janus.explain(jitted, (), {})


def recurrent(agent, start):
    obs = _reset(agent, start)
    log_probs = []
    h = tf.zeros([1, 8])
    with tf.GradientTape() as tape:
        for t in range(40):
            h = tf.tanh(tf.convert_to_tensor(obs)[None] @ agent.w1 + 0.5 * h)
            probs = tf.nn.softmax(h @ agent.w2)
            a = agent.rng.choice(2, p=probs.numpy()[0])
            log_probs.append(tf.math.log(probs[0, a]))
            obs, _, done = agent.env.step(1.0 if a == 1 else -1.0)
            if done:
                break
        loss = -tf.reduce_sum(tf.stack(log_probs))
    return loss, tape.gradient(loss, [agent.w1, agent.w2])


def test_items_that_depend_on_a_carried_state_keep_the_while_gradient():
    jitted = janus.jit(recurrent)
    stats = assert_same(recurrent, _starts(), make_state=Agent, jitted=jitted)
    assert stats.graph_calls >= 6, stats
    assert "kept TF's loop gradient: an item depends on a value the loop carries" in \
        janus.explain(jitted, (), {})


@tf.custom_gradient
def _clipped(x):
    return tf.identity(x), lambda dy: tf.clip_by_value(dy, -0.05, 0.05)


def earlier_items(agent, start):
    obs = _reset(agent, start)
    with tf.GradientTape() as tape:
        items = [tf.reduce_sum(agent.w1) * 0.5, tf.reduce_mean(agent.w2)]
        for t in range(40):
            probs = _probs(agent, obs)
            a = agent.rng.choice(2, p=probs.numpy()[0])
            items.append(_clipped(tf.math.log(probs[0, a])) * float(t + 1))
            obs, _, done = agent.env.step(1.0 if a == 1 else -1.0)
            if done:
                break
        loss = tf.reduce_sum(tf.stack(items) ** 2)
    return loss, tape.gradient(loss, [agent.w1, agent.w2])


def test_items_before_the_loop_and_a_custom_gradient_keep_their_gradients():
    stats = assert_same(earlier_items, _starts(), make_state=Agent)
    assert stats.graph_calls >= 6, stats


def nested(agent, start):
    obs = _reset(agent, start)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            log_probs = []
            for t in range(40):
                probs = _probs(agent, obs)
                a = agent.rng.choice(2, p=probs.numpy()[0])
                log_probs.append(tf.math.log(probs[0, a]))
                obs, _, done = agent.env.step(1.0 if a == 1 else -1.0)
                if done:
                    break
            loss = tf.reduce_sum(tf.stack(log_probs))
        g = inner.gradient(loss, agent.w2)
        penalty = tf.reduce_sum(g * g)
    return loss, penalty, outer.gradient(penalty, agent.w1)


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_second_order_gradients_of_the_loop_are_plain_pythons():
    stats = assert_same(nested, _starts(8), make_state=Agent)
    assert stats.graph_calls >= 4, stats


def over_observations(agent, observations):
    with tf.GradientTape() as tape:
        log_probs, entropy = [], tf.constant(0.0)
        for obs in observations:  # (a list whose length varies)
            probs = _probs(agent, obs)
            a = agent.rng.choice(2, p=probs.numpy()[0])
            log_probs.append(tf.math.log(probs[0, a]))
            entropy = entropy - tf.reduce_sum(probs * tf.math.log(probs))  # (carried)
        loss = -tf.reduce_sum(tf.stack(log_probs)) - 0.01 * entropy
    return loss, tape.gradient(loss, [agent.w1, agent.w2])


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_a_loop_over_a_list_with_a_carried_sum_keeps_its_gradients():
    rng = np.random.default_rng(5)
    calls = [([rng.normal(size=2).astype(np.float32) for _ in range(3 + i % 5)],)
             for i in range(10)]
    jitted = janus.jit(over_observations)
    stats = assert_same(over_observations, calls, make_state=Agent, jitted=jitted)
    assert stats.graph_calls >= 6, stats
