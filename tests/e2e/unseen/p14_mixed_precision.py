"""Mixed precision: Dense layers with the mixed_float16 policy, a LossScaleOptimizer
(scale_loss / apply with unscaling), the loss cast to float32."""
import keras
import numpy as np
import tensorflow as tf

GRAPHS = False  # (F457, open: the LossScaleOptimizer writes variables inside its tf.cond)


class State:
    def __init__(self):
        keras.utils.set_random_seed(14)
        self.model = keras.Sequential([
            keras.Input((4,)),
            keras.layers.Dense(8, activation="relu", dtype="mixed_float16"),
            keras.layers.Dense(1, dtype="mixed_float16"),
            keras.layers.Activation("linear", dtype="float32")])
        self.opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.01),
                                                       initial_scale=2.0 ** 8,
                                                       dynamic_growth_steps=3)


def make_state():
    return State()


def step(s, x, y):
    with tf.GradientTape() as tape:
        pred = s.model(x, training=True)
        loss = tf.reduce_mean(tf.square(tf.cast(pred, tf.float32) - y))
        scaled = s.opt.scale_loss(loss)
    grads = tape.gradient(scaled, s.model.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
    return loss, s.opt.dynamic_scale


def calls():
    rng = np.random.RandomState(20)
    return [(tf.constant(rng.randn(6, 4).astype(np.float32)),
             tf.constant(rng.randn(6, 1).astype(np.float32))) for _ in range(8)]
