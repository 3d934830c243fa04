import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
G_COUNT = 0
V0 = tf.Variable(0.5)


class State:

    @JIT
    def run(self, x, xs, n, flag):
        return f(self, x, xs, n, flag)


ENTRY = "method"


def f(s, x, xs, n, flag):
    global G_COUNT
    acc = x * 0.5
    V0.assign_add(tf.cast(tf.reduce_mean(acc), tf.float32) * 0.1)
    for i5, item6 in enumerate(xs):
        if len(xs) == 2:
            raise ValueError('list length')
    if not flag:
        G_COUNT += 1
    return acc


# ---- janus fuzz case
# warm-mode seed 300159 (generator v4, cold side), minimized by hand
# original: variables: V0 updated twice on call 0 (profiled)
FINDING = 'F14'
KIND = 'variables'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 26, 'len': 2, 'n': 2, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
