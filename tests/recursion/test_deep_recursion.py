"""A user's recursion as deep as plain Python allows runs under janus too (F349): janus's
runtime adds frames per level of converted code (recursion/limits.py gives it room); a
RecursionError janus still meets is the call's (run plainly, never janus's internal
error), and code catching a RecursionError gets plain Python's outcome. Compared with
plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same

E = tf.Variable([[0.1, -0.2], [0.3, 0.05], [-0.4, 0.2]])


class Node:
    def __init__(self, word=None, left=None, right=None):
        self.is_leaf = left is None
        self.word, self.left, self.right = word, left, right


def left_chain(depth: int) -> Node:
    node = Node(0)
    for i in range(depth):
        node = Node(left=node, right=Node((i + 1) % 3))
    return node


def encode(node):
    if node.is_leaf:
        return tf.gather(E, [node.word])
    return tf.tanh(encode(node.left) * 0.5 + encode(node.right))


# (the trees are a global's, picked by index: the differential snapshot of the heap walks
# arguments recursively and would itself hit the limit)
FORESTS = [[left_chain(400), Node(1)], [left_chain(460), Node(2)], [left_chain(520)]]


def encode_all(k):
    return tf.concat([encode(t) for t in FORESTS[k]], 0)


class Log:
    def __init__(self):
        self.lengths = []


def encode_logged(log, k):
    log.lengths.append(k)  # (an effect before the recursion: no plain rerun possible)
    return encode_all(k)


def test_a_chain_400_deep_runs_and_makes_graphs():
    """`encode` 400-520 deep (plain Python's limit is 1000): profiled, janus's frames made
    it 1200+ deep: a RecursionError in janus's profiler, reported as janus's internal
    error; the function then ran plainly for good."""
    stats = assert_same(encode_all, [(i % 3,) for i in range(8)])
    assert stats.internal_errors == 0
    assert stats.graph_calls >= 3, stats


def test_deep_recursion_after_an_effect_is_not_janus_s_internal_error():
    stats = assert_same(encode_logged, [(i % 3,) for i in range(6)], make_state=Log)
    assert stats.internal_errors == 0
