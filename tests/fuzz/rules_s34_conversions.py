"""Generator rules (session 34, g1) for Python values TensorFlow converts to tensors inside
a trace (F390): lists of numpy scalars (an np.float64 rate, an np.uint8 pixel, an np.int64
count) and Python literals handed to `tf.constant`, `tf.convert_to_tensor`, `tf.stack`
and reductions, where eager TF's converter decides the dtype, the values and the errors
(a graph's `make_tensor_proto` decides otherwise: float32, uint8 wrapping, no error for
`[True, 2]`); a Python float times a float16/bfloat16 tensor (F391) and np.int64
arithmetic (F392), each fed rather than guarded per value. Numbers change per call
(fed) or stay (constants of the graph).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_CONV = '''\
class Conv:
    """Numpy numbers a step hands to TensorFlow in lists: some change per call."""
    def __init__(self):
        self.rate = np.float64(0.25)
        self.px = np.uint8(200)
        self.count = np.int64(3)
        self.fixed = np.float64(0.1)


CONV = Conv()


def conv_tick(n):
    CONV.rate = CONV.rate * np.float64(0.9) + np.float64(0.01) * n
    CONV.px = np.uint8((int(CONV.px) + 37 * n) % 256)
    CONV.count = CONV.count + np.int64(1)
'''

_USES = [
    "acc = acc + tf.cast(tf.reduce_sum(tf.constant([CONV.rate, 1.0])), acc.dtype)",
    "acc = acc + tf.cast(tf.reduce_sum(tf.constant([CONV.px, CONV.px]) * 2), acc.dtype) * 0.001",
    "acc = acc + tf.cast(tf.reduce_mean([CONV.fixed, np.float64(0.2)]), acc.dtype)",
    "acc = acc + tf.cast(tf.reduce_sum(tf.stack([CONV.rate, np.float64(n)])), acc.dtype)",
    "acc = acc + tf.cast(tf.reduce_sum(tf.convert_to_tensor([CONV.fixed, np.float32(2.0)])), "
    "acc.dtype)",
    "s.hist.append(tf.constant([CONV.rate]).dtype.name)",
    "s.hist.append(tf.constant([CONV.px]).dtype.name)",
    "acc = acc + tf.cast(tf.reduce_sum(tf.constant([[CONV.count], [2]])), acc.dtype)",
    "acc = acc + tf.cast(tf.reduce_sum(tf.constant([n, 1])), acc.dtype)",
    "acc = acc + tf.cast(tf.reduce_sum(tf.constant([0.5 * n, 2])), acc.dtype)",
    "if n % 4 == 3:\n    acc = acc + tf.cast(tf.reduce_sum([flag, 2]), acc.dtype)",
    "if n % 5 == 4:\n    acc = acc + tf.cast(tf.size(tf.constant([True, 2])), acc.dtype)",
    "if n % 5 == 2:\n    s.hist.append(tf.constant(2 ** 63).dtype.name)",
    # (F391) a Python float every call changes times a half-precision tensor
    "acc = acc + tf.cast(tf.cast(acc, tf.float16) * (0.001 * n + 0.1), acc.dtype)",
    "acc = acc + tf.cast(tf.cast(acc, tf.bfloat16) * (1.0 + 2.0 ** -9 * n), acc.dtype)",
    # (F392) an np.int64 count every call changes in numpy's int arithmetic
    "acc = acc * tf.minimum(1.0, (CONV.count + 1) / 5)",
    "s.hist.append(CONV.count // 2 + CONV.count % 3)",
    "s.hist.append((CONV.count * 2 - 7, 100 // (CONV.count - 4)))",
    "k = k + int(CONV.count % 4)",
]


@rule(0.6, max_depth=1)
def eager_list_conversions(g):
    """(F390) numpy scalars and Python literals in lists TF converts: eager's dtypes,
    values and errors, before or after the numbers change."""
    _helper(g, _CONV)
    use = g.choice(_USES).split("\n")
    change = ["conv_tick(n)"]
    return change + use if g.chance(0.5) else use + change
