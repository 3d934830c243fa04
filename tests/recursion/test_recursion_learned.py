"""A recursive function over trees ends with the batched recursion (one SubGraph graph
for every tree shape) whatever trees the profiled calls happened to see (F352): a tree
one level deep (the jitted function's own invocation calling itself is recursion), or
leaves only (the first trace that meets the function calling itself on a node reruns
that call profiled, which learns the recursion, instead of a graph per tree shape up to
the specialization limit). Compared with plain Python call by call."""
import pytest
import tensorflow as tf

import janus
from tests.differential import assert_same

EMB = tf.Variable(tf.reshape(tf.range(40, dtype=tf.float32) / 40.0 - 0.5, [10, 4]))
W = tf.Variable(tf.reshape(tf.range(32, dtype=tf.float32) / 64.0 - 0.25, [8, 4]))


class Node:
    def __init__(self, word=None, left=None, right=None):
        self.is_leaf = left is None
        self.word, self.left, self.right = word, left, right


def L(w):
    return Node(w)


def I(left, right):
    return Node(left=left, right=right)


def enc(node):
    if node.is_leaf:
        return tf.gather(EMB, [node.word])
    return tf.tanh(tf.concat([enc(node.left), enc(node.right)], 1) @ W)


def step(tree):
    return tf.reduce_sum(enc(tree))


def enc_scaled(node, scale):
    if node.is_leaf:
        return tf.gather(EMB, [node.word]) * scale
    return tf.tanh(tf.concat([enc_scaled(node.left, scale),
                              enc_scaled(node.right, scale)], 1) @ W)


class Encoder:
    def __init__(self):
        self.w = W

    def encode(self, node):
        if node.is_leaf:
            return tf.gather(EMB, [node.word])
        return tf.tanh(tf.concat([self.encode(node.left), self.encode(node.right)], 1)
                       @ self.w)


ENCODER = Encoder()


def method_step(tree):
    return tf.reduce_sum(ENCODER.encode(tree))


SHAPES = [I(I(L(1), L(2)), L(3)), I(L(4), I(L(5), L(6))), I(I(L(1), L(2)), I(L(3), L(4))),
          I(I(I(L(1), L(2)), L(3)), L(4)), I(L(1), I(L(2), I(L(3), L(4)))),
          I(I(L(5), L(6)), I(I(L(7), L(8)), L(9))), I(L(0), L(9)), L(7)] * 2

FIRST = {
    "leaf, one level": [L(3), I(L(1), L(2))],
    "one level, one level": [I(L(1), L(2)), I(L(3), L(4))],
    "leaf, leaf": [L(3), L(4)],
    "leaf, two levels": [L(3), I(L(1), I(L(2), L(3)))],
}


def _check(fn, jitted, first, shapes=SHAPES, wrap=lambda t: (t,)):
    stats = assert_same(fn, [wrap(t) for t in first + shapes], jitted=jitted)
    assert jitted.profile.recursive, "the recursion was not learned"
    assert stats.generations <= 3, stats
    assert stats.graph_calls >= len(shapes) - 3, stats
    return stats


@pytest.mark.parametrize("first", list(FIRST), ids=list(FIRST))
def test_a_jitted_recursive_encoder_learns_its_recursion(first):
    """Before: profiled on a leaf and a tree one level deep, or leaves only, `enc` was
    never learned recursive: a graph per tree shape, 6 generations to the limit."""
    _check(enc, janus.jit(enc), FIRST[first])


@pytest.mark.parametrize("first", list(FIRST), ids=list(FIRST))
def test_a_step_calling_the_encoder_learns_its_recursion(first):
    """Before: profiled on leaves only, `step` made a graph per tree shape."""
    _check(step, janus.jit(step), FIRST[first])


def test_an_encoder_with_another_argument_learns_its_recursion():
    _check(enc_scaled, janus.jit(enc_scaled), FIRST["leaf, leaf"],
           wrap=lambda t: (t, 0.5))


def test_a_recursive_method_learns_its_recursion():
    _check(method_step, janus.jit(method_step), FIRST["leaf, one level"])
    _check(method_step, janus.jit(method_step), FIRST["leaf, leaf"])


def countdown(node, n):
    """Calls itself on the same node (not a child): not batchable, inlined per `n`."""
    if n == 0:
        return tf.gather(EMB, [node.word])
    return countdown(node, n - 1) * 0.5


def test_a_self_call_on_the_same_node_is_asked_about_once():
    """The trace meets `countdown` calling itself on its own node after a profile that
    never did: one profiled rerun, then graphs (no failed generation, no loop)."""
    jitted = janus.jit(countdown)
    stats = assert_same(countdown, [(L(1), 0), (L(2), 0)] + [(L(k % 9), 2) for k in range(8)],
                        jitted=jitted)
    assert not jitted.profile.recursive
    assert stats.generation_failures == 0, stats
    assert stats.graph_calls >= 6, stats


def enc_depth(node, depth):
    """Passes each level its own depth: a batched run would give every level the root's."""
    if node.is_leaf:
        return tf.gather(EMB, [node.word]) * float(depth + 1)
    return tf.tanh(tf.concat([enc_depth(node.left, depth + 1),
                              enc_depth(node.right, depth + 1)], 1) @ W)


def depth_step(tree):
    return tf.reduce_sum(enc_depth(tree, 0))


@pytest.mark.parametrize("first", ["leaf, leaf", "leaf, two levels"])
def test_a_recursion_passing_each_level_its_own_argument_is_not_batched(first):
    """Before: batched, every level got the root's depth (wrong results: also before
    F352's fix, profiled on a tree two levels deep)."""
    jitted = janus.jit(depth_step)
    stats = assert_same(depth_step, [(t,) for t in FIRST[first] + SHAPES[:8]], jitted=jitted)
    assert not jitted.profile.recursive
    assert stats.graph_calls >= 1, stats


def two_roots(tree, other):
    """Two roots of one recursive function with other arguments each."""
    return tf.reduce_sum(enc_scaled(tree, 0.5)) + tf.reduce_sum(enc_scaled(other, 2.0))


def test_two_roots_passing_other_arguments_each_get_their_own():
    """Before: the batched run gave both roots the first root's `scale` (wrong)."""
    first = [I(L(1), I(L(2), L(3)))] * 2
    jitted = janus.jit(two_roots)
    stats = assert_same(two_roots, [(t, SHAPES[(i + 3) % 8]) for i, t in
                                    enumerate(first + SHAPES[:8])], jitted=jitted)
    assert stats.graph_calls >= 1, stats
