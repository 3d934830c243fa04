"""A persistent tape for two gradients, a nested tape for a gradient penalty (WGAN-GP
style), `tape.watch` of an input tensor."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14


class Critic(tf.Module):
    def __init__(self):
        super().__init__()
        self.w1 = tf.Variable(tf.random.normal([3, 8], seed=2) * 0.5)
        self.w2 = tf.Variable(tf.random.normal([8, 1], seed=3) * 0.5)

    def __call__(self, x):
        return tf.matmul(tf.tanh(tf.matmul(x, self.w1)), self.w2)


class State:
    def __init__(self):
        self.critic = Critic()
        self.lr = 0.05
        self.penalties = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.randn(5, 3), tf.float32), tf.constant(rng.randn(5, 3) + 1.0, tf.float32),
            float(rng.rand()))


@JIT
def step(s, real, fake, alpha):
    with tf.GradientTape(persistent=True) as tape:
        mixed = alpha * real + (1.0 - alpha) * fake
        with tf.GradientTape() as inner:
            inner.watch(mixed)
            score = s.critic(mixed)
        dx = inner.gradient(score, mixed)
        gp = tf.reduce_mean(tf.square(tf.norm(dx, axis=1) - 1.0))
        wdist = tf.reduce_mean(s.critic(fake)) - tf.reduce_mean(s.critic(real))
        loss = wdist + 10.0 * gp
    g_loss = tape.gradient(loss, s.critic.trainable_variables)
    g_gp = tape.gradient(gp, s.critic.trainable_variables)
    del tape
    for v, g in zip(s.critic.trainable_variables, g_loss):
        v.assign_sub(s.lr * g)
    s.penalties.append(gp.numpy().item())
    return loss, g_gp


STEP = step
