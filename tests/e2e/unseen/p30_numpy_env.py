"""An RL loop whose environment is a Python class stepped with numpy inside the step: a
1-D random-walk with a numpy position, the policy a linear layer, REINFORCE on one
transition per call, the return accumulated in a Python float."""
import numpy as np
import tensorflow as tf

GRAPHS = False  # (the action leaves the graph as `int(...)` into the numpy environment each call: host work, runs split)


class WalkEnv:
    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.pos = np.zeros(2, dtype=np.float32)
        self.t = 0

    def observe(self):
        return np.concatenate([self.pos, [self.t / 10.0, 1.0]]).astype(np.float32)

    def step(self, action):
        move = np.array([1.0, 0.0] if action == 0 else [0.0, 1.0], dtype=np.float32)
        self.pos = self.pos + move + 0.1 * self.rng.randn(2).astype(np.float32)
        self.t += 1
        reward = float(-np.linalg.norm(self.pos - np.array([3.0, 2.0])))
        done = self.t >= 5
        if done:
            self.pos[:] = 0.0
            self.t = 0
        return self.observe(), reward, done


class State:
    def __init__(self):
        rng = np.random.RandomState(30)
        self.env = WalkEnv(3)
        self.w = tf.Variable(rng.randn(4, 2).astype(np.float32) * 0.1)
        self.obs = self.env.observe()
        self.episode_return = 0.0
        self.returns = []


def make_state():
    return State()


def step(s, u):
    obs = tf.constant(s.obs[None, :])
    with tf.GradientTape() as tape:
        logits = obs @ s.w
        probs = tf.nn.softmax(logits)
        action = int(tf.argmax(logits[0] + u))
        logp = tf.math.log(probs[0, action] + 1e-8)
    nxt, reward, done = s.env.step(action)
    g = tape.gradient(-logp * reward, s.w)
    s.w.assign_sub(0.01 * g)
    s.episode_return += reward
    s.obs = nxt
    if done:
        s.returns.append(round(s.episode_return, 4))
        s.episode_return = 0.0
    return reward


def calls():
    rng = np.random.RandomState(31)
    return [(tf.constant(rng.randn(2).astype(np.float32)),) for _ in range(10)]
