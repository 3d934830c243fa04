"""A recursive step's tree dies on return (F440): the node table's walk (recursion/
table.py) called itself from its own closure cell, a cycle keeping every node of the
call's tree until the next garbage collection (on every graph call)."""
import gc

import tensorflow as tf

import janus

EMB = tf.Variable(tf.reshape(tf.range(40, dtype=tf.float32) / 40.0 - 0.5, [10, 4]))
W = tf.Variable(tf.reshape(tf.range(32, dtype=tf.float32) / 64.0 - 0.25, [8, 4]))
FREED = [0]


class Node:
    def __init__(self, word=None, left=None, right=None):
        self.is_leaf = left is None
        self.word, self.left, self.right = word, left, right

    def __del__(self):
        FREED[0] += 1


def enc(node):
    if node.is_leaf:
        return tf.gather(EMB, [node.word])
    return tf.tanh(tf.concat([enc(node.left), enc(node.right)], 1) @ W)


def step(tree):
    return tf.reduce_sum(enc(tree)) + float(FREED[0])


def tree(k):
    return Node(left=Node(k % 10), right=Node(left=Node((k + 1) % 10), right=Node(3)))


def _seen(fn, calls: int) -> list:
    FREED[0] = 0
    return [round(float(fn(tree(k))), 4) for k in range(calls)]


def test_a_recursive_step_s_tree_dies_on_return():
    gc.collect()
    gc.disable()
    try:
        jitted = janus.jit(step)
        assert _seen(jitted, 10) == _seen(step, 10)
        assert jitted.stats.graph_calls > 0
    finally:
        gc.enable()
        gc.collect()
