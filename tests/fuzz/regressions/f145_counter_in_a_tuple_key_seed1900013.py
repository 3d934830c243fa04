import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)
BY_KEY = {}

class State:

    def __init__(self):
        self.count = 0

def f(s, x, xs, n, flag):
    acc = x * 0.5
    s.count += 1
    BY_KEY[s.count, 'latest'] = tf.reduce_mean(acc)


# ---- janus fuzz case
# seed 1900013 (generator v49), minimized
# original: heap['globals']['BY_KEY']: keys plain ["(1, 'latest')", "(2, 'latest')", "(3, 'latest')", "(4, 'latest')"], janus ["(1, 'latest')", "(2, 'latest')", "(3, 'latest')", "(<a Python int janus fed to a graph>, 'latest')"]
# minimized: heap: heap['globals']['BY_KEY']: keys plain ["(1, 'latest')", "(2, 'latest')", "(3, 'latest')", "(4, 'latest')"], janus ["(1, 'latest')", "(2, 'latest')", "(3, 'latest')", "(<a Python int janus fed to a graph>, 'latest')"]
FINDING = 'F145'
KIND = 'heap'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 3, 'len': 2, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 3, 'len': 2, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 3, 'len': 2, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 3, 'len': 2, 'n': 3, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
