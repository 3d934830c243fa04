"""A tensor conversion function of the program's (`tf.register_tensor_conversion_function`)
runs unconverted inside the op that converts its object: its reads of the object's fields
and of globals are guarded (a graph per value), a field the call wrote first refuses
(graphgen/conversion_functions.py; before, the trace's values were baked: plain 3.0,
5.0, janus 2.0, 2.0)."""
import tensorflow as tf

from tests.differential import assert_same

GAIN = 1.0


class Scaled:
    def __init__(self, v, k):
        self.v, self.k = v, k


def _to_tensor(value, dtype=None, name=None, as_ref=False):
    return tf.constant(value.v * value.k * GAIN, dtype=dtype)


tf.register_tensor_conversion_function(Scaled, _to_tensor)


class Listed:
    def __init__(self, items):
        self.items = items


tf.register_tensor_conversion_function(
    Listed, lambda value, dtype=None, name=None, as_ref=False: tf.constant(value.items[0]))


class State:
    def __init__(self):
        self.p = Scaled(1.0, 2.0)
        self.l = Listed([1.0])


def _set_field(i):
    def call(s):
        s.p.v = float(i // 3)  # (the caller's change, between calls)
        s.l.items[0] = float(i // 3)
        return s, tf.constant(1.0)
    return call


def _converted(s, x):
    return x * s.p + tf.add(x, s.p) + tf.convert_to_tensor(s.p)


def test_a_field_changed_between_calls_is_guarded():
    stats = assert_same(_converted, [_set_field(i) for i in range(9)], make_state=State)
    assert stats.graph_calls >= 4


def _gain(i):
    def call(s):
        globals()["GAIN"] = 1.0 + i // 3  # (the same on both sides)
        return s, tf.constant(1.0)
    return call


def test_a_global_the_conversion_reads_is_guarded():
    try:
        stats = assert_same(_converted, [_gain(i) for i in range(9)], make_state=State)
    finally:
        globals()["GAIN"] = 1.0
    assert stats.graph_calls >= 4


def _written_first(s, x, v):
    s.p.v = v
    return tf.add(x, s.p) + tf.convert_to_tensor(s.p)


def _listed(s, x):
    return x + tf.convert_to_tensor(s.l)


def _made_in_the_call(s, x, v):
    return tf.add(x, Scaled(v, 3.0))


def test_fields_written_first_or_data_run_plainly():
    assert_same(_written_first, [(tf.constant(1.0), 1.0 + i) for i in range(6)],
                make_state=State)
    assert_same(_listed, [_set_field(i) for i in range(9)], make_state=State)
    stats = assert_same(_made_in_the_call, [(tf.constant(1.0), 1.0 + i % 2) for i in range(6)],
                        make_state=State)
    assert stats.graph_calls >= 2
