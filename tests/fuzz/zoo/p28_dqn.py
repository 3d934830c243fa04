"""A DQN update: online and target networks, the target's weights copied every 4 updates
(a Python counter), Huber loss on the chosen actions with tf.gather_nd, a replay buffer
as a Python list sampled by index lists."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 18
GAMMA = 0.9


def q_net():
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                             keras.layers.Dense(2)])


class Agent:
    def __init__(self):
        self.online, self.target = q_net(), q_net()
        self.target.set_weights(self.online.get_weights())
        self.opt = keras.optimizers.Adam(1e-2)
        self.loss_fn = keras.losses.Huber()
        self.updates = 0
        self.buffer = []


def setup():
    return Agent()


def inputs(i):
    rng = np.random.RandomState(i)
    obs = tf.constant(rng.randn(3, 4), tf.float32)
    return (obs, tf.constant(rng.randint(0, 2, 3)), tf.constant(rng.randn(3), tf.float32),
            tf.constant(rng.randn(3, 4), tf.float32), tf.constant(rng.rand(3) < 0.2))


@JIT
def update(a, obs, actions, rewards, next_obs, dones):
    a.buffer.append((obs, actions))
    if len(a.buffer) > 5:
        a.buffer.pop(0)
    next_q = tf.reduce_max(a.target(next_obs), axis=1)
    targets = rewards + GAMMA * next_q * (1.0 - tf.cast(dones, tf.float32))
    with tf.GradientTape() as tape:
        q = a.online(obs)
        idx = tf.stack([tf.range(tf.shape(actions)[0]), tf.cast(actions, tf.int32)], axis=1)
        chosen = tf.gather_nd(q, idx)
        loss = a.loss_fn(targets, chosen)
    grads = tape.gradient(loss, a.online.trainable_variables)
    a.opt.apply_gradients(zip(grads, a.online.trainable_variables))
    a.updates += 1
    if a.updates % 4 == 0:
        for t, o in zip(a.target.variables, a.online.variables):
            t.assign(o)
    return loss


STEP = update
