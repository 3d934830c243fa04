"""Training config in a frozen dataclass, early stopping bookkeeping in Python attributes
of a trainer object, learning rate from the config, `float(loss)` comparisons."""
import dataclasses

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16


@dataclasses.dataclass(frozen=True)
class Config:
    lr: float = 0.1
    min_delta: float = 1e-3
    patience: int = 3
    l2: float = 1e-4
    log_every: int = 4


@dataclasses.dataclass
class Progress:
    best: float = float("inf")
    wait: int = 0
    epoch: int = 0
    stop: bool = False


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.w = tf.Variable(tf.ones([3, 1]) * 0.2)
        self.progress = Progress()

    @JIT
    def train_step(self, x, y):
        cfg = self.cfg
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(x @ self.w - y)) + cfg.l2 * tf.reduce_sum(self.w ** 2)
        self.w.assign_sub(cfg.lr * tape.gradient(loss, self.w))
        p = self.progress
        p.epoch += 1
        if float(loss) < p.best - cfg.min_delta:
            p.best = float(loss)
            p.wait = 0
        else:
            p.wait += 1
            p.stop = p.wait >= cfg.patience
        if p.epoch % cfg.log_every == 0:
            print(f"epoch {p.epoch} loss {loss.numpy():.5f} best {p.best:.5f} wait {p.wait}")
        return loss


def setup():
    return Trainer(Config())


def inputs(i):
    rng = np.random.RandomState(i % 5)
    x = rng.randn(8, 3).astype(np.float32)
    return (tf.constant(x), tf.constant(x @ np.array([[1.0], [-2.0], [0.5]], np.float32)))


def STEP(t, x, y):
    return t.train_step(x, y)


def JITTED(t):
    return vars(Trainer)["train_step"]
