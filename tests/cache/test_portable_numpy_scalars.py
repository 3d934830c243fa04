"""A recorded graph must not bring a numpy scalar back as a Python number (F38: fuzz
generator v18, warm seed 522049). `np.float64` is a subclass of `float`, so a constant
np.float64 the graph writes to the heap (`s.total = 0.0 + np.int64(n) + 1`) went through
JSON as a float: the warm process wrote a float where Python writes an np.float64. Such
graphs (and those guarding a numpy scalar's value) are not portable now."""
import numpy as np
import tensorflow as tf

import janus
from janus.cache import portable


class Box:
    def __init__(self, total=0.0):
        self.total = total


def add_numpy(s, x):
    s.total = s.total + np.int64(3) + 1
    return x * 2.0


def scaled(s, x):
    return x * float(s.total)


def _first_spec(fn, make_box):
    jitted = janus.jit(fn)
    x = tf.constant([1.0, 2.0])
    for _ in range(4):
        box = make_box()
        jitted(box, x)
    assert janus.stats(jitted).graph_calls >= 1
    return jitted.specializations[0]


def test_a_numpy_scalar_written_to_the_heap_is_not_portable():
    box = Box()
    add_numpy(box, tf.constant([1.0]))
    assert type(box.total) is np.float64      # what Python writes
    assert portable.export(_first_spec(add_numpy, Box)) is None


def test_a_guard_on_a_numpy_scalar_value_is_not_portable():
    assert portable.export(_first_spec(scaled, lambda: Box(np.float64(2.5)))) is None


def test_a_python_float_stays_portable():
    assert portable.export(_first_spec(scaled, lambda: Box(2.5))) is not None
