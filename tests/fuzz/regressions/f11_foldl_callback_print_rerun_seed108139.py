import numpy as np
import tensorflow as tf

class State:

    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    j1 = 0

    def cb2(a, e):
        print('cb')
        return a * 0.5 + e
    flat3 = tf.reshape(acc, [-1])
    acc = acc + tf.foldl(cb2, flat3)
    raise ValueError('tensor condition')


# ---- janus fuzz case
# seed 108139 (generator v3), minimized
# original: plain 'cb\ncb\ncb\n'; janus 'cb\ncb\ncb\ncb\ncb\ncb\n'
# minimized: stdout: plain 'cb\ncb\ncb\n'; janus 'cb\ncb\ncb\ncb\ncb\ncb\n'
FINDING = 'F11'
KIND = 'stdout'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 38, 'len': 2, 'n': 0, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
