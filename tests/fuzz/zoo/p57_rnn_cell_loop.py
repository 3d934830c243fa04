"""A user GRU-like cell (a keras Layer with `state_size`, a Python count of steps taken,
and a tensor test resetting the state when its norm explodes) stepped in a Python loop
over the time axis with a list of states; the per-step outputs are stacked, the loss is
taken over the last `keep` steps (a Python argument), trained by a GradientTape."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14


class MinGRUCell(keras.layers.Layer):
    def __init__(self, units, max_norm=4.0):
        super().__init__()
        self.units = units
        self.state_size = units
        self.max_norm = max_norm
        self.steps = 0

    def build(self, input_shape):
        d = input_shape[-1]
        self.wz = self.add_weight(shape=(d + self.units, self.units), name="wz")
        self.wh = self.add_weight(shape=(d + self.units, self.units), name="wh")

    def call(self, x, state):
        self.steps += 1
        xs = tf.concat([x, state], axis=-1)
        z = tf.sigmoid(tf.matmul(xs, self.wz))
        cand = tf.tanh(tf.matmul(xs, self.wh))
        new = (1.0 - z) * state + z * cand
        if tf.norm(new) > self.max_norm:
            new = new / tf.norm(new) * self.max_norm
        return new, new


class State:
    def __init__(self):
        self.cell = MinGRUCell(5)
        self.readout = keras.layers.Dense(1)
        self.opt = keras.optimizers.Adam(1e-2)
        self.cell(tf.zeros([1, 2]), tf.zeros([1, 5]))
        self.readout(tf.zeros([1, 5]))
        self.cell.steps = 0


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(40 + i)
    steps = 6
    x = (rng.randn(4, steps, 2) * (3.0 if i % 4 == 2 else 1.0)).astype(np.float32)
    y = np.cumsum(x[..., :1], axis=1).astype(np.float32)
    return tf.constant(x), tf.constant(y), 3 if i % 3 else 6


@JIT
def train_step(s, x, y, keep):
    with tf.GradientTape() as tape:
        states = [tf.zeros([x.shape[0], s.cell.units])]
        outputs = []
        for t in range(x.shape[1]):
            out, new = s.cell(x[:, t], states[-1])
            states.append(new)
            outputs.append(s.readout(out))
        pred = tf.stack(outputs, axis=1)
        loss = tf.reduce_mean(tf.square(pred[:, -keep:] - y[:, -keep:]))
    variables = s.cell.trainable_variables + s.readout.trainable_variables
    s.opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    return loss, len(states)


STEP = train_step
