import functools
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)


class State:

    def __init__(self):
        self.hist = []

    @JIT
    def run(self, x, xs, n, flag):
        return f(self, x, xs, n, flag)
ENTRY = 'method'


def f(s, x, xs, n, flag):
    acc = x * 0.5
    s.hist.append(tf.reduce_sum(acc))
    z4 = float(tf.reduce_sum(acc).numpy())
    acc = tf.tanh(acc * 0.5 + tf.maximum(x, x)) * 0.5 * len(s.hist) + z4
    return acc


# ---- janus fuzz case
# seed 410715 (generator v11), minimized by hand: the heap list s.hist gets float32 items,
# then float64 ones; a segment traced on the mixed list stacked it as float32
FINDING = 'F21'
KIND = 'internal:InvalidArgumentError'
XFAIL = None
CALLS = [{'dtype': 'float32', 'flag': False, 'len': 1, 'n': 2, 'obj': 'main', 'seed': 42, 'shape': [2, 3]},
 {'dtype': 'float32', 'flag': False, 'len': 1, 'n': 2, 'obj': 'main', 'seed': 42, 'shape': [2, 3]},
 {'dtype': 'float32', 'flag': False, 'len': 1, 'n': 2, 'obj': 'main', 'seed': 42, 'shape': [2, 3]},
 {'dtype': 'float32', 'flag': False, 'len': 1, 'n': 2, 'obj': 'main', 'seed': 42, 'shape': [2, 3]},
 {'dtype': 'float32', 'flag': False, 'len': 1, 'n': 2, 'obj': 'main', 'seed': 42, 'shape': [2, 3]},
 {'dtype': 'float64', 'flag': False, 'len': 1, 'n': 3, 'obj': 'main', 'seed': 42, 'shape': [2, 3]},
 {'dtype': 'float64', 'flag': False, 'len': 1, 'n': 3, 'obj': 'main', 'seed': 42, 'shape': [2, 3]},
 {'dtype': 'float64', 'flag': False, 'len': 1, 'n': 3, 'obj': 'main', 'seed': 42, 'shape': [2, 3]},
 {'dtype': 'float64', 'flag': False, 'len': 1, 'n': 3, 'obj': 'main', 'seed': 42, 'shape': [2, 3]},
 {'dtype': 'float64', 'flag': False, 'len': 1, 'n': 3, 'obj': 'main', 'seed': 42, 'shape': [2, 3]}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
