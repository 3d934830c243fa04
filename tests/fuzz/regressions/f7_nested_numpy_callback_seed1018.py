import numpy as np
import tensorflow as tf
G_LIST = []
ENV = {'scale': 2.0}

class State:

    def __init__(self):
        pass

    def step2(self, t):
        self.count += 1
        self.hist.append(self.count)
        if self.count > 4:
            self.total = self.total + 1.0
        return t * 0.9 + 0.1

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    j1 = 0
    env4 = ENV

    def cb3(a):
        return (a * env4.get('scale', 1.0) + len(xs)).astype(a.dtype)
    acc = tf.numpy_function(cb3, [acc], acc.dtype)

    def inner5(z):
        return z * 0.5 + x


# ---- janus fuzz case
# seed 1018 (generator v1), minimized
# original: UnknownError: Graph execution error:
# minimized: janus-raised:UnknownError: UnknownError: Graph execution error:
FINDING = 'F7'
KIND = 'janus-raised:UnknownError'
XFAIL = None
CALLS = [{'shape': [2, 3],
  'dtype': 'float32',
  'seed': 98,
  'len': 1,
  'n': 3,
  'flag': True,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 98,
  'len': 1,
  'n': 3,
  'flag': True,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 98,
  'len': 1,
  'n': 3,
  'flag': True,
  'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
