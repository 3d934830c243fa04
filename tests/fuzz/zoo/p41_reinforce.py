"""REINFORCE on a toy bandit-like episode: actions sampled with tf.random.categorical
from a tf.random.Generator's seeds (the generator's state advances every call), an
exploration coin drawn with a stateless op, rewards and discounted returns computed in
Python from `.numpy()` actions, a Python baseline updated as a running mean."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16
GAMMA = 0.95
HORIZON = 5
N_ACTIONS = 3


class Agent:
    def __init__(self):
        self.policy = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="tanh"),
                                        keras.layers.Dense(N_ACTIONS)])
        self.opt = keras.optimizers.Adam(0.02)
        self.rng = tf.random.Generator.from_seed(41)
        self.baseline = 0.0
        self.episodes = 0
        self.returns = []


def setup():
    return Agent()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.randn(HORIZON, 4), tf.float32), i)


def reward_of(obs_row, action):
    # the environment, in Python: reward the action that matches the sign pattern
    target = int(np.argmax(obs_row[:N_ACTIONS]))
    return 1.0 if action == target else -0.1


@JIT
def episode(a, observations, episode_index):
    seed = a.rng.make_seeds(1)[:, 0]
    with tf.GradientTape() as tape:
        logits = a.policy(observations)
        actions = tf.random.stateless_categorical(logits, 1, seed=seed)[:, 0]
        explore = tf.random.stateless_uniform([HORIZON], seed=seed + 1) < 0.1
        random_actions = a.rng.uniform([HORIZON], 0, N_ACTIONS, dtype=tf.int64)
        actions = tf.where(explore, random_actions, actions)
        log_probs = -tf.nn.sparse_softmax_cross_entropy_with_logits(actions, logits)
        obs = observations.numpy()
        rewards = [reward_of(obs[t], int(act)) for t, act in enumerate(actions.numpy())]
        returns, g = [], 0.0
        for r in reversed(rewards):
            g = r + GAMMA * g
            returns.insert(0, g)
        advantages = tf.constant(returns, tf.float32) - a.baseline
        loss = -tf.reduce_sum(log_probs * advantages)
    grads = tape.gradient(loss, a.policy.trainable_variables)
    a.opt.apply_gradients(zip(grads, a.policy.trainable_variables))
    a.baseline = 0.9 * a.baseline + 0.1 * returns[0]
    a.episodes += 1
    a.returns.append(round(sum(rewards), 3))
    if episode_index % 5 == 4:
        print(f"episode {episode_index}: mean return {np.mean(a.returns[-5:]):.3f}")
    return actions, loss


STEP = episode
