import tensorflow as tf

class State:
    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    def inner7(z):
        return z * 0.5 + acc
    acc = inner7(acc)
    acc = inner7(acc)
    return acc


# ---- janus fuzz case
# from seed 100 (generator v1), minimized by hand
FINDING = 'F4'
KIND = 'result'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 68, 'len': 2, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 68, 'len': 2, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 68, 'len': 2, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 68, 'len': 2, 'n': 0, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
