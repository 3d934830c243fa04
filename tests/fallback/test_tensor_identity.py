"""Class: a graph handing back a tensor it was given unchanged must hand back that very
tensor object, as Python does (`acc = x` makes `acc` *be* `x`).

Fuzz seed 401626 (long run, generator v8, segments on): a segment ending in `acc = x`
returned a copy of `x`; the tape after it watched the copy, so `tape.gradient(y, [acc,
x])` gave None for `x` where eager gives cos(x), and the program's Python total
differed. The same held for whole-function graphs (`return x`, `s.h = x`): equal
values, but another object (`is` false, a tape watching `x` saw no connection).
(One tensor passed as two arguments, fuzz seed 403481: tests/graphgen/test_aliases_guard.py.)
"""
import numpy as np
import tensorflow as tf

import janus
from tests.differential import assert_same


class State:
    def __init__(self):
        self.total = 0.0
        self.h = None


def alias_then_tape(s, x):
    acc = x * 0.5
    out = []
    out.append(len(out))
    acc = x
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(acc)
        y = tf.reduce_sum(tf.sin(acc))
    grads = tape.gradient(y, [acc, x])
    for g in grads:
        if g is not None:
            s.total += float(np.float64(tf.reduce_sum(g ** 2).numpy()))  # a graph break
    del tape  # (the tape lives across the break: its block stays Python, split off)
    return grads


def hands_back_its_argument(s, x, k):
    s.h = x
    return x, x * k


def test_a_segment_handing_back_its_input_keeps_the_tape_connected(any_size):
    calls = [(tf.constant([1.0, 2.0, 3.0]),)] * 9
    stats = assert_same(alias_then_tape, calls, make_state=State, segments=True)
    assert stats.segment_graph_calls > 0, stats


def test_a_graph_hands_back_the_argument_object_itself():
    jitted = janus.jit(hands_back_its_argument)
    state = State()
    for _ in range(5):
        x = tf.constant([1.0, 2.0])
        same, scaled = jitted(state, x, 2.0)
        assert same is x and state.h is x
        assert scaled.numpy().tolist() == [2.0, 4.0]
    assert janus.stats(jitted).graph_calls == 3
