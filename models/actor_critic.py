"""Actor-critic (REINFORCE with a learned baseline) on CartPole, one episode per step.

Written the way small RL code is written (the TensorFlow "actor-critic on CartPole"
tutorial, with the numpy sampling of its PyTorch ancestors): inside ONE
``tf.GradientTape`` a Python ``for t in range(max_steps)`` loop runs the policy and
value nets on the current observation, samples the action on the host with
``rng.choice(n, p=probs.numpy()[0])`` (a seeded ``np.random.RandomState`` kept in the
state), steps the numpy environment, appends tensors to Python lists and ``break``s
when the episode ends; then discounted returns are computed in Python/numpy, and the
loss, the gradients and the Adam step follow.  Python state: the environment, the RNG,
``running_reward`` and the list of episode lengths.

The expert is one ``tf.function(autograph=False)`` per episode: the CartPole dynamics
in float64 (the numpy environment's arithmetic, op for op) inside a ``tf.while_loop``;
the action sampled in-graph by inverse CDF from uniforms the *same* RNG drew up front
(``RandomState.choice`` with ``p`` draws one uniform per call and returns how many
entries of the normalized float64 CDF are <= it; the host rewinds the RNG and redraws
exactly as many uniforms as the episode used); after the loop, one batched forward
pass over the visited observations inside the tape (the sampled actions do not depend
differentiably on the weights, so this is the same gradient); returns by a reverse
``tf.scan``.  The host resets the environment (its own RNG) before and writes the
final environment state and the Python bookkeeping back after.
"""
from __future__ import annotations

from typing import Callable

import keras
import numpy as np
import tensorflow as tf

from models.common import Workload, check_size, run_script
from models.envs import CartPole
from models.mlp import MLP

SIZES = {
    # size: (max steps per episode, hidden units)
    "full": (500, 128),
    "quick": (200, 64),
    "tiny": (24, 8),
}
GAMMA = 0.99
EPS = float(np.finfo(np.float32).eps)
LEARNING_RATE = 0.01


class ACState:
    """Actor and critic nets, one Adam, the environment, the sampling RNG, bookkeeping."""

    def __init__(self, hidden: int, max_steps: int, seed: int):
        rng = np.random.default_rng(seed)
        self.actor = MLP([CartPole.obs_size, hidden, CartPole.n_actions], rng, "actor")
        self.critic = MLP([CartPole.obs_size, hidden, 1], rng, "critic")
        self.variables = list(self.actor.trainable_variables) + list(self.critic.trainable_variables)
        self.optimizer = keras.optimizers.Adam(LEARNING_RATE)
        self.optimizer.build(self.variables)
        self.huber_loss = keras.losses.Huber(reduction="sum")
        self.env = CartPole(seed=seed + 1, max_steps=max_steps)
        self.rng = np.random.RandomState(seed + 2)
        self.max_steps = max_steps
        self.running_reward = 0.0
        self.episode_lengths = []


def discounted_returns(rewards: list, gamma: float) -> np.ndarray:
    """Normalized discounted returns of one episode (float32)."""
    returns = []
    discounted_sum = 0.0
    for r in rewards[::-1]:
        discounted_sum = r + gamma * discounted_sum
        returns.insert(0, discounted_sum)
    returns = np.array(returns, dtype=np.float32)
    return (returns - returns.mean()) / (returns.std() + EPS)


def step(state: ACState) -> tf.Tensor:
    """Run one episode with the current policy and update on it; returns the loss."""
    env = state.env
    obs = env.reset()
    action_log_probs, values, rewards = [], [], []
    with tf.GradientTape() as tape:
        for t in range(state.max_steps):
            x = tf.expand_dims(tf.convert_to_tensor(obs), 0)
            action_probs = tf.nn.softmax(state.actor(x))
            value = state.critic(x)
            action = state.rng.choice(CartPole.n_actions, p=action_probs.numpy()[0])
            action_log_probs.append(tf.math.log(action_probs[0, action]))
            values.append(value[0, 0])
            obs, reward, done = env.step(action)
            rewards.append(reward)
            if done:
                break
        returns = discounted_returns(rewards, GAMMA)
        action_log_probs = tf.stack(action_log_probs)
        values = tf.stack(values)
        advantage = returns - values
        actor_loss = -tf.reduce_sum(action_log_probs * tf.stop_gradient(advantage))
        critic_loss = state.huber_loss(returns, values)
        loss = actor_loss + critic_loss
    grads = tape.gradient(loss, state.variables)
    state.optimizer.apply_gradients(zip(grads, state.variables))
    episode_reward = sum(rewards)
    state.running_reward = 0.05 * episode_reward + 0.95 * state.running_reward
    state.episode_lengths.append(len(rewards))
    return loss


# -- the expert --------------------------------------------------------------------------

def cartpole_step(s: tf.Tensor, action: tf.Tensor) -> tf.Tensor:
    """`CartPole.step`'s dynamics on a float64 [4] state, in the same operation order."""
    c = CartPole
    x, x_dot, theta, theta_dot = tf.unstack(s)
    force = tf.where(tf.equal(action, 1), tf.constant(c.force_mag, tf.float64),
                     tf.constant(-c.force_mag, tf.float64))
    cos, sin = tf.cos(theta), tf.sin(theta)
    total_mass = c.mass_cart + c.mass_pole
    pole_ml = c.mass_pole * c.half_length
    temp = (force + pole_ml * tf.square(theta_dot) * sin) / total_mass
    theta_acc = (c.gravity * sin - cos * temp) / (
        c.half_length * (4.0 / 3.0 - c.mass_pole * tf.square(cos) / total_mass))
    x_acc = temp - pole_ml * theta_acc * cos / total_mass
    x, x_dot = x + c.tau * x_dot, x_dot + c.tau * x_acc
    theta, theta_dot = theta + c.tau * theta_dot, theta_dot + c.tau * theta_acc
    return tf.stack([x, x_dot, theta, theta_dot])


def make_expert(state: ACState, jit_compile: bool = False) -> Callable[[], tf.Tensor]:
    """One graph per episode (environment in-graph); the host draws the uniforms."""
    max_steps = state.max_steps
    f32, f64 = tf.float32, tf.float64

    @tf.function(input_signature=[tf.TensorSpec([4], f64), tf.TensorSpec([max_steps], f64)],
                 jit_compile=jit_compile, autograph=False)
    def episode(s0, uniforms):
        def body(t, s, done, observations, actions):
            obs = tf.cast(s, f32)
            probs = tf.nn.softmax(state.actor(obs[None]))[0]
            cdf = tf.cumsum(tf.cast(probs, f64))
            cdf = cdf / cdf[-1]
            action = tf.reduce_sum(tf.cast(cdf <= uniforms[t], tf.int32))
            s = cartpole_step(s, action)
            done = tf.logical_or(tf.logical_or(tf.abs(s[0]) > CartPole.x_limit,
                                               tf.abs(s[2]) > CartPole.theta_limit),
                                 t + 1 >= state.env.max_steps)
            return t + 1, s, done, observations.write(t, obs), actions.write(t, action)

        length, s, _, observations, actions = tf.while_loop(
            lambda t, s, done, *_: tf.logical_and(t < max_steps, tf.logical_not(done)), body,
            (tf.constant(0), s0, tf.constant(False), tf.TensorArray(f32, size=max_steps),
             tf.TensorArray(tf.int32, size=max_steps)))
        observations = observations.stack()[:length]
        actions = actions.stack()[:length]
        returns = tf.scan(lambda acc, r: r + GAMMA * acc, tf.ones([length], f64),
                          initializer=tf.constant(0.0, f64), reverse=True)
        returns = tf.cast(returns, f32)
        mean, var = tf.nn.moments(returns, axes=[0])
        returns = (returns - mean) / (tf.sqrt(var) + EPS)
        with tf.GradientTape() as tape:
            probs = tf.nn.softmax(state.actor(observations))
            action_log_probs = tf.math.log(tf.gather(probs, actions, batch_dims=1))
            values = state.critic(observations)[:, 0]
            advantage = returns - values
            actor_loss = -tf.reduce_sum(action_log_probs * tf.stop_gradient(advantage))
            loss = actor_loss + state.huber_loss(returns, values)
        grads = tape.gradient(loss, state.variables)
        state.optimizer.apply_gradients(zip(grads, state.variables))
        return loss, length, s

    def run() -> tf.Tensor:
        env = state.env
        env.reset()
        saved = state.rng.get_state()
        uniforms = state.rng.random_sample(max_steps)
        loss, length, final = episode(tf.constant(env.state, f64), tf.constant(uniforms, f64))
        length = int(length)
        state.rng.set_state(saved)  # consume exactly the draws of the eager episode
        state.rng.random_sample(length)
        env.state, env.steps = final.numpy(), length
        state.running_reward = 0.05 * float(length) + 0.95 * state.running_reward
        state.episode_lengths.append(length)
        return loss

    return run


def workload(size: str = "full", seed: int = 0) -> Workload:
    """One actor-critic episode + update per step; the environment lives in the state,
    so every executor, from a fresh state, plays the same episodes."""
    max_steps, hidden = SIZES[check_size(size)]
    return Workload(
        name="actor_critic", category="DRL", make_state=lambda: ACState(hidden, max_steps, seed),
        step=step, batches=lambda n: [()] * n, variables=lambda state: list(state.variables),
        expert=make_expert, items_per_step=1, item_name="episodes", tolerance=1e-4, size=size,
        params=dict(max_steps=max_steps, hidden=hidden),
    )


if __name__ == "__main__":
    run_script(workload)
