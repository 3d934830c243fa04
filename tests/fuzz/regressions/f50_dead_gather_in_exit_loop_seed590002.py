import functools
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)
G_COUNT = 0
V0 = tf.Variable(0.5)

def vh10(a, seen=[]):
    return a + float(len(seen))

def pair11(a, m):
    return (tf.tanh(a), (a * 2.0, m + 1))

class State:

    def __init__(self):
        pass

    def step5(self, t):
        self.count += 1
        self.hist.append(self.count)
        if self.count > 4:
            self.total = self.total + 1.0
        return t * 0.9 + 0.1

    @property
    def scaled(self):
        return self.h * 0.5 + self.total * 0.1

    @property
    def level(self):
        return self.count

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    out = []
    for di23 in range(n + 2):
        if tf.reduce_sum(acc) > 20.0:
            break
        dj24 = tf.gather(tf.reshape(x, [-1]), [di23 + 2])
        acc = acc * 0.8 + 0.3


# ---- janus fuzz case
# seed 590002 (generator v22), minimized
# original: plain raised InvalidArgumentError: {{function_node __wrapped__GatherV2_device_/job:localhost/replica:0/task:0/device:CPU:0}} indices[0] = 6 is not in [0, 6) [Op:GatherV2]; janus returned
# minimized: missing-raise: plain raised InvalidArgumentError: {{function_node __wrapped__GatherV2_device_/job:localhost/replica:0/task:0/device:CPU:0}} indices[0] = 6 is not in [0, 6) [Op:GatherV2]; janus returned
FINDING = 'F50'
KIND = 'missing-raise'
XFAIL = None
CALLS = [{'shape': [2, 3],
  'dtype': 'float32',
  'seed': 46,
  'len': 1,
  'n': 1,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 46,
  'len': 1,
  'n': 1,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 46,
  'len': 1,
  'n': 1,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 46,
  'len': 1,
  'n': 1,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 46,
  'len': 0,
  'n': 1,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float64',
  'seed': 46,
  'len': 0,
  'n': 1,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float64',
  'seed': 46,
  'len': 0,
  'n': 1,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float64',
  'seed': 46,
  'len': 0,
  'n': 4,
  'flag': False,
  'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
