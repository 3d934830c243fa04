import functools

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)  # the fuzzer sets janus.jit on the janus side

import collections

BUF = collections.deque(maxlen=3)


class State:
    def __init__(self):
        self.count = 0


def f(s, x, xs, n, flag):
    acc = x * 0.5
    BUF.append(tf.reduce_mean(acc))
    acc = acc + tf.cast(tf.add_n(list(BUF)), acc.dtype) * 0.1
    if len(BUF) == BUF.maxlen:
        BUF.popleft()
    return acc

# ---- janus fuzz case
# seed 560012 (generator v20), minimized by hand
# original: harness: AttributeError ('SymbolicTensor' object has no attribute 'numpy':
# a graph's symbolic tensor left in the module's deque)
FINDING = 'F41'
KIND = 'harness'
XFAIL = None
CALLS = [{'dtype': 'float32', 'flag': True, 'len': 2, 'n': 1, 'obj': 'main', 'seed': 1, 'shape': [2, 3]},
 {'dtype': 'float32', 'flag': True, 'len': 2, 'n': 1, 'obj': 'main', 'seed': 1, 'shape': [2, 3]},
 {'dtype': 'float32', 'flag': True, 'len': 2, 'n': 1, 'obj': 'main', 'seed': 1, 'shape': [2, 3]},
 {'dtype': 'float32', 'flag': True, 'len': 2, 'n': 1, 'obj': 'main', 'seed': 1, 'shape': [2, 3]},
 {'dtype': 'float32', 'flag': True, 'len': 0, 'n': 1, 'obj': 'main', 'seed': 1, 'shape': [2, 3]},
 {'dtype': 'float32', 'flag': True, 'len': 0, 'n': 1, 'obj': 'main', 'seed': 1, 'shape': [2, 3]}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
