import functools
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)
G_SCALE = 1.5

class State:

    def __init__(self):
        self.count = 0

def f(s, x, xs, n, flag):
    acc = tf.sin(x) * 0.9 * G_SCALE
    loss = tf.reduce_sum(acc * acc)
    if getattr(s, 'best', None) is None or loss < s.best:
        s.best = loss
        s.count += 1


# ---- janus fuzz case
# seed 540051 (generator v19), minimized
# original: heap['objects']['alt'].count: plain ('int', 1), janus ('int', 2)
# minimized: heap: heap['objects']['alt'].count: plain ('int', 1), janus ('int', 2)
# F40: not janus's: Grappler folds `tf.sin(x) * 0.9 * G_SCALE` into one product (1 ulp off eager);
# the runner lists it apart (janus run with those rewrites off agrees)
FINDING = 'F40'
KIND = 'heap'
XFAIL = None
CALLS = [{'shape': [2, 3],
  'dtype': 'float32',
  'seed': 56,
  'len': 0,
  'n': 2,
  'flag': True,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 56,
  'len': 0,
  'n': 2,
  'flag': True,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 56,
  'len': 0,
  'n': 2,
  'flag': True,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 56,
  'len': 0,
  'n': 2,
  'flag': True,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 56,
  'len': 0,
  'n': 2,
  'flag': True,
  'obj': 'new'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 56,
  'len': 0,
  'n': 2,
  'flag': True,
  'obj': 'new'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 56,
  'len': 0,
  'n': 2,
  'flag': True,
  'obj': 'alt'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 56,
  'len': 0,
  'n': 2,
  'flag': True,
  'obj': 'alt'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 56,
  'len': 0,
  'n': 2,
  'flag': True,
  'obj': 'alt'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 56,
  'len': 0,
  'n': 4,
  'flag': True,
  'obj': 'alt'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
