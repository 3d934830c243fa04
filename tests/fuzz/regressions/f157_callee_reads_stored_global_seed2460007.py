import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)
G_COUNT = 0

def count_scaled(v):
    return v * (G_COUNT % 7) * 0.1

class State:

    def __init__(self):
        self.count = 0

def f(s, x, xs, n, flag):
    global G_COUNT
    acc = x * 0.5
    G_COUNT += n + 1
    acc = acc + count_scaled(acc)
    return (acc, s.count)


# ---- janus fuzz case
# seed 2460007 (generator v68), minimized
# original: result[0]: plain array([-0.55511326, -0.5477029 ,  0.7767858 ], dtype=float32), janus array([-0.4857241 , -0.47924006,  0.67968756], dtype=float32)
# minimized: result: result[0]: plain array([-0.55511326, -0.5477029 ,  0.7767858 ], dtype=float32), janus array([-0.4857241 , -0.47924006,  0.67968756], dtype=float32)
FINDING = 'F157'
KIND = 'result'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 90, 'len': 0, 'n': 1, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 90, 'len': 0, 'n': 1, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 90, 'len': 0, 'n': 1, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
