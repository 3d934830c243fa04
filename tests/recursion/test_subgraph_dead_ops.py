"""An op that may raise and whose result nothing reads, in a recursive function run as a
level-batched SubGraph: eager runs it for every node (and raises on the node that puts
its index out of range), so the batched body keeps it (graphgen/dead_ends.py)."""
import tensorflow as tf

from models.trees import Node
from tests.differential import assert_same

TABLE = tf.reshape(tf.range(40.0), [10, 4])


def leaf(word):
    return Node(label=0, word=word)


def inner(left, right):
    return Node(label=0, left=left, right=right)


def encode(node):
    if node.left is None:
        unused = tf.gather(TABLE, [node.word + 3])
        return tf.gather(TABLE, [node.word])
    return tf.tanh(encode(node.left) + encode(node.right))


def test_an_unused_op_in_a_recursive_function_raises():
    trees = [inner(leaf(1), inner(leaf(2), leaf(0))), inner(inner(leaf(4), leaf(3)), leaf(5)),
             inner(leaf(6), leaf(2)), inner(leaf(0), inner(leaf(1), inner(leaf(2), leaf(3))))]
    calls = [(t,) for t in trees] * 2 + [(inner(leaf(1), leaf(8)),), (trees[0],)]
    stats = assert_same(encode, calls)
    assert stats.graph_calls >= 2, stats
