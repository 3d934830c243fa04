"""Policy gradient on a whole episode per call: rewards kept in a Python list,
discounted returns computed backwards in Python, normalized with numpy, a loss over a
Python list of log-probabilities."""
import numpy as np
import tensorflow as tf

GRAPHS = False  # (np.array of the Python-discounted returns: numpy on the host; the tape and update after it run as a segment's graph)


class State:
    def __init__(self):
        rng = np.random.RandomState(32)
        self.w = tf.Variable(rng.randn(3, 2).astype(np.float32) * 0.3)
        self.gamma = 0.9
        self.history = []


def make_state():
    return State()


def discount(rewards, gamma):
    out, running = [], 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        out.insert(0, running)
    return out


def step(s, states, rewards, actions):
    returns = np.array(discount(rewards, s.gamma), dtype=np.float32)
    returns = (returns - returns.mean()) / (returns.std() + 1e-6)
    with tf.GradientTape() as tape:
        logps = []
        for t in range(len(rewards)):
            logits = states[t:t + 1] @ s.w
            logps.append(tf.nn.log_softmax(logits)[0, actions[t]])
        loss = -tf.reduce_sum(tf.stack(logps) * returns)
    g = tape.gradient(loss, s.w)
    s.w.assign_sub(0.05 * g)
    s.history.append(sum(rewards))
    return loss


def calls():
    rng = np.random.RandomState(33)
    out = []
    for _ in range(8):
        out.append((tf.constant(rng.randn(4, 3).astype(np.float32)),
                    [float(r) for r in rng.randint(-1, 3, size=4)],
                    [int(a) for a in rng.randint(0, 2, size=4)]))
    return out
