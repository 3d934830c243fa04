"""A TD(0) value learner with a Python-side replay buffer: transitions (tuples of
tensors) pushed into a Python list ring buffer (`del items[0]` past capacity), minibatches drawn with a seeded
`random.Random(...).sample` owned by the buffer object (its state advances every call),
`tf.stack` over the sampled tuples via `zip(*batch)`, gradient clipping by global norm
with the pre-clip norm kept in a Python history dict of lists, a target network synced
every few updates, and `try`/`finally` bookkeeping of an "updating" flag."""
import random

import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 18
GAMMA = 0.9
BATCH = 4
SYNC_EVERY = 3


class Replay:
    def __init__(self, capacity=10, seed=60):
        self.items = []  # (a deque(maxlen=...) makes janus run the step eagerly)
        self.capacity = capacity
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.items)

    def push(self, *transition):
        self.items.append(transition)
        if len(self.items) > self.capacity:
            del self.items[0]

    def sample(self, n):
        batch = self.rng.sample(self.items, n)
        return [tf.stack(col) for col in zip(*batch)]


def value_net():
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(8, activation="tanh"),
                             keras.layers.Dense(1)])


class State:
    def __init__(self):
        self.v, self.target = value_net(), value_net()
        self.target.set_weights(self.v.get_weights())
        self.opt = keras.optimizers.Adam(0.02)
        self.buffer = Replay()
        self.history = {"td": [], "gnorm": []}
        self.updates = 0
        self.updating = False


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    obs = rng.randn(3).astype(np.float32)
    nxt = (obs * 0.8 + rng.randn(3) * 0.1).astype(np.float32)
    return (tf.constant(obs), tf.constant(float(obs[0] > 0)), tf.constant(nxt),
            tf.constant(float(i % 7 == 6)))


@JIT
def observe(s, obs, reward, next_obs, done):
    s.buffer.push(obs, reward, next_obs, done)
    if len(s.buffer) < BATCH:
        return None
    s.updating = True
    try:
        o, r, o2, d = s.buffer.sample(BATCH)
        target = r + GAMMA * (1.0 - d) * tf.squeeze(s.target(o2), -1)
        with tf.GradientTape() as tape:
            td = target - tf.squeeze(s.v(o), -1)
            loss = tf.reduce_mean(0.5 * td ** 2)
        grads = tape.gradient(loss, s.v.trainable_variables)
        grads, gnorm = tf.clip_by_global_norm(grads, 0.5)
        s.opt.apply_gradients(zip(grads, s.v.trainable_variables))
        s.history["td"].append(tf.reduce_mean(tf.abs(td)))
        s.history["gnorm"].append(gnorm)
        if (s.updates + 1) % SYNC_EVERY == 0:
            for t, w in zip(s.target.variables, s.v.variables):
                t.assign(w)
        return loss
    finally:
        s.updates += 1
        s.updating = False


STEP = observe
