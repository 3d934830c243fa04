import numpy as np
import tensorflow as tf
G_SCALE = 1.5
ENV = {'scale': 2.0}

def cb10(a):
    return a * ENV['scale']

class State:

    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.hist = []
        self.d = {}

    def step5(self, t):
        return t * 0.9 + 0.1

def f(s, x, xs, n, flag):
    acc = x * 0.5
    out = []
    if tf.reduce_min(x) > 0.0:
        pass
    elif len(xs) == 1 and tf.reduce_mean(acc) > 1.0:
        t4 = acc * 0.5 + x
        G_LIST.append(k)
    elif tf.reduce_min(acc) > -0.5:
        s.d['t'] = acc
        acc = s.step5(acc)
        j6 = 0
        while j6 < 2 and tf.reduce_mean(acc) > -0.5:
            j6 += 1
            if len(xs) == 2:
                raise ValueError('list length')
            acc = acc * 0.5 + s.step5(acc) * G_SCALE
    else:
        V0.assign(V0 * 0.9)
        with tf.GradientTape() as tape7:
            tape7.watch(acc)
            y8 = tf.reduce_sum(tf.tanh(acc) * x)
        g9 = tape7.gradient(y8, acc)
        acc = acc + 0.1 * g9


# ---- janus fuzz case
# seed 21340 (generator v2), minimized
# original: plain raised ValueError: list length; janus returned
# minimized: missing-raise: plain raised ValueError: list length; janus returned
FINDING = 'F9'
KIND = 'missing-raise'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 28, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 28, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 28, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 28, 'len': 2, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 28, 'len': 2, 'n': 3, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
