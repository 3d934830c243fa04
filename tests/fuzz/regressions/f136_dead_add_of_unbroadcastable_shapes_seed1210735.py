import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)

class State:

    def __init__(self):
        self.total = 0.0
        self.h = tf.zeros([])

    @property
    def scaled(self):
        return self.h * 0.5 + self.total * 0.1

    @property
    def level(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    acc = acc + tf.cast(s.scaled, acc.dtype)
    acc = x
    s.h = acc
    same1 = acc is x
    dd3 = {'a': acc, 'b': 1}


# ---- janus fuzz case
# seed 1210735 (generator v46), minimized
# original: plain raised InvalidArgumentError: {{function_node __wrapped__AddV2_device_/job:localhost/replica:0/task:0/device:CPU:0}} Incompatible shapes: [3] vs. [4] [Op:AddV2] name: ; janus returned
# minimized: missing-raise: plain raised InvalidArgumentError: {{function_node __wrapped__AddV2_device_/job:localhost/replica:0/task:0/device:CPU:0}} Incompatible shapes: [3] vs. [4] [Op:AddV2] name: ; janus returned
FINDING = 'F136'
KIND = 'missing-raise'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 10, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 10, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 10, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 10, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 10, 'len': 1, 'n': 3, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
