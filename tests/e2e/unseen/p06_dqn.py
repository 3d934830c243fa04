"""DQN: a collections.deque replay buffer, minibatches drawn with a seeded random.Random,
epsilon-greedy acting, a target network synced every 3 updates."""
import collections
import random

import keras
import numpy as np
import tensorflow as tf

GRAPHS = False  # (random.Random.sample: host randomness, a graph break; runs split)


def q_net():
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"),
                             keras.layers.Dense(2)])


class Agent:
    def __init__(self):
        keras.utils.set_random_seed(6)
        self.q = q_net()
        self.target = q_net()
        self.target.set_weights(self.q.get_weights())
        self.opt = keras.optimizers.Adam(1e-3)
        self.buffer = collections.deque(maxlen=20)
        self.rng = random.Random(0)
        self.epsilon = 1.0
        self.updates = 0
        self.gamma = 0.99


def make_state():
    return Agent()


def act(agent, obs):
    if agent.rng.random() < agent.epsilon:
        return agent.rng.randrange(2)
    return int(tf.argmax(agent.q(obs[None])[0]))


def step(agent, obs, reward, next_obs, done):
    action = act(agent, obs)
    agent.buffer.append((obs, action, reward, next_obs, done))
    agent.epsilon = max(0.05, agent.epsilon * 0.9)
    if len(agent.buffer) < 4:
        return None
    batch = agent.rng.sample(list(agent.buffer), 4)
    obs_b = tf.stack([b[0] for b in batch])
    act_b = tf.constant([b[1] for b in batch])
    rew_b = tf.constant([b[2] for b in batch], tf.float32)
    next_b = tf.stack([b[3] for b in batch])
    done_b = tf.constant([float(b[4]) for b in batch])
    target = rew_b + agent.gamma * (1.0 - done_b) * tf.reduce_max(agent.target(next_b), axis=1)
    with tf.GradientTape() as tape:
        q = tf.gather(agent.q(obs_b), act_b, batch_dims=1)
        loss = tf.reduce_mean(tf.square(q - target))
    grads = tape.gradient(loss, agent.q.trainable_variables)
    agent.opt.apply_gradients(zip(grads, agent.q.trainable_variables))
    agent.updates += 1
    if agent.updates % 3 == 0:
        for t, v in zip(agent.target.variables, agent.q.variables):
            t.assign(v)
    return loss


def calls():
    rng = np.random.RandomState(7)
    out = []
    obs = rng.randn(4).astype(np.float32)
    for i in range(10):
        nxt = rng.randn(4).astype(np.float32)
        out.append((tf.constant(obs), float(rng.rand()), tf.constant(nxt), i % 5 == 4))
        obs = nxt
    return out
