import tensorflow as tf

class State:
    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    j = 0
    while j < 2 and tf.reduce_mean(acc) > -0.5:
        j += 1
        if len(xs) == 0:
            raise ValueError('list length')
        acc = acc * 0.5 + x
    return acc


# ---- janus fuzz case
# from seed 1049 (generator v1, 10 calls), minimized by hand; TIMEOUT bounds the hang
FINDING = 'F6'
KIND = 'timeout'
XFAIL = None
TIMEOUT = 20
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 37, 'len': 0, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 37, 'len': 0, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 37, 'len': 0, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 37, 'len': 0, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 37, 'len': 1, 'n': 3, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
