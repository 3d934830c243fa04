import numpy as np
import tensorflow as tf
V0 = tf.Variable(0.5)
V1 = tf.Variable(tf.zeros([]))

class State:

    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    out = []
    if len(xs) == 1:
        raise ValueError('one item')


# ---- janus fuzz case
# seed 80 (generator v1), minimized
# original: plain raised ValueError: one item; janus returned
# minimized: missing-raise: plain raised ValueError: one item; janus returned
FINDING = 'F3'
KIND = 'missing-raise'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 12, 'len': 0, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 12, 'len': 0, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 12, 'len': 0, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 12, 'len': 1, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 12, 'len': 1, 'n': 4, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
