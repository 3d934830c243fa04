import numpy as np
import tensorflow as tf
G_SCALE = 1.5

class State:

    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0

    def inner2(z):
        return z * 0.5 + acc
    for i3 in range(k % 3 + 1):

        def cb4(e):
            return e * 0.5 + G_SCALE
        flat5 = tf.reshape(acc, [-1])
        acc = tf.reshape(tf.map_fn(cb4, flat5), tf.shape(acc))


# ---- janus fuzz case
# seed 108206 (generator v3), minimized
# original: NameError: in user code:
# minimized: janus-raised:NameError: NameError: in user code:
FINDING = 'F12'
KIND = 'janus-raised:NameError'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 36, 'len': 0, 'n': 1, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
