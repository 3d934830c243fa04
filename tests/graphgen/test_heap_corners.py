"""Corners of the heap a trace reads (the probes' round, F186): a list that holds itself
(janus's profile and its copy recursed without end: an internal error; now described and
refused), `del o.attr` uncovering the class's attribute of the name (janus raised
AttributeError reading it). Compared with plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same


class Looped:
    def __init__(self):
        self.items = [tf.constant(1.0)]
        self.items.append(self.items)


def self_holding(s, x):
    s.items[0] = s.items[0] + x
    return s.items[1][1][0]


def test_a_list_that_holds_itself_runs_as_in_python():
    assert_same(self_holding, [(tf.constant(float(i)),) for i in range(5)], Looped)


class Scaled:
    scale = 1.0

    def __init__(self):
        self.x = tf.constant(1.0)


def deleting(o, x, k):
    if k % 3 == 0:
        o.scale = 2.0
    if k % 5 == 0:
        del o.scale
    o.x = o.x * o.scale + x
    return o.x


def test_deleting_an_instance_attribute_uncovers_the_class_s():
    assert_same(deleting, [(tf.constant(0.1), k) for k in range(1, 12)], Scaled)
