import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)

class State:

    def __init__(self):
        self.hist = []

def f(s, x, xs, n, flag):
    acc = x * 0.5
    rw3, ct4 = ([], [])
    for ei2 in range(n + 3):
        v7 = float(tf.reduce_mean(tf.cast(acc, tf.float32)))
        r5 = -0.0 * v7
        rw3.append(r5)
        if tf.reduce_sum(acc) > ei2:
            break
    ret6 = np.array(rw3, dtype=np.float64)
    s.hist.append(repr(ret6.sum()) + repr(sum(rw3, -1e-300)))


# ---- janus fuzz case
# seed 1010024 (generator v45), minimized
# original: heap['s'].hist[1]: plain ('str', 'np.float64(0.0)-1e-300'), janus ('str', 'np.float64(0.0)0.0')
# minimized: heap: heap['objects']['main'].hist[2]: plain ('str', 'np.float64(0.0)-1e-300'), janus ('str', 'np.float64(0.0)0.0')
FINDING = 'F134'
KIND = 'heap'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 41, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 41, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 41, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
