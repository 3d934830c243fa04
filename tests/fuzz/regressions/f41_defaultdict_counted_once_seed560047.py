import functools
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)
import collections
LOGS = collections.defaultdict(list)

class State:

    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    LOGS['step'].append(len(xs))
    k = k + sum((len(v) for v in LOGS.values())) % 3
    st3 = {key: val * 0.5 for key, val in {'u': acc, 'v': x}.items() if key != 'w'}

    def inner4(z):
        return z * 0.5 + x
    return (acc, k)


# ---- janus fuzz case
# seed 560047 (generator v20), minimized
# original: result[1]: plain ('int', 0), janus ('int', 2)
# minimized: result: result[1]: plain ('int', 0), janus ('int', 2)
FINDING = 'F41'
KIND = 'result'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 71, 'len': 1, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 71, 'len': 1, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 71, 'len': 1, 'n': 0, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
