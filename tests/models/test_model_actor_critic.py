"""The actor-critic episode (numpy sampling and a Python environment inside one tape):
expert and janus equal eager, including the Python-side state."""
import numpy as np
import pytest

from models import actor_critic as ac
from models.envs import CartPole


def host_state(state):
    """What the heap snapshot does not see: both RNGs, plus the episode bookkeeping."""
    name, keys, pos, has_gauss, gauss = state.rng.get_state()
    return ((name, keys.tolist(), pos, has_gauss, gauss), state.env.rng.bit_generator.state,
            state.env.steps, list(state.episode_lengths))


def test_expert_matches_eager_and_consumes_the_same_randomness(expert_matches_eager):
    wl = ac.workload("tiny")
    _, eager, expert = expert_matches_eager(wl, n_steps=4, atol=1e-4)
    assert host_state(eager) == host_state(expert)
    assert len(set(eager.episode_lengths)) > 1  # episodes differ: the loop really varies
    np.testing.assert_allclose(expert.env.state, eager.env.state, atol=1e-9)
    assert expert.running_reward == pytest.approx(eager.running_reward, abs=1e-12)


def test_expert_handles_an_episode_cut_by_max_steps(monkeypatch, expert_matches_eager):
    """A pole that never falls (gravity 0, no force): every episode runs to max_steps."""
    monkeypatch.setattr(CartPole, "gravity", 0.0)
    monkeypatch.setattr(CartPole, "force_mag", 0.0)
    wl = ac.workload("tiny")
    _, eager, expert = expert_matches_eager(wl, n_steps=2, atol=1e-4)
    assert eager.episode_lengths == expert.episode_lengths == [ac.SIZES["tiny"][0]] * 2
    assert host_state(eager) == host_state(expert)


def test_cartpole_step_in_graph_matches_numpy():
    import tensorflow as tf

    env = CartPole(seed=3)
    env.reset()
    s = tf.constant(env.state, tf.float64)
    for action in [1, 0, 0, 1, 1, 1, 0]:
        env.step(action)
        s = ac.cartpole_step(s, tf.constant(action))
        np.testing.assert_allclose(s.numpy(), env.state, rtol=0, atol=1e-12)


def test_janus_matches_eager(janus_matches_eager):
    janus_matches_eager(ac.workload("tiny"), n_steps=5, host_state=host_state)


def test_script_entry_point(capsys):
    from models.common import run_script

    run_script(ac.workload, ["--size", "tiny", "--steps", "2"])
    assert "step 1: loss" in capsys.readouterr().out
