import numpy as np
import tensorflow as tf
G_DICT = {}

class State:

    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    j4 = 0
    while j4 < 2 and tf.reduce_max(x) > 0.0:
        j4 += 1
        G_DICT['w'] = G_DICT.get('w', 0) + j4
        G_DICT.setdefault('l', []).append(k)
        acc = acc * 0.5 + x
    return (k, acc)


# ---- janus fuzz case
# seed 17 (generator v4), minimized by hand
# original: internal:KeyError: KeyError: 'l' (writing the graph's results back)
FINDING = 'F13'
KIND = 'internal:KeyError'
XFAIL = None
CALLS = [{'shape': [2, 3],
  'dtype': 'float32',
  'seed': 67,
  'len': 1,
  'n': 3,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 67,
  'len': 1,
  'n': 3,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 67,
  'len': 1,
  'n': 3,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 67,
  'len': 1,
  'n': 3,
  'flag': False,
  'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
