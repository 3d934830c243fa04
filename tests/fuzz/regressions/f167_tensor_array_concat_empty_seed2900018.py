import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)
import bisect
import enum
import heapq
import logging
import operator

class Tally:
    total = 0
EMB = tf.Variable(tf.reshape(tf.range(8.0), [4, 2]))

def counted(fn):

    @functools.wraps(fn)
    def wrapper(s, *args, **kwargs):
        pass
    return wrapper

@counted
def half_tanh(t, scale=0.5):
    return tf.tanh(t) * scale

class State:

    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.hist = []
        self.d = {}
        self.h = tf.zeros([])

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    out = []
    match ('a', n) if flag else {'k': k, 'n': n}:
        case [str() as tag4, int(m1)] if m1 > 1:
            acc = acc * 0.5 + float(m1)
            k = k + len(tag4)
        case {'k': kk2, **rest3}:
            acc = acc + float(kk2) + len(rest3)
        case [m1, *rest3]:
            k = k + m1 + len(rest3)
        case _:
            acc = acc - 0.5
    ta5 = tf.TensorArray(acc.dtype, size=0, dynamic_size=True)
    acc = acc + tf.reduce_sum(ta5.concat()) * 0.01
    with tf.GradientTape() as st7:
        sl8 = tf.reduce_sum(tf.gather(EMB, [n % 4, k % 4]) ** 2)
    sg9 = st7.gradient(sl8, EMB)
    s.d[str(x.shape[0])] = s.d.get(str(x.shape[0]), 0) + 1


# ---- janus fuzz case
# seed 2900018 (generator v71), minimized
# original: plain raised InvalidArgumentError: OpKernel 'ConcatV2' has constraint on attr 'T' not in NodeDef '[N=0, Tidx=DT_INT32]', KernelDef: 'goo.gle/debugproto   op: "ConcatV2" device_type: "CPU" constraint { name: "T" allowed_values { list { type: DT_QINT32 } } } host_memory_arg: "axis"' [Op:ConcatV2] name: ; janus returned
# minimized: missing-raise: plain raised InvalidArgumentError: OpKernel 'ConcatV2' has constraint on attr 'T' not in NodeDef '[N=0, Tidx=DT_INT32]', KernelDef: 'goo.gle/debugproto   op: "ConcatV2" device_type: "CPU" constraint { name: "T" allowed_values { list { type: DT_QINT32 } } } host_memory_arg: "axis"' [Op:ConcatV2] name: ; janus returned
FINDING = 'F167'
KIND = 'missing-raise'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 99, 'len': 1, 'n': 1, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 99, 'len': 1, 'n': 1, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 99, 'len': 1, 'n': 1, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
