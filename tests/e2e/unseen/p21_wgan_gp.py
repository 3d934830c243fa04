"""A WGAN-GP critic step: a gradient penalty from a nested tape that watches the
interpolates (a second-order gradient), a persistent outer tape used twice and deleted,
the interpolation weights from a seeded tf.random.Generator."""
import keras
import numpy as np
import tensorflow as tf

GRAPHS = True


class State:
    def __init__(self):
        keras.utils.set_random_seed(21)
        self.critic = keras.Sequential([keras.Input((2,)), keras.layers.Dense(8, activation="tanh"),
                                        keras.layers.Dense(1)])
        self.opt = keras.optimizers.Adam(1e-3, beta_1=0.0, beta_2=0.9)
        self.rng = tf.random.Generator.from_seed(5)
        self.gp_weight = 10.0


def make_state():
    return State()


def step(s, real, fake):
    alpha = s.rng.uniform([tf.shape(real)[0], 1])
    with tf.GradientTape(persistent=True) as tape:
        interp = alpha * real + (1 - alpha) * fake
        with tf.GradientTape() as gp_tape:
            gp_tape.watch(interp)
            critic_interp = s.critic(interp)
        grads = gp_tape.gradient(critic_interp, interp)
        norm = tf.sqrt(tf.reduce_sum(tf.square(grads), axis=1) + 1e-12)
        gp = tf.reduce_mean((norm - 1.0) ** 2)
        w_dist = tf.reduce_mean(s.critic(real)) - tf.reduce_mean(s.critic(fake))
        loss = -w_dist + s.gp_weight * gp
    c_grads = tape.gradient(loss, s.critic.trainable_variables)
    gp_grads = tape.gradient(gp, s.critic.trainable_variables)
    del tape
    s.opt.apply_gradients(zip(c_grads, s.critic.trainable_variables))
    return loss, tf.linalg.global_norm(gp_grads)


def calls():
    rng = np.random.RandomState(31)
    return [(tf.constant(rng.randn(5, 2).astype(np.float32) + 1.0),
             tf.constant(rng.randn(5, 2).astype(np.float32))) for _ in range(8)]
