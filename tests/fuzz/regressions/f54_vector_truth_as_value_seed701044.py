import functools
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)

def makej6(c):
    pass

class State:

    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.hist = []
        self.d = {}
        self.h = tf.zeros([])

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    out = []
    hv2 = tf.reduce_sum(acc).numpy()
    bv1 = acc if tf.reduce_min(acc) > -0.5 else xs[3]
    acc = acc + (1.0 if bv1 else 0.5)
    for i3, item4 in enumerate(xs):
        k = k + x.ndim + len(acc.shape)
        MEAN.update_state(tf.reduce_sum(acc * acc))
        acc = acc + tf.cast(MEAN.result(), acc.dtype) * 0.1
        if tf.reduce_max(item4) > 0.5:
            MEAN.reset_state()
        acc = JA7(x) + JB8(acc) * 0.5
        if len(xs) > 3 and tf.reduce_min(acc) > -0.5:
            break
        acc = item4
    with tf.GradientTape() as tape9:
        tape9.watch(acc)
        y10 = tf.reduce_sum(tf.tanh(acc) * x)
    g11 = tape9.gradient(y10, acc)
    acc = acc + 0.1 * g11
    for i16, a17 in enumerate(xs, 1):
        acc = acc + a17 * 0.5 ** i16
    bv19 = 0 or k
    s.last_b = bv19
    if -1.0 < tf.reduce_mean(x) < 0.25:
        acc = acc * 0.5 + tf.tanh(x - 0.5 * tf.reduce_mean(acc))
    else:
        acc = acc - 0.25
    with tf.GradientTape() as tape20:
        y21 = tf.reduce_sum(tf.cast(acc, tf.float32) * V0)
    g22 = tape20.gradient(y21, V0)
    V0.assign_sub(0.01 * g22)
    return (acc, out)


# ---- janus fuzz case
# seed 701044 (generator v25, rules_boolvals weighted x6), minimized
# original: ValueError: The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()
# minimized: internal:ValueError: ValueError: The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()
FINDING = 'boolv10-F54'
KIND = 'internal:ValueError'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 63, 'len': 1, 'n': 0, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 63, 'len': 1, 'n': 0, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 63, 'len': 1, 'n': 0, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
