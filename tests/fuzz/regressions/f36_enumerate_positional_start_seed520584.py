import functools
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)

class State:

    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    for i5, a6 in enumerate(xs, 1):
        acc = acc + a6 * 0.5 ** i5
    acc = acc * 0.5
    j9 = 0
    if len(xs) == 1:
        raise ValueError('list length')


# ---- janus fuzz case
# seed 520584 (generator v18): enumerate(xs, 1) over a list of varying length (a DynamicList): janus bound enumerate's arguments as (items,) only: ValueError: too many values to unpack, a janus internal error
FINDING = 'F36'
KIND = 'internal:ValueError'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 9, 'len': 2, 'n': 0, 'flag': False, 'obj': 'new'},
 {'shape': [4], 'dtype': 'float64', 'seed': 9, 'len': 2, 'n': 0, 'flag': False, 'obj': 'new'},
 {'shape': [4], 'dtype': 'float64', 'seed': 9, 'len': 2, 'n': 0, 'flag': False, 'obj': 'new'},
 {'shape': [4], 'dtype': 'float64', 'seed': 9, 'len': 1, 'n': 0, 'flag': False, 'obj': 'new'},
 {'shape': [4], 'dtype': 'float64', 'seed': 9, 'len': 1, 'n': 0, 'flag': False, 'obj': 'new'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
