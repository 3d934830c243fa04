"""A recursive Python function over a nested list/tuple/dict structure of variables
(a hand-rolled tree map): the step applies SGD with weight decay to every leaf and sums
squared norms recursively."""
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True
MIN_GRAPH_CALLS = 4


def tree_map(fn, tree):
    if isinstance(tree, dict):
        return {k: tree_map(fn, v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(tree_map(fn, v) for v in tree)
    return fn(tree)


def tree_leaves(tree):
    if isinstance(tree, dict):
        return [leaf for k in sorted(tree) for leaf in tree_leaves(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [leaf for v in tree for leaf in tree_leaves(v)]
    return [tree]


def sq_norm(tree):
    if isinstance(tree, dict):
        return sum(sq_norm(v) for v in tree.values())
    if isinstance(tree, (list, tuple)):
        return sum(sq_norm(v) for v in tree)
    return tf.reduce_sum(tree * tree)


class State:
    def __init__(self):
        rng = np.random.RandomState(42)
        v = lambda *shape: tf.Variable(rng.randn(*shape).astype(np.float32) * 0.3)
        self.params = {"enc": [v(4, 5), (v(5,), v(5, 5))], "dec": {"w": v(5, 1), "b": v(1)}}
        self.decay = 1e-3


def make_state():
    return State()


def forward(p, x):
    w1, (b1, w2) = p["enc"][0], p["enc"][1]
    h = tf.nn.relu(x @ w1 + b1)
    h = tf.nn.relu(h @ w2)
    return h @ p["dec"]["w"] + p["dec"]["b"]


def step(s, x, y):
    leaves = tree_leaves(s.params)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(forward(s.params, x) - y)) + s.decay * sq_norm(s.params)
    grads = dict(zip(map(id, leaves), tape.gradient(loss, leaves)))
    tree_map(lambda v: v.assign_sub(0.05 * grads[id(v)]), s.params)
    return loss


def calls():
    return data.regression(8, seed=43)
