"""A tape told something inside a loop or branch janus builds as a tf.while_loop or
tf.cond, while it records outside it (graphgen/tapes.py): `stop_recording` or `watch`
inside the body. TF's gradient of the While/If op ignores them, so such bodies stay
Python's (a specialized graph or plain calls); a tape of the body itself keeps its loop
a graph. Compared with plain Python call by call on episodes of varying length."""
import pytest
import tensorflow as tf

from tests.differential import assert_same
from tests.graphgen.policy_agent import Agent, probs_of as _probs, reset as _reset


def _calls(n: int = 10):
    return [(0.3 * ((-1) ** i) * (i % 4), 0.5 + 0.1 * i) for i in range(n)]


def paused_baseline(agent, start, first):
    obs = _reset(agent, start)
    with tf.GradientTape(persistent=True) as tape:
        terms = [first * tf.reduce_sum(agent.w2)]
        for t in range(40):
            probs = _probs(agent, obs)
            with tape.stop_recording():  # (no gradient through the baseline)
                baseline = tf.reduce_sum(probs) * tf.reduce_sum(agent.w1)
            a = agent.rng.choice(2, p=probs.numpy()[0])
            terms.append(tf.math.log(probs[0, a]) - baseline)
            obs, _, done = agent.env.step(1.0 if a == 1 else -1.0)
            if done:
                break
        loss = tf.reduce_sum(tf.stack(terms))
    return loss, tape.gradient(loss, agent.w1), tape.gradient(loss, agent.w2)


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_a_tape_paused_inside_a_generalized_loop_is_respected():
    # (session 13's code: the w1 gradient came out shifted by -1 per step, silently)
    stats = assert_same(paused_baseline, _calls(), make_state=Agent)
    assert stats.calls == 10, stats


def watched_inside(agent, start, scale):
    obs = _reset(agent, start)
    with tf.GradientTape(persistent=True) as tape:
        total = tf.constant(0.0)
        for t in range(40):
            x = tf.convert_to_tensor(obs) * scale
            tape.watch(x)
            total = total + tf.reduce_sum(tf.tanh(x[None] @ agent.w1))
            obs, _, done = agent.env.step(float(x[0]))
            if done:
                break
    return total, tape.gradient(total, agent.w1)


def test_a_tape_watching_inside_a_generalized_loop_is_respected():
    stats = assert_same(watched_inside, _calls(), make_state=Agent)
    assert stats.calls == 10, stats


def step_per_iteration(agent, start, lr):
    obs = _reset(agent, start)
    losses = []
    for t in range(40):
        with tf.GradientTape() as tape:  # (the body's own tape: unaffected)
            loss = -tf.math.log(_probs(agent, obs)[0, 0])
        grad = tape.gradient(loss, agent.w2)
        agent.w2.assign_sub(lr * 0.01 * grad)
        losses.append(loss)
        obs, _, done = agent.env.step(1.0)
        if done:
            break
    return tf.stack(losses)


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_a_tape_of_the_loop_body_itself_keeps_the_loop_a_graph():
    stats = assert_same(step_per_iteration, _calls(), make_state=Agent)
    assert stats.graph_calls >= 5, stats


def paused_in_a_branch(w, x):
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x * w)
        if y > 0:  # (a tensor test that varies: janus makes it a tf.cond)
            with tape.stop_recording():
                y = y + tf.reduce_sum(w * w)
        else:
            y = y * 2.0
    return y, tape.gradient(y, w)


def test_a_tape_paused_inside_a_generalized_branch_is_respected():
    w = tf.Variable([0.5, -0.25, 1.0])
    calls = [(w, tf.constant([1.0, (-1.0) ** i, 0.5 * i - 1.5])) for i in range(10)]
    stats = assert_same(paused_in_a_branch, calls)
    assert stats.calls == 10, stats
