"""Generator rules (session 38) for lists and tuples holding a Python number that changes
per call, converted by a tensor's operator (F465): `tf.constant([3, 5], tf.int64) + [0,
s.count]` (a counter as a stateless seed's part), `tf.ones([3]) * (1.0, s.total, 2.0)`,
the reflected `[k, 1] + t`, nested `m * [[n, 0], [0, 1]]`, and an int beyond int32. Each
trace of these failed before and the function made one graph per value.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

WEIGHT = 0.4

_STATEMENTS = [
    ["s.count += 1", "ol = tf.constant([3, 5], tf.int64) + [0, s.count]",
     "acc = acc + tf.cast(tf.reduce_sum(tf.random.stateless_uniform([2], seed=ol)), "
     "acc.dtype)"],
    ["s.total += 0.5",
     "acc = acc + tf.cast(tf.reduce_sum(tf.ones([3]) * (1.0, s.total, 2.0)), acc.dtype)"],
    ["k = k + n", "acc = acc + tf.cast(tf.reduce_sum([k, 1] + tf.constant([2, 3])), "
     "acc.dtype)"],
    ["ol = tf.reshape(tf.range(4), [2, 2]) * [[n, 0], [0, 1]]",
     "acc = acc + tf.cast(tf.reduce_sum(ol), acc.dtype)"],
    ["s.count += 2 ** 33",
     "acc = acc + tf.cast((tf.constant([1, 2], tf.int64) - [s.count, 0])[0] % 7, acc.dtype)"],
    ["out.append(tf.constant([0.5, 1.5]) - (s.total, n))"],
]


@rule(WEIGHT, max_depth=2)
def operator_lists(g):
    """(F465) A list/tuple holding a number that changes per call (heap counter, the `n`
    argument, a local int) handed to a tensor's operator."""
    first = g.choice(_STATEMENTS)
    if g.chance(0.5):
        return first
    return first + g.choice(_STATEMENTS)
