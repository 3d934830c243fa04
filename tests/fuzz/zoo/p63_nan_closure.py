"""A training step built by a factory closure (`make_train_step(model, opt)`) over mutable
Python state: a history list, a lines list and a one-element list as the step counter; a
NaN/Inf guard on the loss (`if not tf.math.is_finite(loss)`) that raises the user's own
exception class carrying the step number, some batches poisoned with inf so it fires, the
caller catching it to count divergences; every 4th step a log line formatted from
`loss.numpy()` with format specs appended to a list of lines."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 18
LOG_EVERY = 4


class DivergedError(ArithmeticError):
    def __init__(self, step, what):
        super().__init__(f"non-finite {what} at step {step}")
        self.step = step


def make_train_step(model, opt, history, lines):
    counter = [0]  # (a one-element list; a `nonlocal` counter is converted too)

    @JIT
    def train_step(x, y):
        counter[0] += 1
        step = counter[0]
        with tf.GradientTape() as tape:
            pred = model(x)
            loss = keras.losses.mean_squared_error(y, pred)
            loss = tf.reduce_mean(loss)
        if not tf.math.is_finite(loss):
            raise DivergedError(step, "loss")
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        history.append(loss)
        if step % LOG_EVERY == 0:
            lines.append(f"[{step:>3}] loss={loss.numpy():.4f} n={len(history)}")
        return loss

    return train_step


class State:
    def __init__(self):
        self.model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"),
                                       keras.layers.Dense(1)])
        self.opt = keras.optimizers.Adam(0.01)
        self.history, self.lines = [], []
        self.train_step = make_train_step(self.model, self.opt, self.history, self.lines)
        self.diverged = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    x = rng.randn(6, 3).astype(np.float32)
    if i in (5, 11):
        x[2, 1] = np.inf
    return (tf.constant(x), tf.constant(x.sum(1, keepdims=True)))


def STEP(s, x, y):
    try:
        return s.train_step(x, y)
    except DivergedError as e:
        s.diverged.append(e.step)
        raise


def JITTED(s):
    return s.train_step
