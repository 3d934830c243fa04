"""A warmup / train / cooldown schedule driven by an `enum.Enum`: the current phase an
Enum member on the state, per-phase step counts and per-phase loss lists in dicts keyed by
the Enum members (`s.counts[s.phase] += 1`), phase transitions in Python after a fixed
number of steps in each phase (`Phase.next()` a method on the Enum), the optimizer
settings a frozen dataclass replaced with `dataclasses.replace` at each transition, the
phase's name returned and `is`-compared; a linear model of tf.Variables trained with SGD
plus momentum slots; the batch size changes every few calls.

janus (this session): JanusInternalError at the first trace: a heap dict keyed by Enum
members has no source path ('SourceError: not a source step: ('item', <Phase.WARMUP: 1>)',
repro /tmp/s25/repros3/enum_userobj_dict_key.py)."""
import dataclasses
import enum

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16


class Phase(enum.Enum):
    WARMUP = 1
    TRAIN = 2
    COOLDOWN = 3

    def next(self):
        return {Phase.WARMUP: Phase.TRAIN, Phase.TRAIN: Phase.COOLDOWN}.get(self, self)


LENGTH = {Phase.WARMUP: 3, Phase.TRAIN: 6, Phase.COOLDOWN: 100}
LR = {Phase.WARMUP: 0.02, Phase.TRAIN: 0.1, Phase.COOLDOWN: 0.01}


@dataclasses.dataclass(frozen=True)
class OptConfig:
    lr: float = 0.02
    momentum: float = 0.0


class State:
    def __init__(self):
        rng = np.random.RandomState(79)
        self.w = tf.Variable(rng.randn(4, 1).astype(np.float32) * 0.1)
        self.b = tf.Variable(tf.zeros([1]))
        self.slots = [tf.Variable(tf.zeros_like(self.w)), tf.Variable(tf.zeros_like(self.b))]
        self.phase = Phase.WARMUP
        self.counts = {p: 0 for p in Phase}
        self.losses = {p: [] for p in Phase}
        self.cfg = OptConfig()
        self.transitions = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(790 + i)
    n = 8 if i < 6 else 5
    x = rng.randn(n, 4).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5], [0.0]], np.float32) + 0.3).astype(np.float32)
    return tf.constant(x), tf.constant(y)


@JIT
def train_step(s, x, y):
    s.counts[s.phase] += 1
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ s.w + s.b - y))
    grads = tape.gradient(loss, [s.w, s.b])
    for g, v, m in zip(grads, [s.w, s.b], s.slots):
        m.assign(s.cfg.momentum * m + g)
        v.assign_sub(s.cfg.lr * m)
    s.losses[s.phase].append(loss)
    name = s.phase.name
    if s.counts[s.phase] >= LENGTH[s.phase]:
        s.phase = s.phase.next()
        s.cfg = dataclasses.replace(s.cfg, lr=LR[s.phase],
                                    momentum=0.9 if s.phase is Phase.TRAIN else 0.0)
        s.transitions.append((name, s.phase.name))
    return loss, name, s.phase is Phase.COOLDOWN


STEP = train_step
