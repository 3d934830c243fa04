"""An expression-tree regressor (a recursive network over Python trees): each input is a
tree of nested tuples (`("add", left, right)`, `("neg", child)`, `("leaf", k)`) with
shared subtrees, evaluated by a recursive method with a dict memo keyed by the subtree
(hits and misses counted in Python across calls); one Dense per operator created in
`__init__` with `setattr(self, f"op_{name}", ...)` and found again with
`getattr(self, f"op_{op}")`; a config object whose `lr` and `clip` are `@property`s with
validating setters (the lr setter clamps and counts changes), snapshotted with
`copy.deepcopy` into a list when the loss improves and a scheduled copy made with
`copy.copy` then modified; a per-operator usage Counter-like dict."""
import copy
import random

import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 20
OPS = {"add": 2, "mul": 2, "neg": 1}
DIM = 4


class Config:
    def __init__(self, lr=0.05, clip=1.0):
        self._lr = lr
        self._clip = clip
        self.changes = 0
        self.tags = ["base"]

    @property
    def lr(self):
        return self._lr

    @lr.setter
    def lr(self, value):
        value = min(max(value, 1e-4), 0.1)
        if value != self._lr:
            self.changes += 1
        self._lr = value

    @property
    def clip(self):
        return self._clip

    @clip.setter
    def clip(self, value):
        if value <= 0:
            raise ValueError(f"clip must be positive, got {value}")
        self._clip = value


class TreeNet:
    def __init__(self):
        for name, arity in OPS.items():
            setattr(self, f"op_{name}", keras.layers.Dense(DIM, activation="tanh",
                                                            name=f"op_{name}"))
        self.readout = keras.layers.Dense(1)
        self.leaf_proj = keras.layers.Dense(DIM)
        self.config = Config()
        self.best = None
        self.snapshots = []
        self.hits = 0
        self.misses = 0
        self.usage = {}
        self.step = 0

    def node(self, tree, leaves, memo):
        if tree in memo:
            self.hits += 1
            return memo[tree]
        self.misses += 1
        op = tree[0]
        if op == "leaf":
            out = self.leaf_proj(leaves[tree[1]][None, :])
        else:
            kids = [self.node(child, leaves, memo) for child in tree[1:]]
            self.usage[op] = self.usage.get(op, 0) + 1
            out = getattr(self, f"op_{op}")(tf.concat(kids + [tf.zeros_like(kids[0])] * (2 - len(kids)), -1))
        memo[tree] = out
        return out

    def variables(self):
        out = []
        for name in sorted(OPS):
            out += getattr(self, f"op_{name}").trainable_variables
        return out + self.readout.trainable_variables + self.leaf_proj.trainable_variables


def make_tree(rng, depth, pool):
    if depth == 0 or rng.random() < 0.25:
        return ("leaf", rng.randrange(4))
    if pool and rng.random() < 0.3:
        return rng.choice(pool)
    op = rng.choice(sorted(OPS))
    tree = (op,) + tuple(make_tree(rng, depth - 1, pool) for _ in range(OPS[op]))
    pool.append(tree)
    return tree


def setup():
    return TreeNet()


def inputs(i):
    rng = random.Random(i)
    pool = []
    trees = tuple(make_tree(rng, 3, pool) for _ in range(3))
    leaves = tf.constant(np.random.RandomState(i).randn(4, 3).astype(np.float32))
    target = tf.constant([[float(len(str(t)) % 5) / 5.0] for t in trees])
    return trees, leaves, target


@JIT
def train_step(net, trees, leaves, target):
    memo = {}
    with tf.GradientTape() as tape:
        roots = tf.concat([net.node(t, leaves, memo) for t in trees], 0)
        pred = net.readout(roots)
        loss = tf.reduce_mean(tf.square(pred - target))
    vars_ = net.variables()
    grads = tape.gradient(loss, vars_)
    grads, _ = tf.clip_by_global_norm([g if g is not None else tf.zeros_like(v)
                                       for g, v in zip(grads, vars_)], net.config.clip)
    for v, g in zip(vars_, grads):
        v.assign_sub(net.config.lr * g)
    net.step += 1
    value = float(loss)
    if net.best is None or value < net.best:
        net.best = value
        snap = copy.deepcopy(net.config)
        snap.tags.append(f"best@{net.step}")
        net.snapshots.append(snap)
        net.config.lr = net.config.lr * 1.1
    else:
        net.config.lr = net.config.lr * 0.7
    if net.step % 6 == 0:
        sched = copy.copy(net.config)
        sched.clip = sched.clip * 0.5
        net.config = sched
        net.config.tags.append(f"halved@{net.step}")  # (shared list: copy.copy is shallow)
    return loss, len(memo)


STEP = train_step
