import functools
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)

def prep(v):
    return 0.0

class State:

    def __init__(self):
        pass

    @JIT
    def run(self, x, xs, n, flag):
        return f(self, x, xs, n, flag)
ENTRY = 'method'

def f(s, x, xs, n, flag):
    acc = x * 0.5
    out = []
    assert n != 0, ('bad n', n)

    def cb4(a, e):
        return a * 0.5 + e
    flat5 = tf.reshape(acc, [-1])


# ---- janus fuzz case
# seed 520073 (generator v18): an AssertionError raised in a trace with a fed int in its message, formatted by janus after the trace: RuntimeError: no janus trace is active, reported as a janus internal error
FINDING = 'F35'
KIND = 'internal:RuntimeError'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 61, 'len': 2, 'n': 0, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 61, 'len': 2, 'n': 0, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 61, 'len': 2, 'n': 0, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 61, 'len': 2, 'n': 0, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 61, 'len': 1, 'n': 0, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 61, 'len': 1, 'n': 0, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 61, 'len': 1, 'n': 2, 'flag': False, 'obj': 'new'},
 {'shape': [4], 'dtype': 'float32', 'seed': 61, 'len': 1, 'n': 4, 'flag': False, 'obj': 'new'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
