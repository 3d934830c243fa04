import numpy as np
import tensorflow as tf

class State:

    def __init__(self):
        self.hist = []

def f(s, x, xs, n, flag):
    acc = x * 0.5

    def cb1(a, e):
        s.hist.append(len(s.hist))
    flat2 = tf.reshape(acc, [-1])
    acc = tf.reshape(tf.scan(cb1, flat2), tf.shape(acc))


# ---- janus fuzz case
# seed 108874 (generator v3), minimized
# original: heap['objects']['main'].hist: length plain 5, janus 10
# minimized: heap: heap['objects']['main'].hist: length plain 1, janus 2
FINDING = 'F11'
KIND = 'heap'
XFAIL = None
CALLS = [{'shape': [2, 3],
  'dtype': 'float32',
  'seed': 98,
  'len': 0,
  'n': 1,
  'flag': True,
  'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
