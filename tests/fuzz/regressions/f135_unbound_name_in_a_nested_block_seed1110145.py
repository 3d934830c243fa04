import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)

class State:

    def __init__(self):
        pass

    @property
    def level(self):
        return self.count

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    opt4 = None
    s.last = opt4
    for i8 in range(k % 3 + 1):
        uh10 = acc
        uv13 = acc * 0.5
        uu12 = acc - 0.25
        for ui9 in xs:
            uw11 = uh10 * 0.5
            if tf.reduce_max(uh10) > 1.0:
                uw11 = uw11 + 1.0
            uh10 = uh10 + tf.cast(uw11, uh10.dtype) * 0.1
            uv13 = uv13 * 0.9 + uh10 * 0.2
            uu12 = uh10 - 0.5
            if G_COUNT > 3:
                break
        acc = acc + uw11


# ---- janus fuzz case
# seed 1110145 (generator v46), minimized
# original: plain UnboundLocalError: cannot access local variable 'uw11' where it is not associated with a value; janus ValueError: Attempt to convert a value (<undefined>) with an unsupported type (<class 'janus.transform.runtime._Undefined'>) to a Tensor.
# minimized: wrong-exception:UnboundLocalError->ValueError: plain UnboundLocalError: cannot access local variable 'uw11' where it is not associated with a value; janus ValueError: Attempt to convert a value (<undefined>) with an unsupported type (<class 'janus.transform.runtime._Undefined'>) to a Tensor.
FINDING = 'F135'
KIND = 'wrong-exception:UnboundLocalError->ValueError'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 41, 'len': 0, 'n': 3, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
