"""Double DQN on a toy chain MDP, environment interaction and learning in one jitted
`agent_step`: epsilon-greedy acting with a seeded numpy Generator (`gen.random() < eps`,
else `int(tf.argmax(q[0]))`), an epsilon schedule linear in a Python step counter,
n-step returns assembled from a `collections.deque(maxlen=N_STEP)`, a prioritized replay
buffer kept in numpy arrays (priorities `** alpha`, sampling with `gen.choice(p=...)`,
importance weights normalized by their max, priorities written back from the TD errors
with `.numpy()`), the online network choosing and the target network evaluating the
next action, a Huber loss, the target network synced every SYNC steps with
`target.set_weights(online.get_weights())`, learning only once the buffer holds BATCH
transitions, and episode returns accumulated in a list on episode end.

janus (session 27, h4): agrees on all 24 calls; runs split (host randomness from the
numpy Generator, the deque, the in-place numpy priority write are graph breaks; the
greedy action's network call runs as a segment graph); over 60 calls steady about even
with plain (31 ms vs 37 ms)."""
import collections

import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 24
N_STATES, N_ACTIONS = 6, 2
GAMMA, N_STEP, BATCH, SYNC, CAP = 0.9, 2, 4, 5, 32


def make_net():
    net = keras.Sequential([keras.layers.Dense(16, activation="relu"),
                            keras.layers.Dense(N_ACTIONS)])
    net.build((None, N_STATES))
    return net


class Chain:
    def __init__(self):
        self.pos = 0
        self.t = 0

    def reset(self):
        self.pos, self.t = 0, 0
        return self.pos

    def step(self, action):
        self.t += 1
        self.pos = min(N_STATES - 1, self.pos + 1) if action == 1 else max(0, self.pos - 1)
        reward = 1.0 if self.pos == N_STATES - 1 else -0.05
        done = self.pos == N_STATES - 1 or self.t >= 8
        return self.pos, reward, done


class PER:
    def __init__(self, gen, alpha=0.6):
        self.obs = np.zeros(CAP, np.int64)
        self.act = np.zeros(CAP, np.int64)
        self.ret = np.zeros(CAP, np.float32)
        self.nxt = np.zeros(CAP, np.int64)
        self.done = np.zeros(CAP, np.float32)
        self.prio = np.zeros(CAP, np.float64)
        self.size, self.ptr, self.gen, self.alpha = 0, 0, gen, alpha

    def add(self, o, a, r, n, d):
        i = self.ptr
        self.obs[i], self.act[i], self.ret[i], self.nxt[i], self.done[i] = o, a, r, n, d
        self.prio[i] = self.prio[:self.size].max() if self.size else 1.0
        self.ptr = (self.ptr + 1) % CAP
        self.size = min(self.size + 1, CAP)

    def sample(self, beta):
        p = self.prio[:self.size] ** self.alpha
        p /= p.sum()
        idx = self.gen.choice(self.size, BATCH, p=p)
        w = (self.size * p[idx]) ** (-beta)
        return idx, (w / w.max()).astype(np.float32)


class Agent:
    def __init__(self):
        self.gen = np.random.default_rng(91)
        self.online, self.target = make_net(), make_net()
        self.target.set_weights(self.online.get_weights())
        self.opt = keras.optimizers.Adam(5e-3)
        self.env = Chain()
        self.obs = self.env.reset()
        self.window = collections.deque(maxlen=N_STEP)
        self.buffer = PER(self.gen)
        self.steps = 0
        self.updates = 0
        self.episode_return = 0.0
        self.returns = []


def setup():
    return Agent()


def inputs(i):
    return (max(0.05, 1.0 - i / 12), 0.4 + 0.6 * i / CALLS)


def one_hot(states):
    return tf.one_hot(states, N_STATES)


@JIT
def agent_step(a, eps, beta):
    a.steps += 1
    if a.gen.random() < eps:
        action = int(a.gen.integers(N_ACTIONS))
    else:
        q = a.online(one_hot([a.obs]))
        action = int(tf.argmax(q[0]))
    nxt, reward, done = a.env.step(action)
    a.episode_return += reward
    a.window.append((a.obs, action, reward))
    if len(a.window) == N_STEP or done:
        ret = sum(r * GAMMA ** k for k, (_, _, r) in enumerate(a.window))
        o0, a0, _ = a.window[0]
        a.buffer.add(o0, a0, ret, nxt, float(done))
    a.obs = nxt
    if done:
        a.returns.append(round(a.episode_return, 4))
        a.episode_return = 0.0
        a.window.clear()
        a.obs = a.env.reset()
    if a.buffer.size < BATCH:
        return None
    idx, w = a.buffer.sample(beta)
    obs, nxt_obs = one_hot(a.buffer.obs[idx]), one_hot(a.buffer.nxt[idx])
    best = tf.argmax(a.online(nxt_obs), axis=1)
    q_next = tf.gather(a.target(nxt_obs), best, batch_dims=1)
    target = a.buffer.ret[idx] + (GAMMA ** N_STEP) * (1.0 - a.buffer.done[idx]) * q_next
    with tf.GradientTape() as tape:
        q = tf.gather(a.online(obs), a.buffer.act[idx], batch_dims=1)
        td = tf.stop_gradient(target) - q
        loss = tf.reduce_mean(w * tf.where(tf.abs(td) < 1.0, 0.5 * td ** 2, tf.abs(td) - 0.5))
    grads = tape.gradient(loss, a.online.trainable_variables)
    a.opt.apply_gradients(zip(grads, a.online.trainable_variables))
    a.buffer.prio[idx] = np.abs(td.numpy()) + 1e-3
    a.updates += 1
    if a.updates % SYNC == 0:
        a.target.set_weights(a.online.get_weights())
    return loss, action


STEP = agent_step
