import numpy as np
import tensorflow as tf
V0 = tf.Variable(0.5)

def base6(a):
    return tf.tanh(a) * 0.9

def rec7(a, m):
    return base6(a) if m <= 0 else rec7(a * 0.8 + 0.1, m - 1)

class State:

    def __init__(self):
        self.total = 0.0
        self.d = {}

    def step13(self, t):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    if tf.reduce_sum(x) > -0.5 or flag:
        z1 = float(tf.reduce_sum(acc).numpy())
        s.total = s.total + z1
        acc = acc + z1 * 0.01
    elif len(xs) > 0 and tf.reduce_sum(acc) > 0.0:
        if tf.reduce_sum(acc) > 0.5:
            j2 = 0
            while j2 < 1 and tf.reduce_max(x) > 1.0:
                j2 += 1
                acc = s.step3(x + float(k) + float(k))
                G_DICT['c'] = G_DICT.get('c', 0) + 1
                k = k + k
            if len(xs) > 1:
                xs.pop()
            print('acc', acc)
        else:
            s.count = s.count + len(xs)
    else:
        for i4, item5 in enumerate(xs):
            s.d['a'] = s.d.get('a', 0) + 1
            acc = rec7(item5, 2)
            t8 = x
            if len(xs) > 0:
                continue
            acc = tf.sin(acc * G_SCALE) * 0.9
        z9 = float(tf.reduce_sum(x).numpy())
        s.total = s.total + z9
        acc = acc + z9 * 0.01
    j10 = 0
    z14 = float(tf.reduce_sum(acc).numpy())


# ---- janus fuzz case
# seed 4 (generator v1), minimized
# original: SyntaxError: duplicate argument 'janus__' in function definition (fz_7726_1_janus.py, line 1)
# minimized: janus-raised:SyntaxError: SyntaxError: duplicate argument 'janus__' in function definition (fz_7726_603_janus.py, line 1)
FINDING = 'F1'
KIND = 'janus-raised:SyntaxError'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 76, 'len': 1, 'n': 1, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
