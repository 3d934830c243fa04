"""Recursion over nested Python lists of tensors (a tree given as nested lists), each
internal node combining its children with a shared weight; trained by gradient."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14


class State:
    def __init__(self):
        self.w = tf.Variable(tf.eye(3) * 0.5)
        self.b = tf.Variable(tf.zeros([3]))
        self.depths = []


def setup():
    return State()


def encode(s, node, depth=0):
    if isinstance(node, list):
        children = [encode(s, c, depth + 1) for c in node]
        h = tf.add_n(children) if len(children) > 1 else children[0]
        return tf.tanh(tf.matmul(h, s.w) + s.b)
    s.depths.append(depth)
    return node


def make_tree(rng, depth):
    if depth == 0 or rng.rand() < 0.3:
        return tf.constant(rng.randn(1, 3), tf.float32)
    return [make_tree(rng, depth - 1) for _ in range(rng.randint(1, 3))]


def inputs(i):
    rng = np.random.RandomState(i % 4)
    return ([make_tree(rng, 3), make_tree(rng, 2)], tf.constant([[0.5, -0.5, 0.0]]))


@JIT
def step(s, tree, target):
    with tf.GradientTape() as tape:
        root = encode(s, tree)
        loss = tf.reduce_sum((root - target) ** 2)
    gw, gb = tape.gradient(loss, [s.w, s.b])
    s.w.assign_sub(0.1 * gw)
    s.b.assign_sub(0.1 * gb)
    return loss


STEP = step
