import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)

class State:

    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    k = 0
    out = []
    if getattr(s, 'buf', None) is not None:
        s.buf[1] += 1.0
    s.buf = np.zeros(2) + float(k)
    if out:
        out.pop()


# ---- janus fuzz case
# seed 1950005 (generator v52), minimized
# original: heap['objects']['main'].buf: plain array([0., 0.]), janus array([0., 1.])
# minimized: heap: heap['objects']['main'].buf: plain array([0., 0.]), janus array([0., 1.])
FINDING = 'F150'
KIND = 'heap'
XFAIL = None
CALLS = [{'shape': [2, 3],
  'dtype': 'float32',
  'seed': 89,
  'len': 0,
  'n': 2,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 89,
  'len': 0,
  'n': 2,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 89,
  'len': 0,
  'n': 2,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 89,
  'len': 0,
  'n': 2,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 89,
  'len': 3,
  'n': 2,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 89,
  'len': 3,
  'n': 0,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 72,
  'len': 3,
  'n': 0,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 72,
  'len': 3,
  'n': 0,
  'flag': False,
  'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
