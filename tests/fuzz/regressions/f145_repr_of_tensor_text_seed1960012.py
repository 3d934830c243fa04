import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)

class Env1:

    def __init__(self):
        pass

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if action == 1 else -10.0
        cos, sin = (math.cos(theta), math.sin(theta))
        temp = (force + 0.05 * theta_dot ** 2 * sin) / 1.1
        theta_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos ** 2 / 1.1))
        x_acc = temp - 0.05 * theta_acc * cos / 1.1
        done = abs(x) > 2.4 or abs(theta) > 0.21 or self.steps >= 5
        return (self.state.astype(np.float32), 1.0, bool(done))
ENV_2 = Env1()

class State:

    def __init__(self):
        self.hist = []

def f(s, x, xs, n, flag):
    acc = x * 0.5
    txt6 = f'k{tf.reduce_sum(acc)}'
    s.hist.append(repr(txt6))


# ---- janus fuzz case
# seed 1960012 (generator v52), minimized
# original: heap['objects']['main'].hist[5]: plain ('str', "'k0.24750518798828125'"), janus ('str', "'k\\x00janus1f\\x00'")
# minimized: heap: heap['objects']['main'].hist[2]: plain ('str', "'k0.1655830442905426'"), janus ('str', "'k\\x00janus0f\\x00'")
FINDING = 'F145'
KIND = 'heap'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 14, 'len': 0, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 14, 'len': 0, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 14, 'len': 0, 'n': 1, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
