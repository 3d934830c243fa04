"""A `tf.TensorArray` the function makes and rebinds (`out = out.write(t, x)`) in a loop
that stops on a tensor test is carried by that loop's one tf.while_loop as its flow
(graphgen/loop_values.py); before, janus refused the loop and ran it split (zoo p61).
Every test compares janus with plain Python call by call and checks one graph ran the
calls of different trip counts."""
import pytest
import tensorflow as tf

from tests.differential import assert_same


def decode(h, limit):
    out = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    t = 0
    while tf.reduce_sum(h) < 4.0 and t < limit:
        h = h * 1.5 + 0.25
        out = out.write(t, h)
        t += 1
    return out.stack(), t


def _calls():
    return [(tf.constant([0.1 * i, 0.2]), 2 + i % 5) for i in range(10)]


def test_a_while_on_a_tensor_writing_a_tensor_array_is_one_graph():
    stats = assert_same(decode, _calls())
    assert stats.generations <= 2 and stats.graph_calls >= 6, stats


def written_then_tested(x, n):
    out = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    for i in range(n):
        x = x * 2.0 - 0.5
        out = out.write(i, x)
        if tf.reduce_max(x) > 3.0:
            break
    return out.stack(), out.size()


def checked_then_written(x, n):
    out = tf.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=[2])
    for i in range(n):
        x = x * 2.0 - 0.5
        if tf.reduce_max(x) > 3.0:
            break  # (this iteration's write must not count)
        out = out.write(i, x)
    return out.stack(), x


@pytest.mark.parametrize("fn", [written_then_tested, checked_then_written])
def test_a_break_keeps_the_writes_made_before_it(fn):
    calls = [(tf.constant([0.3 * i, 1.0]), 6) for i in range(10)]
    stats = assert_same(fn, calls)
    assert stats.graph_calls >= 6, stats


def reads_back(x, n, clear):
    out = tf.TensorArray(tf.float32, size=0, dynamic_size=True, clear_after_read=clear)
    out = out.write(0, x)
    for i in range(1, n):
        x = out.read(i - 1) * 0.5 + x
        out = out.write(i, x)
        if tf.reduce_sum(x) > 5.0:
            break
    pair = (out, tf.TensorArray(tf.int32, size=0, dynamic_size=True))
    return pair[0].stack()


@pytest.mark.parametrize("clear", [None, False])
def test_a_tensor_array_read_in_the_loop(clear):
    stats = assert_same(reads_back, [(tf.constant([0.5 * i, 1.0]), 7, clear)
                                     for i in range(8)])
    if clear is False:  # (eager's default clears what it reads: that loop runs in Python)
        assert stats.graph_calls >= 4, stats


def learned(w, x, n):
    with tf.GradientTape() as tape:
        tape.watch(w)
        out = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        h, t = x, 0
        while tf.reduce_sum(h) < 6.0 and t < n:
            h = tf.tanh(h * w) + h
            out = out.write(t, h)
            t += 1
        loss = tf.reduce_sum(out.stack() ** 2)
    return loss, tape.gradient(loss, w)


def test_gradients_flow_through_a_carried_tensor_array():
    calls = [(tf.constant([0.5, -0.25]), tf.constant([0.2 * i, 0.1]), 3 + i % 4)
             for i in range(8)]
    stats = assert_same(learned, calls)
    assert stats.graph_calls >= 4, stats


def changes_dtype(x, n):
    out = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    t = 0
    while tf.reduce_sum(x) < 3.0 and t < n:
        x = x + 1.0
        out = out.write(t, x) if t < 2 else tf.TensorArray(tf.int32, size=1).write(0, t)
        t += 1
    return out.stack()


def test_a_tensor_array_rebound_to_another_dtype_is_not_carried():
    # (Python's answer changes with the trip count: janus must not carry the first dtype)
    assert_same(changes_dtype, [(tf.constant([-0.5 * i, 0.0]), 5) for i in range(8)])


def written_in_place(x, n):
    ta = tf.TensorArray(tf.float32, size=n)
    for i in range(n):
        ta.write(i, x * i)  # (eager: the one object; a graph's write makes a new one)
    return ta.stack()


def read_and_cleared(x, clear):
    ta = tf.TensorArray(tf.float32, size=2, clear_after_read=clear)
    ta = ta.write(0, x).write(1, x * 2.0)
    first = ta.read(0)
    return first, ta.stack()


def read_twice(x):
    ta = tf.TensorArray(tf.float32, size=1).write(0, x)
    return ta.read(0) + ta.read(0)


@pytest.mark.parametrize("fn, calls", [
    (written_in_place, [(tf.constant([1.0, 2.0]), 3)] * 5),
    (read_and_cleared, [(tf.constant([1.0, 2.0]), None)] * 5),
    (read_and_cleared, [(tf.constant([1.0, 2.0]), False)] * 5),
    (read_twice, [(tf.constant([1.0, 2.0]),)] * 4),
])
def test_eager_tensor_array_semantics_are_kept(fn, calls):
    # (F167: graphs returned the writes a non-rebound `ta.write` lost, and values a read
    # had cleared, where plain Python gives zeros or raises)
    assert_same(fn, calls)


def test_a_read_with_clear_after_read_false_stays_in_the_graph():
    stats = assert_same(read_and_cleared, [(tf.constant([1.0, 2.0 * i]), False)
                                           for i in range(6)])
    assert stats.graph_calls >= 3, stats

