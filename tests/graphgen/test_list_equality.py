"""`decoded == answer` where `decoded` is a list of ints a loop grew until a tensor test
stopped it (a list whose length varies: graphgen/values.DynamicList): the graph computes
Python's answer (lengths, then items; `True == 1`; a list is never a tuple). Every test
compares janus with plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same

W = tf.constant([[0.2, -0.9, 0.5, 0.1], [0.7, 0.3, -0.4, 0.8], [-0.6, 0.5, 0.9, -0.2],
                 [0.4, -0.1, 0.2, 0.6]])


class Counts:
    def __init__(self):
        self.matches = 0
        self.differ = 0
        self.last = []


def decode(x, steps=6):
    """Greedy ids until id 0 (a tensor test), as a seq2seq decoder's."""
    ids = []
    h = x
    for _ in range(steps):
        h = tf.tanh(tf.matmul(h, W))
        best = int(tf.argmax(h[0]))
        if best == 0:
            break
        ids.append(best)
    return ids


def compare(s, x, answer):
    ids = decode(x)
    s.last = ids
    if ids == answer:
        s.matches += 1
    if answer != ids:
        s.differ += 1
    return len(s.last), ids == [], ids != (1, 2)


def inputs(n):
    calls = []
    for i in range(n):
        x = tf.random.stateless_normal([1, 4], [i, 7])
        calls.append((x, decode(x) if i % 3 == 0 else [1, 2] if i % 3 == 1 else [True, 3]))
    return calls


def test_list_equality_of_a_loop_grown_list_runs_in_the_graph():
    stats = assert_same(compare, inputs(36), make_state=Counts)
    assert stats.graph_calls + stats.plain_calls >= 24  # (split before: refused)


def floats(s, x, answer):
    out = []
    h = x
    for _ in range(4):
        h = tf.tanh(tf.matmul(h, W))
        if tf.reduce_max(h) > 0.9:
            break
        out.append(float(tf.reduce_sum(h)))
    if out == answer:  # (floats: not converted; runs as plain Python does)
        s.matches += 1
    return s.matches


def test_lists_of_floats_are_compared_as_python_does():
    calls = [(tf.random.stateless_normal([1, 4], [i, 3]), [0.5]) for i in range(12)]
    assert_same(floats, calls, make_state=Counts)
