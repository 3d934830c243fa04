import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)
RNG = tf.random.Generator.from_seed(11)

class State:

    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    txt1 = '-'.join([str(n), 'a'])
    txt2 = '%s' % len(xs)
    txt3 = f'{n}'
    acc = acc + 0.1 * len(txt3)
    return (acc, k)


# ---- janus fuzz case
# seed 1960009 (generator v52), minimized
# original: result[0]: plain array([0.06196915, 0.62409258, 0.86596702, 0.66390773]), janus array([0.86196915, 1.42409258, 1.66596702, 1.46390773])
# minimized: result: result[0]: plain array([ 0.11729788,  0.5469626 ,  0.36545976, -0.11760416]), janus array([0.91729788, 1.3469626 , 1.16545976, 0.68239584])
FINDING = 'F145'
KIND = 'result'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 23, 'len': 0, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 23, 'len': 0, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float64', 'seed': 23, 'len': 0, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float64', 'seed': 23, 'len': 0, 'n': 2, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
