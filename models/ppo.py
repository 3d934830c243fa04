"""PPO update on CartPole with numpy bookkeeping (the way small RL code is written).

The imperative update evaluates the value net and pulls the result to numpy
(``.numpy()``), computes GAE advantages in a Python loop, shuffles with
``np.random.permutation``-style calls on a numpy RNG kept in the state, and
stops early with a Python ``if`` on a tensor (approximate KL above target).
The expert version is one ``tf.function``: GAE by ``tf.scan``, minibatch loop
by ``tf.while_loop``, early stop in-graph; the host only draws the same
permutations from the same RNG.
"""
from __future__ import annotations

from typing import Callable

import keras
import numpy as np
import tensorflow as tf

from models.common import Workload, check_size
from models.envs import CartPole
from models.mlp import MLP

SIZES = {
    # size: (rollout length, epochs, minibatch, hidden)
    "full": (1024, 4, 64, 64),
    "quick": (256, 4, 64, 64),
    "tiny": (32, 2, 16, 8),
}
GAMMA, LAM = 0.99, 0.95
CLIP, TARGET_KL = 0.2, 0.02
VALUE_COEF, ENTROPY_COEF = 0.5, 0.01
LEARNING_RATE = 3e-4


class PPOState:
    """Policy and value nets, one Adam over both, and the numpy RNG for shuffling."""

    def __init__(self, hidden: int, seed: int, epochs: int, minibatch: int):
        rng = np.random.default_rng(seed)
        self.policy = MLP([CartPole.obs_size, hidden, hidden, CartPole.n_actions], rng, "policy")
        self.value = MLP([CartPole.obs_size, hidden, hidden, 1], rng, "value")
        self.variables = list(self.policy.trainable_variables) + list(self.value.trainable_variables)
        self.optimizer = keras.optimizers.Adam(LEARNING_RATE)
        self.optimizer.build(self.variables)
        self.rng = np.random.default_rng(seed + 1)
        self.epochs, self.minibatch = epochs, minibatch


def log_probs(logits, actions):
    return tf.gather(tf.nn.log_softmax(logits), actions, batch_dims=1)


def step(state: PPOState, obs, actions, rewards, dones, last_obs):
    """One PPO update on a rollout (numpy arrays); returns the mean minibatch loss.

    The old log-probabilities are those of the policy as it is when the update
    starts (on-policy PPO: the policy that collected the rollout).
    """
    old_logp = log_probs(state.policy(obs), actions).numpy()
    values = state.value(obs).numpy()[:, 0]
    last_value = state.value(last_obs[None]).numpy()[0, 0]
    advantages = np.zeros_like(rewards)
    gae = 0.0
    for t in reversed(range(len(rewards))):
        next_value = last_value if t == len(rewards) - 1 else values[t + 1]
        nonterminal = 1.0 - dones[t]
        delta = rewards[t] + GAMMA * next_value * nonterminal - values[t]
        gae = delta + GAMMA * LAM * nonterminal * gae
        advantages[t] = gae
    returns = advantages + values
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)

    losses = []
    stop = False
    for epoch in range(state.epochs):
        order = state.rng.permutation(len(obs))
        for start in range(0, len(obs), state.minibatch):
            idx = order[start:start + state.minibatch]
            with tf.GradientTape() as tape:
                logp = log_probs(state.policy(obs[idx]), actions[idx])
                ratio = tf.exp(logp - old_logp[idx])
                adv = advantages[idx]
                policy_loss = -tf.reduce_mean(
                    tf.minimum(ratio * adv, tf.clip_by_value(ratio, 1 - CLIP, 1 + CLIP) * adv))
                value_loss = tf.reduce_mean(tf.square(returns[idx] - state.value(obs[idx])[:, 0]))
                probs = tf.nn.softmax(state.policy(obs[idx]))
                entropy = -tf.reduce_mean(tf.reduce_sum(probs * tf.math.log(probs + 1e-8), axis=1))
                loss = policy_loss + VALUE_COEF * value_loss - ENTROPY_COEF * entropy
            approx_kl = tf.reduce_mean(old_logp[idx] - logp)
            losses.append(loss)
            if approx_kl > 1.5 * TARGET_KL:
                stop = True
                break
            grads = tape.gradient(loss, state.variables)
            state.optimizer.apply_gradients(zip(grads, state.variables))
        if stop:
            break
    return tf.reduce_mean(tf.stack(losses))


def collect_rollout(env: CartPole, policy: MLP, obs: np.ndarray, length: int,
                    rng: np.random.Generator) -> tuple[tuple, np.ndarray]:
    """``length`` environment steps with the policy (numpy forward), continuing from ``obs``.

    Returns the rollout tuple (obs, actions, rewards, dones, last_obs) and the
    observation to continue from.
    """
    buf_obs = np.zeros((length, env.obs_size), np.float32)
    acts = np.zeros(length, np.int32)
    rewards = np.zeros(length, np.float32)
    dones = np.zeros(length, np.float32)
    for t in range(length):
        logits = policy.numpy_forward(obs[None])[0]
        logp_all = logits - logits.max() - np.log(np.sum(np.exp(logits - logits.max())))
        action = int(rng.random() < np.exp(logp_all[1]))
        buf_obs[t], acts[t] = obs, action
        obs, rewards[t], done = env.step(action)
        dones[t] = float(done)
        if done:
            obs = env.reset()
    return (buf_obs, acts, rewards, dones, obs.astype(np.float32)), obs


def make_expert(state: PPOState, jit_compile: bool = False) -> Callable[..., tf.Tensor]:
    """The same update as one tf.function; the host only draws the permutations."""
    epochs, mb = state.epochs, state.minibatch
    f32, i32 = tf.float32, tf.int32
    signature = [tf.TensorSpec([None, CartPole.obs_size], f32), tf.TensorSpec([None], i32),
                 tf.TensorSpec([None], f32), tf.TensorSpec([None], f32),
                 tf.TensorSpec([CartPole.obs_size], f32), tf.TensorSpec([epochs, None], i32)]

    @tf.function(input_signature=signature, jit_compile=jit_compile, autograph=False)
    def update(obs, actions, rewards, dones, last_obs, orders):
        old_logp = tf.stop_gradient(log_probs(state.policy(obs), actions))
        values = state.value(obs)[:, 0]
        last_value = state.value(last_obs[None])[0, 0]
        next_values = tf.concat([values[1:], [last_value]], axis=0)
        nonterminal = 1.0 - dones
        deltas = rewards + GAMMA * next_values * nonterminal - values
        advantages = tf.scan(lambda gae, x: x[0] + GAMMA * LAM * x[1] * gae,
                             (deltas, nonterminal), initializer=tf.constant(0.0), reverse=True)
        returns = advantages + values
        mean, var = tf.nn.moments(advantages, axes=[0])
        advantages = (advantages - mean) / (tf.sqrt(var) + 1e-8)

        n = tf.shape(obs)[0]
        per_epoch = (n + mb - 1) // mb

        def body(k, stopped, loss_sum, count):
            epoch, start = k // per_epoch, (k % per_epoch) * mb
            idx = orders[epoch, start:start + mb]
            o, a, olp = tf.gather(obs, idx), tf.gather(actions, idx), tf.gather(old_logp, idx)
            adv, ret = tf.gather(advantages, idx), tf.gather(returns, idx)
            with tf.GradientTape() as tape:
                logp = log_probs(state.policy(o), a)
                ratio = tf.exp(logp - olp)
                policy_loss = -tf.reduce_mean(
                    tf.minimum(ratio * adv, tf.clip_by_value(ratio, 1 - CLIP, 1 + CLIP) * adv))
                value_loss = tf.reduce_mean(tf.square(ret - state.value(o)[:, 0]))
                probs = tf.nn.softmax(state.policy(o))
                entropy = -tf.reduce_mean(tf.reduce_sum(probs * tf.math.log(probs + 1e-8), axis=1))
                loss = policy_loss + VALUE_COEF * value_loss - ENTROPY_COEF * entropy
            approx_kl = tf.reduce_mean(olp - logp)
            stop = approx_kl > 1.5 * TARGET_KL

            def apply():
                grads = tape.gradient(loss, state.variables)
                state.optimizer.apply_gradients(zip(grads, state.variables))
                return tf.constant(True)

            tf.cond(stop, lambda: tf.constant(False), apply)
            return k + 1, stop, loss_sum + loss, count + 1

        k, _, loss_sum, count = tf.while_loop(
            lambda k, stopped, *_: tf.logical_and(k < epochs * per_epoch, tf.logical_not(stopped)),
            body, (tf.constant(0), tf.constant(False), tf.constant(0.0), tf.constant(0.0)))
        epochs_started = (k - 1) // per_epoch + 1
        return loss_sum / count, epochs_started

    def run(obs, actions, rewards, dones, last_obs):
        saved = state.rng.bit_generator.state
        orders = np.stack([state.rng.permutation(len(obs)) for _ in range(epochs)]).astype(np.int32)
        loss, epochs_started = update(obs, actions, rewards, dones, last_obs, orders)
        state.rng.bit_generator.state = saved  # consume exactly what the eager loop draws
        for _ in range(int(epochs_started)):
            state.rng.permutation(len(obs))
        return loss

    return run


def workload(size: str = "full", seed: int = 0) -> Workload:
    """PPO updates on rollouts collected once by the initial policy (so every executor
    sees the same data); ``python -m models.ppo`` trains on-policy instead."""
    length, epochs, minibatch, hidden = SIZES[check_size(size)]

    def make_state() -> PPOState:
        return PPOState(hidden, seed, epochs, minibatch)

    def batches(n: int) -> list:
        env = CartPole(seed=seed + 2)
        policy = make_state().policy
        rng = np.random.default_rng(seed + 3)
        obs, out = env.reset(), []
        for _ in range(n):
            rollout, obs = collect_rollout(env, policy, obs, length, rng)
            out.append(rollout)
        return out

    return Workload(
        name="ppo", category="DRL", make_state=make_state, step=step, batches=batches,
        variables=lambda state: list(state.variables), expert=make_expert,
        items_per_step=length, item_name="env steps", tolerance=1e-4, size=size,
        params=dict(rollout=length, epochs=epochs, minibatch=minibatch, hidden=hidden),
    )


def main(argv=None) -> None:
    """On-policy training: collect with the current policy, then update (optionally via janus)."""
    import argparse
    import time

    parser = argparse.ArgumentParser(description="PPO on CartPole")
    parser.add_argument("--janus", action="store_true")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--size", choices=list(SIZES), default="full")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    length, epochs, minibatch, hidden = SIZES[args.size]
    state = PPOState(hidden, args.seed, epochs, minibatch)
    update = step
    if args.janus:
        import janus

        update = janus.jit(step)
    env, rng = CartPole(seed=args.seed + 2), np.random.default_rng(args.seed + 3)
    obs = env.reset()
    for i in range(args.steps):
        rollout, obs = collect_rollout(env, state.policy, obs, length, rng)
        episodes = max(1.0, rollout[3].sum())
        start = time.perf_counter()
        loss = float(update(state, *rollout))
        print(f"update {i}: loss {loss:.4f}  mean episode length {length / episodes:.1f}  "
              f"{(time.perf_counter() - start) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
