"""A dataclass config read in the step (lr, weight decay, label smoothing); the caller
changes cfg.lr between calls (a manual warmup) and flips cfg.use_wd once."""
import dataclasses

import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True


@dataclasses.dataclass
class Config:
    lr: float = 0.05
    weight_decay: float = 1e-3
    label_smoothing: float = 0.1
    use_wd: bool = True
    num_classes: int = 3


class State:
    def __init__(self):
        rng = np.random.RandomState(10)
        self.cfg = Config()
        self.w = tf.Variable(rng.randn(6, 3).astype(np.float32) * 0.1)
        self.b = tf.Variable(tf.zeros([3]))


def make_state():
    return State()


def step(s, x, y, lr):
    cfg = s.cfg
    cfg.lr = lr
    onehot = tf.one_hot(y, cfg.num_classes)
    target = onehot * (1 - cfg.label_smoothing) + cfg.label_smoothing / cfg.num_classes
    with tf.GradientTape() as tape:
        logits = x @ s.w + s.b
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(target, logits))
        if cfg.use_wd:
            loss += cfg.weight_decay * tf.nn.l2_loss(s.w)
    gw, gb = tape.gradient(loss, [s.w, s.b])
    s.w.assign_sub(cfg.lr * gw)
    s.b.assign_sub(cfg.lr * gb)
    return loss


def calls():
    batches = data.classification(10, seed=11)
    return [(x, y, min(0.05, 0.01 * (i + 1))) for i, (x, y) in enumerate(batches)]
