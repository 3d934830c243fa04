import numpy as np
import tensorflow as tf
G_LIST = []
G_SCALE = 1.5

def helper1(a, m):
    b = a + 1.0
    return b * G_SCALE

class State:

    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    k = 0
    out = []
    acc = x + float(k)
    acc = acc * G_SCALE + len(G_LIST) * 0.0
    acc = tf.tanh(tf.maximum(acc, x))
    return {'acc': acc, 'k': k}


# ---- janus fuzz case
# seed 20258 (generator v2), minimized
FINDING = 'F5'
KIND = 'result'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 34, 'len': 0, 'n': 1, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 34, 'len': 0, 'n': 1, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 34, 'len': 0, 'n': 1, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
