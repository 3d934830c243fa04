import functools
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)
G_SCALE = 1.5
VEC = tf.Variable(tf.zeros([4]))

class State:

    def __init__(self):
        self.total = 0.0

def f(s, x, xs, n, flag):
    acc = x * 0.5
    for i1 in range(len(xs) + 1):
        VEC.scatter_nd_add([[i1 % 4]], [tf.cast(tf.reduce_sum(acc), tf.float32)])
    vals7 = [float(n), s.total, G_SCALE]
    s.total = round(sum(vals7) / len(vals7), 3)


# ---- janus fuzz case
# seed 572035 (generator v20), minimized
# original: TypeError: Failed to convert elements of [[janus1r]] to Tensor. Consider casting elements to a supported type. See https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes.
# minimized: internal:TypeError: TypeError: Failed to convert elements of [[janus1r]] to Tensor. Consider casting elements to a supported type. See https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes.
FINDING = 'F47'
KIND = 'internal:TypeError'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 1, 'len': 0, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 1, 'len': 0, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 1, 'len': 0, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 1, 'len': 0, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 1, 'len': 1, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 1, 'len': 1, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 1, 'len': 1, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 1, 'len': 2, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 1, 'len': 2, 'n': 0, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
