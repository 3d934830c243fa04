"""Class: a Python decision on a tensor's static shape must not change when janus
generalizes the shape (fuzz finding F8).

Once a dimension varies, the graph's tensors have unknown (None) dimensions: eagerly
`t.shape == acc.shape` compares numbers, in the graph it compared `None == None` (true)
and summed tensors plain Python skipped. Now any Python use of an unknown dimension
fails the general trace and janus keeps that shape specialized; known dimensions read
as usual.
"""
import tensorflow as tf

from tests.differential import assert_same


def add_same_shaped(x, xs):
    acc = x * 0.5
    return tf.add_n([acc] + [t for t in xs if t.shape == acc.shape])


def test_comparing_shapes_after_a_dimension_was_generalized():
    one = tf.constant([0.7])
    calls = [(tf.ones([n]) * 0.3, [one]) for n in (3, 3, 3, 4, 1, 2, 1, 5)]
    assert_same(add_same_shaped, calls)


def known_dims_only(x):
    return tf.reshape(x, [-1, x.shape[-1]]) * float(x.shape[-1])


def test_known_dimensions_still_read_in_a_general_graph():
    calls = [(tf.ones([n, 3]),) for n in (2, 2, 2, 4, 5, 6, 7)]
    stats = assert_same(known_dims_only, calls)
    assert stats.graph_calls >= 4
