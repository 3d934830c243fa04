"""Early stopping with patience: each call is one "epoch" (a train step and a validation
loss), the validation loss read back as a Python float, the best weights kept with
get_weights()/set_weights(), a Python `history` dict of lists, training skipped once
stopped (a Python flag), the learning rate lowered on a plateau."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14
PATIENCE = 3


class Trainer:
    def __init__(self):
        self.model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(6, activation="tanh"),
                                       keras.layers.Dense(1)])
        self.opt = keras.optimizers.SGD(0.2)
        self.best = float("inf")
        self.best_weights = None
        self.wait = 0
        self.stopped_at = None
        self.history = {"loss": [], "val_loss": [], "lr": []}


def setup():
    return Trainer()


def inputs(i):
    rng = np.random.RandomState(i)
    x = rng.randn(10, 5).astype(np.float32)
    y = (x @ np.arange(5, dtype=np.float32)[:, None] * 0.3 + rng.randn(10, 1) * 0.5)
    val = np.random.RandomState(99)  # the same validation set every epoch
    xv = val.randn(6, 5).astype(np.float32)
    yv = xv @ np.arange(5, dtype=np.float32)[:, None] * 0.3 + val.randn(6, 1) * 0.8
    return (tf.constant(x), tf.constant(y, tf.float32), tf.constant(xv),
            tf.constant(yv, tf.float32))


@JIT
def epoch(t, x, y, xv, yv):
    if t.stopped_at is not None:
        return None
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(t.model(x, training=True) - y))
    grads = tape.gradient(loss, t.model.trainable_variables)
    t.opt.apply_gradients(zip(grads, t.model.trainable_variables))
    val_loss = tf.reduce_mean(tf.square(t.model(xv) - yv))
    val = float(val_loss.numpy())
    t.history["loss"].append(round(float(loss), 5))
    t.history["val_loss"].append(round(val, 5))
    t.history["lr"].append(float(t.opt.learning_rate.numpy()))
    if val < t.best - 1e-3:
        t.best = val
        t.best_weights = t.model.get_weights()
        t.wait = 0
    else:
        t.wait += 1
        if t.wait == 2:
            t.opt.learning_rate.assign(t.opt.learning_rate * 0.5)
        if t.wait >= PATIENCE:
            t.model.set_weights(t.best_weights)
            t.stopped_at = len(t.history["loss"])
            print(f"early stop after {t.stopped_at} epochs, best {t.best:.4f}")
    return {"loss": loss, "val_loss": val_loss, "improved": t.wait == 0}


STEP = epoch
