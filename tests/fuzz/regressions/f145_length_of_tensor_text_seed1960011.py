import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)

class State:

    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    txt3 = '-'.join([str(tf.reduce_max(x)), 'a'])
    acc = acc + 0.1 * len(txt3)
    print('sum %s' % tf.reduce_sum(acc))


# ---- janus fuzz case
# seed 1960011 (generator v52), minimized
# original: plain 'text 2-a\nsum tf.Tensor(18.802769, shape=(), dtype=float32)\n'; janus 'text 2-a\nsum tf.Tensor(4.402768, shape=(), dtype=float32)\n'
# minimized: stdout: plain 'sum tf.Tensor(18.402767, shape=(), dtype=float32)\n'; janus 'sum tf.Tensor(4.0027685, shape=(), dtype=float32)\n'
FINDING = 'F145'
KIND = 'stdout'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 71, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 71, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 71, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
