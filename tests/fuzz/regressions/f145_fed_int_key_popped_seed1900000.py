import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)
BY_KEY = {}

class State:

    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    BY_KEY[n % 3] = BY_KEY.get(n % 3, 0) + 2
    kp3 = BY_KEY.pop(n % 3 - 1, None)
    if kp3 is not None:
        acc = acc + float(kp3) * 0.1
    return {'acc': acc, 'k': k}


# ---- janus fuzz case
# seed 1900000 (generator v49), minimized
# original: result['acc']: plain array([1.3244989], dtype=float32), janus array([-0.07550109], dtype=float32)
# minimized (then by hand: a tape dropped): result: result['acc']: plain array([0.558055], dtype=float32), janus array([-0.04194505], dtype=float32)
FINDING = 'F145'
KIND = 'result'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 35, 'len': 1, 'n': 0, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 35, 'len': 1, 'n': 0, 'flag': False, 'obj': 'main'},
 {'shape': [1], 'dtype': 'float32', 'seed': 35, 'len': 1, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [1], 'dtype': 'float32', 'seed': 35, 'len': 1, 'n': 4, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
