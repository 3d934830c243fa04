import functools

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)  # the fuzzer sets janus.jit on the janus side


class State:
    def __init__(self):
        self.count = 0
        self.hist = []


def f(s, x, xs, n, flag):
    acc = x * 0.5
    s.hist.append(n)
    print(f'loss {tf.reduce_sum(acc):.3f}')
    print(f'{acc:.2f}')
    return acc

# ---- janus fuzz case
# seed 560298 (generator v20), minimized by hand
# original: internal:TypeError: unsupported format string passed to numpy.ndarray.__format__
# (raised by janus's write-back of the graph's printed text, not by the user's line)
FINDING = 'F42'
KIND = 'internal:TypeError'
XFAIL = None
CALLS = [{'dtype': 'float32', 'flag': True, 'len': 1, 'n': 1, 'obj': 'main', 'seed': 7, 'shape': [3]},
 {'dtype': 'float32', 'flag': True, 'len': 1, 'n': 1, 'obj': 'main', 'seed': 7, 'shape': [3]},
 {'dtype': 'float32', 'flag': True, 'len': 1, 'n': 1, 'obj': 'main', 'seed': 7, 'shape': [3]},
 {'dtype': 'float32', 'flag': True, 'len': 1, 'n': 1, 'obj': 'main', 'seed': 7, 'shape': [3]},
 {'dtype': 'float32', 'flag': True, 'len': 1, 'n': 1, 'obj': 'main', 'seed': 7, 'shape': [1]},
 {'dtype': 'float32', 'flag': True, 'len': 1, 'n': 1, 'obj': 'main', 'seed': 7, 'shape': [1]}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
