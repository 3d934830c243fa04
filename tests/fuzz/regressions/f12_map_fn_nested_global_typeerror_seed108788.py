import numpy as np
import tensorflow as tf
G_SCALE = 1.5
V0 = tf.Variable(0.5)

class State:

    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    j1 = 0
    while j1 < 3:
        j1 += 1

        def cb2(e):
            return e * 0.5 + G_SCALE
        flat3 = tf.reshape(acc, [-1])
        acc = tf.reshape(tf.map_fn(cb2, flat3), tf.shape(acc))
    with tf.GradientTape() as tape8:
        y9 = tf.reduce_sum(tf.cast(acc, tf.float32) * V0)


# ---- janus fuzz case
# seed 108788 (generator v3), minimized
# original: TypeError: in user code:
# minimized: janus-raised:TypeError: TypeError: in user code:
FINDING = 'F12'
KIND = 'janus-raised:TypeError'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 24, 'len': 0, 'n': 2, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
