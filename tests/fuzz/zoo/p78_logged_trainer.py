"""A Trainer class whose jitted `train_step` method logs through the `logging` module: a
module-level `logging.Logger` with a user Handler collecting formatted lines
(`"%(levelname)s %(message)s"`, %-style arguments: the step as `%d`, the learning rate as
`%.3f`, the task name as `%s`), `log.debug` filtered out by the logger's level, a
`log.warning` only on steps where a Python condition on the step holds; a class-level
step counter shared by all trainers (`Trainer.global_steps += 1`, read back through the
instance as `self.global_steps`) next to a per-instance counter; an inverse-time learning
rate computed in Python from it; a small two-layer MLP of tf.Variables.

janus (this session): diverges at the first graph call: the log record is emitted while
tracing (twice on call #2), later traces log a "--- Logging error ---", graph calls log
nothing (repro /tmp/s25/repros3/logging_in_graph.py); and the class attribute written
through the class and read through the instance reads the stale value in graphs
(repro /tmp/s25/repros3/class_attr_via_instance.py)."""
import logging

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14


class ListHandler(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines = []
        self.setFormatter(logging.Formatter("%(levelname)s %(message)s"))

    def emit(self, record):
        self.lines.append(self.format(record))


LOG = logging.Logger("p78_trainer", level=logging.INFO)
HANDLER = ListHandler()
LOG.addHandler(HANDLER)


class Trainer:
    global_steps = 0

    def __init__(self, lr=0.3):
        rng = np.random.RandomState(78)
        self.w1 = tf.Variable(rng.randn(3, 8).astype(np.float32) * 0.4)
        self.w2 = tf.Variable(rng.randn(8, 1).astype(np.float32) * 0.4)
        self.lr0 = lr
        self.steps = 0

    @JIT
    def train_step(self, x, y, task):
        Trainer.global_steps += 1
        self.steps += 1
        lr = self.lr0 / (1.0 + 0.1 * self.global_steps)
        with tf.GradientTape() as tape:
            pred = tf.nn.relu(x @ self.w1) @ self.w2
            loss = tf.reduce_mean(tf.square(pred - y))
        g1, g2 = tape.gradient(loss, [self.w1, self.w2])
        self.w1.assign_sub(lr * g1)
        self.w2.assign_sub(lr * g2)
        LOG.info("step %d task %s lr %.3f", self.steps, task, lr)
        LOG.debug("never shown %d", self.steps)
        if self.steps % 5 == 0:
            LOG.warning("checkpoint at global step %d", self.global_steps)
        return loss, lr


def setup():
    Trainer.global_steps = 0
    HANDLER.lines.clear()
    return Trainer()


def inputs(i):
    rng = np.random.RandomState(780 + i)
    n = 6 if i % 4 else 3
    x = rng.randn(n, 3).astype(np.float32)
    y = (x[:, :1] * 0.7 - x[:, 2:] ** 2).astype(np.float32)
    return tf.constant(x), tf.constant(y), ["a", "b"][i % 2]


def STEP(s, x, y, task):
    loss, lr = s.train_step(x, y, task)
    return loss, lr, list(HANDLER.lines), Trainer.global_steps


def JITTED(s):
    return s.train_step
