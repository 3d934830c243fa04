"""A Keras Model subclass whose `call(x, training=False)` uses Dropout and
BatchNormalization, L2 kernel regularizers (so `model.losses` is non-empty and added to
the loss), a `keras.metrics.Mean` read back with `result().numpy()` into a Python list,
and an f-string log line printed every 3 calls; a validation pass with training=False."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 15


class Classifier(keras.Model):
    def __init__(self, hidden=16, classes=3, rate=0.25, l2=1e-3):
        super().__init__()
        reg = keras.regularizers.L2(l2)
        self.dense1 = keras.layers.Dense(hidden, kernel_regularizer=reg)
        self.bn = keras.layers.BatchNormalization()
        self.dropout = keras.layers.Dropout(rate, seed=7)
        self.dense2 = keras.layers.Dense(classes, kernel_regularizer=reg)

    def call(self, x, training=False):
        h = self.dense1(x)
        h = self.bn(h, training=training)
        h = tf.nn.relu(h)
        h = self.dropout(h, training=training)
        return self.dense2(h)


class Trainer:
    def __init__(self):
        self.model = Classifier()
        self.opt = keras.optimizers.Adam(3e-3)
        self.loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        self.train_loss = keras.metrics.Mean(name="train_loss")
        self.val_acc = keras.metrics.SparseCategoricalAccuracy(name="val_acc")
        self.history = []
        self.calls = 0


def setup():
    t = Trainer()
    t.model(tf.zeros([2, 5]))
    return t


def inputs(i):
    rng = np.random.RandomState(100 + i)
    x = rng.randn(10, 5).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0.5).astype(np.int64)
    return (tf.constant(x), tf.constant(y))


@JIT
def train_step(t, x, y):
    with tf.GradientTape() as tape:
        logits = t.model(x, training=True)
        loss = t.loss_fn(y, logits)
        reg_loss = tf.add_n(t.model.losses) if t.model.losses else 0.0
        total = loss + reg_loss
    grads = tape.gradient(total, t.model.trainable_variables)
    t.opt.apply_gradients(zip(grads, t.model.trainable_variables))
    t.train_loss.update_state(loss)
    val_logits = t.model(x, training=False)
    t.val_acc.update_state(y, val_logits)
    t.calls += 1
    t.history.append(t.train_loss.result().numpy())
    if t.calls % 3 == 0:
        print(f"step {t.calls:3d}: loss={t.train_loss.result():.4f} "
              f"reg={float(reg_loss):.5f} val_acc={t.val_acc.result().numpy():.3f}")
        t.train_loss.reset_state()
        t.val_acc.reset_state()
    return total


STEP = train_step
