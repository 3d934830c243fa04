"""Generator rules (session 35) for TensorFlow's numpy behavior (F393): a helper of the
program switches `dtype_conversion_mode` to "all" or "safe" around a computation (and
back, whatever happens: the mode is process-wide), where TF's ops take Python numbers
and WeakTensors as weakly typed and give weak results: `tf.constant(f) * 0.5 + 1.0` of
a fed number, the kind (`EagerWeakTensor`) and dtype of what they give, read by the call.

A call of the program runs with the mode off around it (the fuzzer's programs share a
process); tests/test_numpy_modes.py covers the mode on around the call.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_WEAK = '''\
from tensorflow.python.framework import ops as wops


def weak_calc(a, f, mode):
    """`a` with a number `f` under TF's dtype conversion `mode`; the kind and dtype of the
    weakly typed result. The mode before is back after it, raising or not."""
    saved = wops.promo_mode_enum_to_string(wops.get_dtype_conversion_mode())
    wops.set_dtype_conversion_mode(mode)
    try:
        w = tf.constant(f) * 0.5 + 1.0
        v = tf.tanh(w + tf.reshape(tf.cast(a, tf.float32), [-1])[:2]) * 2.0
        return tf.reduce_sum(tf.cast(v, tf.float32)), type(w).__name__, w.dtype.name
    finally:
        wops.set_dtype_conversion_mode(saved)
'''

_NUMBERS = ["0.25 * n", "n", "float(k % 3)", "0.5", "k"]


@rule(0.4, max_depth=2)
def numpy_weak_mode_block(g):
    """(F393) A computation under dtype_conversion_mode "all"/"safe" in a helper: weak
    tensors and fed numbers, their kind and dtype read by the call."""
    _helper(g, _WEAK)
    total, kind, dtype = g.fresh("wt"), g.fresh("wk"), g.fresh("wd")
    mode = g.choice(['"all"', '"safe"'])
    call = [f"{total}, {kind}, {dtype} = weak_calc({g.tensor()}, {g.choice(_NUMBERS)}, "
            f"{mode})"]
    use = g.choice([
        [f"acc = acc + tf.cast({total}, acc.dtype) * 0.1"],
        [f"out.append({kind})", f"out.append({dtype})"],
        [f"print('weak', {kind}, {dtype})", f"acc = acc + tf.cast({total}, acc.dtype)"],
    ])
    lines = call + use
    return g.choice([lines, [f"if {g.pcond()}:"] + [f"    {line}" for line in lines]])
