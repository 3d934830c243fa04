"""A small policy agent on the numpy walker, for the tests of tapes over episode loops
(test_loop_gradients.py, test_tapes_in_loops.py): two weight variables, the
environment, a seeded numpy RNG for sampling actions."""
import numpy as np
import tensorflow as tf

from models.envs import Walker


class Agent:
    def __init__(self):
        rng = np.random.default_rng(0)
        self.w1 = tf.Variable(rng.normal(size=(2, 8)).astype(np.float32))
        self.w2 = tf.Variable(rng.normal(size=(8, 2)).astype(np.float32))
        self.env = Walker(limit=1.0, max_steps=30)
        self.rng = np.random.RandomState(3)


def probs_of(agent, obs):
    """The policy's action probabilities for one observation, [1, 2]."""
    x = tf.convert_to_tensor(obs)[None]
    return tf.nn.softmax(tf.tanh(x @ agent.w1) @ agent.w2)


def reset(agent, start):
    """The walker at `start`, at rest; its first observation."""
    agent.env.state = np.array([start, 0.0])
    agent.env.steps = 0
    return agent.env.state.astype(np.float32)
