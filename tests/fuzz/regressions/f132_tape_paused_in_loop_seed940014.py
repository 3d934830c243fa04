import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)

class State:

    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    xf7 = tf.cast(x, tf.float32)
    with tf.GradientTape(persistent=True) as tape4:
        tape4.watch(xf7)
        v6 = tf.reduce_sum(xf7) * 0.5
        for i8 in range(len(xs)):
            with tape4.stop_recording():
                v6 = v6 + tf.reduce_sum(xf7 * xf7)
            v6 = v6 + tf.reduce_mean(tf.tanh(xf7))
            if tf.reduce_sum(v6) > 2.0:
                break
    gr5 = tape4.gradient(v6, xf7)
    acc = acc + tf.cast(tf.zeros_like(acc) if gr5 is None else tf.reshape(gr5, tf.shape(acc)) if gr5.shape == acc.shape else tf.reduce_sum(gr5), acc.dtype) * 0.1
    lr9 = float(n)
    return (acc, k)


# ---- janus fuzz case
# F132: tape.stop_recording() inside a loop janus made a tf.while_loop (seed 940014, generator v43), minimized
# original: result[0]: plain array([2.4201872, 2.3230665, 2.1566074, 2.44809  ], dtype=float32), janus array([2.53339  , 2.374496 , 2.0985274, 2.57885  ], dtype=float32)
# minimized: result: result[0]: plain array([ 0.25256327,  0.09174296, -0.17734542,  0.29910994], dtype=float32), janus array([ 0.3657662 ,  0.1431725 , -0.23542517,  0.4298701 ], dtype=float32)
FINDING = 'F132'
KIND = 'result'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 98, 'len': 2, 'n': 1, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 98, 'len': 2, 'n': 1, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 98, 'len': 2, 'n': 1, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
