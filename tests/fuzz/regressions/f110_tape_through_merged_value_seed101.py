import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)
ENV = {'scale': 2.0}

def pair_tape(a, b):
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = tf.reduce_sum(tf.tanh(a) * tf.cast(b, a.dtype))
    ga = tape.gradient(y, a)
    return (a is b, tf.zeros_like(a) if ga is None else ga)

class State:

    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    same3, gr4 = pair_tape(x, acc if n % 2 else x)
    acc = acc + gr4 * 0.1
    return {'acc': acc, 'k': k}


# ---- janus fuzz case
# npsum12-F110: a tape watching x after a tf.cond janus built for `acc if n % 2 else x` (seed 101, generator v37), minimized
# original: result['acc']: plain array([[-0.1468785 , -0.64863234,  0.44036613],
#        [-0.33106281, -0.07930928, -0.30638303]]), janus array([[-0.12862286, -0.57752914,  0.38831289],
#        [-0.29091669, -0.06941191, -0.26905962]])
# minimized: result: result['acc']: plain array([[-0.12841591, -0.55970555,  0.38265916],
#        [-0.28852384, -0.0693794 , -0.2671655 ]]), janus array([[-0.11016027, -0.48860235,  0.33060592],
#        [-0.24837773, -0.05948202, -0.22984209]])
FINDING = "F110"
KIND = 'result'
XFAIL = None
CALLS = [{'shape': [2, 3],
  'dtype': 'float32',
  'seed': 40,
  'len': 0,
  'n': 3,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 40,
  'len': 0,
  'n': 3,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 40,
  'len': 0,
  'n': 3,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 40,
  'len': 0,
  'n': 3,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 40,
  'len': 0,
  'n': 2,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 40,
  'len': 0,
  'n': 2,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float64',
  'seed': 40,
  'len': 0,
  'n': 2,
  'flag': False,
  'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
