"""A Keras Model subclass with Dropout and BatchNormalization, Adam with an exponential
decay schedule, a SparseCategoricalAccuracy metric, progress printed every 5 steps."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16


class MLP(keras.Model):
    def __init__(self, hidden=16, classes=3):
        super().__init__()
        self.d1 = keras.layers.Dense(hidden, activation="relu")
        self.bn = keras.layers.BatchNormalization()
        self.drop = keras.layers.Dropout(0.3)
        self.out = keras.layers.Dense(classes)

    def call(self, x, training=False):
        h = self.d1(x)
        h = self.bn(h, training=training)
        h = self.drop(h, training=training)
        return self.out(h)


class State:
    def __init__(self):
        self.model = MLP()
        schedule = keras.optimizers.schedules.ExponentialDecay(0.01, 4, 0.9)
        self.opt = keras.optimizers.Adam(schedule)
        self.loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        self.acc = keras.metrics.SparseCategoricalAccuracy()
        self.history = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.randn(8, 5), tf.float32), tf.constant(rng.randint(0, 3, 8)), i)


@JIT
def train_step(s, x, y, step):
    with tf.GradientTape() as tape:
        logits = s.model(x, training=True)
        loss = s.loss_fn(y, logits)
    grads = tape.gradient(loss, s.model.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
    s.acc.update_state(y, logits)
    if step % 5 == 0:
        print(f"step {step}: loss={float(loss):.4f} acc={float(s.acc.result()):.3f}")
        s.history.append(float(loss))
    return loss


STEP = train_step
