"""A multi-task classifier trained the TF1-habit way: a global step `tf.Variable(0,
dtype=tf.int64)` incremented in the step (`step.assign_add(1)`) and read in Python
(`if int(s.global_step) % 5 == 0:` decides logging and an "epoch" end); Keras
`Mean` and `SparseCategoricalAccuracy` metric objects updated inside the step, their
`.result()` read into Python floats (`float(acc.result())`) and `reset_state()`d at each
epoch end inside the step; the losses in a dict `{name: fn}` looped with
`sorted(d.items())`, weighted by a dict of Python floats, each named loss kept in a
history dict of lists; the per-epoch summary printed with an f-string."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 23
EPOCH = 5


def xent(logits, y, y2):
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits[:, :3]))


def aux_mse(logits, y, y2):
    return tf.reduce_mean(tf.square(logits[:, 3] - y2))


def l2_logits(logits, y, y2):
    return 1e-3 * tf.reduce_mean(tf.square(logits))


LOSSES = {"xent": xent, "aux": aux_mse, "z_l2": l2_logits}


class State:
    def __init__(self):
        self.model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(16, activation="relu"),
                                       keras.layers.Dense(4)])
        self.opt = keras.optimizers.SGD(0.1)
        self.global_step = tf.Variable(0, dtype=tf.int64, trainable=False)
        self.loss_mean = keras.metrics.Mean(name="loss")
        self.acc = keras.metrics.SparseCategoricalAccuracy(name="acc")
        self.weights = {"xent": 1.0, "aux": 0.5, "z_l2": 1.0}
        self.history = {name: [] for name in LOSSES}
        self.epochs = []
        self.logged = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    x = rng.randn(12, 5).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32) + (x[:, 1] > 0.5).astype(np.int32)
    y2 = (x[:, 2] * 0.5 + x[:, 3]).astype(np.float32)
    return tf.constant(x), tf.constant(y), tf.constant(y2)


@JIT
def train_step(s, x, y, y2):
    with tf.GradientTape() as tape:
        logits = s.model(x, training=True)
        parts = {}
        total = 0.0
        for name, fn in sorted(LOSSES.items()):
            parts[name] = fn(logits, y, y2)
            total += s.weights[name] * parts[name]
    grads = tape.gradient(total, s.model.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
    s.global_step.assign_add(1)
    s.loss_mean.update_state(total)
    s.acc.update_state(y, logits[:, :3])
    for name, value in parts.items():
        s.history[name].append(value)
    if int(s.global_step) % EPOCH == 0:
        summary = {"step": int(s.global_step), "loss": float(s.loss_mean.result()),
                   "acc": round(float(s.acc.result()), 4)}
        s.epochs.append(summary)
        print(f"epoch {len(s.epochs)}: loss={summary['loss']:.4f} acc={summary['acc']}")
        s.loss_mean.reset_state()
        s.acc.reset_state()
        s.weights["aux"] *= 0.8
    elif int(s.global_step) % 2 == 1:
        s.logged.append(int(s.global_step))
    return total, s.acc.result()


STEP = train_step
