"""A custom LearningRateSchedule (linear warmup then inverse sqrt, as in "Attention is all
you need"), `optimizer.iterations` read in Python to log the learning rate."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14


class CustomSchedule(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, d_model, warmup_steps=4):
        super().__init__()
        self.d_model = tf.cast(d_model, tf.float32)
        self.warmup_steps = warmup_steps

    def __call__(self, step):
        step = tf.cast(step, dtype=tf.float32) + 1.0
        arg1 = tf.math.rsqrt(step)
        arg2 = step * (self.warmup_steps ** -1.5)
        return tf.math.rsqrt(self.d_model) * tf.math.minimum(arg1, arg2)


class State:
    def __init__(self):
        self.schedule = CustomSchedule(16)
        self.opt = keras.optimizers.Adam(self.schedule, beta_1=0.9, beta_2=0.98, epsilon=1e-9)
        self.w = keras.Variable(np.ones([3, 2], np.float32) * 0.1)
        self.lrs = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.randn(4, 3), tf.float32),)


@JIT
def step(s, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(tf.matmul(x, s.w) - 1.0))
    s.opt.apply_gradients([(tape.gradient(loss, s.w), s.w)])
    it = int(s.opt.iterations)
    if it % 3 == 1:
        s.lrs.append(float(s.schedule(it)))
        print("iteration", it, "lr", round(s.lrs[-1], 6))
    return loss


STEP = step
