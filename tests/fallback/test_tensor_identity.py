"""Class: a graph handing back a tensor it was given unchanged must hand back that very
tensor object, as Python does (`acc = x` makes `acc` *be* `x`).

Fuzz seed 401626 (long run, generator v8, segments on): a segment ending in `acc = x`
returned a copy of `x`; the tape after it watched the copy, so `tape.gradient(y, [acc,
x])` gave None for `x` where eager gives cos(x), and the program's Python total
differed. The same held for whole-function graphs (`return x`, `s.h = x`): equal
values, but another object (`is` false, a tape watching `x` saw no connection).
"""
import pytest
import tensorflow as tf

import janus
from janus.fallback import segmented
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
            s.total += float(tf.reduce_sum(g ** 2).numpy())   # a graph break
    del tape  # (the tape lives across the break: its block stays Python, split off)
    return grads


def hands_back_its_argument(s, x, k):
    s.h = x
    return x, x * k


def test_a_segment_handing_back_its_input_keeps_the_tape_connected(monkeypatch):
    from janus.transform import segments
    monkeypatch.setattr(segmented, "PAYS", float("inf"))   # every stretch a graph
    monkeypatch.setattr(segmented, "MIN_PLAIN_S", 0.0)
    monkeypatch.setattr(segments, "TINY_OPS", 0)
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


def tape_over_two_arguments(a, b):
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = tf.reduce_sum(tf.tanh(a) * b)
    return tape.gradient(y, a), a is b


def test_one_tensor_passed_twice_is_one_input_and_guarded():
    """Fuzz seed 403481: `acc = x` live into a segment as two inputs (acc, x): the tape
    watching acc missed the x term. Aliasing is part of what a graph assumes: the same
    object twice, then two objects, then the same again, each equal to eager."""
    x, y = tf.constant([0.5, -1.0]), tf.constant([2.0, 3.0])
    calls = [(x, x)] * 4 + [(x, y)] * 3 + [(y, y)] * 2 + [(x, y)]
    stats = assert_same(tape_over_two_arguments, calls)
    assert stats.graph_calls >= 5, stats
