"""Generator rules (session 38, helper c) for a tensor indexed by scalar int tensors
(F450: `x[0, t]` where the trace's index is a tensor, a loop's counter, an argmax, a
cast count; janus slices with one `Pack` and constant end and strides,
graphgen/tensor_index.py): int32 and int64 indices, negative ones, Python ints beside
them, in a loop that breaks on a tensor, under a tape, and now and then an index out of
range (InvalidArgumentError, as plain eager raises).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_GRID = "m = tf.reshape(tf.range(12.0), [3, 4]) + tf.cast(tf.reduce_sum(acc), tf.float32) * 0.0"
_INDEX = [  # (j: a scalar int tensor)
    "j = tf.argmax(tf.reshape(m, [-1])) % 4",  # (int64)
    "j = tf.cast(k % 4, tf.int32)",
    "j = tf.constant(2, tf.int64) - tf.cast(k % 2, tf.int64)",
    "j = tf.size(tf.reshape(acc, [-1])) % 3",
]
_READS = [
    "acc = acc + m[1, j] * 0.5",
    "acc = acc + m[-1, -1 - j] - m[j % 3][0]",
    "out.append(m[0, j] + m[2, j])",
    "k = k + int(m[j % 3, 3 - j]) % 5",
    "s.total = s.total + float(m[1, j] * 0.25)",
]
_RAISING = [  # (past the last column now and then: as plain eager, InvalidArgumentError)
    "acc = acc + m[0, j + k % 3]",
    "out.append(m[j + 1, -5 + k % 2])",
]
_LOOPS = [
    "for t in range(4):\n    v = m[t % 3, t]\n    out.append(v)\n"
    "    if v > tf.cast(tf.reduce_sum(acc), tf.float32) * 0.0 + 5.0:\n        break",
    "tot = tf.constant(0.0)\nfor t in range(3):\n    tot = tot + m[t, -1 - t] * m[j % 3, t]\n"
    "acc = acc + tot * 0.01",
]
_TAPE = (
    "with tf.GradientTape() as tape:\n    tape.watch(m)\n    y = tf.nn.softmax(m)[1, j] * 2.0\n"
    "acc = acc + tf.reduce_sum(tape.gradient(y, m)) * 0.1 + y"
)


def _lines(text: str) -> list[str]:
    return text.split("\n")


@rule(0.5, max_depth=2)
def tensor_index(g):
    """(F450) A 2-D tensor indexed by a scalar int tensor (int32 or int64, negative, beside
    Python ints), in a loop that breaks on a tensor, under a tape; rarely out of range."""
    lines = _lines(_GRID) + _lines(g.choice(_INDEX))
    if g.chance(0.12):
        return lines + _lines(g.choice(_RAISING))
    if g.chance(0.25):
        return lines + _lines(g.choice(_LOOPS))
    if g.chance(0.2):
        return lines + _lines(_TAPE)
    return lines + _lines(g.choice(_READS))
