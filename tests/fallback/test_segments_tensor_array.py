"""A `tf.TensorArray` written in one segment's graph and read across a graph break.

Fuzz generator v15 (seed 460065): the segment handed the TensorArray back as a library
object, carrying its graph's flow tensor out of the graph (TypeError "out of scope" on a
later call). A library object holding a tensor of the trace cannot leave it: the stretch
runs plainly; the rest of the function still runs as graphs.
"""
import tensorflow as tf

from tests.differential import assert_same


def written_then_sized(x, n):
    acc = x * 0.5
    ta = tf.TensorArray(acc.dtype, size=0, dynamic_size=True)
    for i in range(n % 3 + 1):
        acc = acc * 0.5 + x
        ta = ta.write(i, acc)
    k = int(ta.size())  # a graph break
    return tf.reduce_mean(ta.stack(), axis=0) + acc * float(k)


def test_tensor_array_across_a_graph_break(any_size):
    x = tf.constant([1.0, 2.0, 3.0])
    assert_same(written_then_sized, [(x, 1)] * 4 + [(x, 2)] * 3 + [(x * 2.0, 0)] * 2)
