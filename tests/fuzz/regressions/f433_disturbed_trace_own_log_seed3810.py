import functools
import math

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)  # the fuzzer sets janus.jit on the janus side

G_LIST = []
G_DICT = {}
G_SCALE = 1.5
G_COUNT = 0
ENV = {"scale": 2.0}
V0 = tf.Variable(0.5)
V1 = tf.Variable(tf.zeros([]))


import keras
from keras.src.utils import backend_utils

MLOOK = keras.layers.StringLookup(vocabulary=["a", "b", "c"])


def mode_scale(a):
    """Scaled by whether Keras thinks it runs in a graph (eagerly: 1.5)."""
    return a * (0.5 if backend_utils.in_tf_graph() else 1.5)


class Conv:
    """Numpy numbers a step hands to TensorFlow in lists: some change per call."""
    def __init__(self):
        self.rate = np.float64(0.25)
        self.px = np.uint8(200)
        self.count = np.int64(3)
        self.fixed = np.float64(0.1)


CONV = Conv()


def conv_tick(n):
    CONV.rate = CONV.rate * np.float64(0.9) + np.float64(0.01) * n
    CONV.px = np.uint8((int(CONV.px) + 37 * n) % 256)
    CONV.count = CONV.count + np.int64(1)


class Item4:
    def __init__(self, w, c):
        self.w = w
        self.c = c


ITEMS5 = [Item4(2, 0.5), Item4(1, 0.25), Item4(4, 1.0), Item4(4, 1.0)]


NUMS = {"f": [0.1 * i for i in range(24)], "i": [i % 7 - 3 for i in range(20)],
        "m": [i if i % 3 else 0.5 * i for i in range(18)],
        "p": [(0.5 * i, 1.0 - i) for i in range(17)], "s": [0.25, 0.5, 0.75]}


import os
import sys
import tempfile
import threading as _wthreading
import time as _wtime

_WLIB = os.path.join(tempfile.gettempdir(), "fuzz_s38_library", "site-packages")
_WSRC = """
class KeyLog:
    def __init__(self):
        self.history = {}
        self.marks = set()

    def log(self, value):
        self.history[len(self.history)] = value

    def mark(self, value):
        self.marks.add(value)
"""


def _wwrite():
    """The library's module, written once."""
    if not os.path.exists(os.path.join(_WLIB, "fuzz_s38keylog.py")):
        os.makedirs(_WLIB, exist_ok=True)
        temporary = os.path.join(_WLIB, "fuzz_s38keylog.%d.tmp" % os.getpid())
        with open(temporary, "w") as written:
            written.write(_WSRC)
        os.replace(temporary, os.path.join(_WLIB, "fuzz_s38keylog.py"))


_wwrite()
if _WLIB not in sys.path:
    sys.path.append(_WLIB)
import fuzz_s38keylog  # noqa: E402

WLOG = fuzz_s38keylog.KeyLog()
WLOG.history["beat"] = 0  # (the writer's key: there before the step's first log)


def _wbeat(seconds=2.0):
    """A writer: every millisecond for two seconds (of the clock: many programs' writers
    alive at once do not stretch it), the same key and mark again."""
    stop, end = _wthreading.Event(), _wtime.monotonic() + seconds
    while _wtime.monotonic() < end and not stop.wait(0.001):
        WLOG.history["beat"] = 0
        WLOG.marks.add("beat")


_wthreading.Thread(target=_wbeat, name="fuzz-writer", daemon=True).start()


def wlen():
    """How much the step's log holds, as one number (the writer's key counted once)."""
    return len(WLOG.history) + 100 * len(WLOG.marks - {"beat"})


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
    if k % 2 == 0:
        acc = mode_scale(acc)
    conv_tick(n)
    s.hist.append(CONV.count // 2 + CONV.count % 3)
    conv_tick(n)
    acc = acc + tf.cast(tf.reduce_sum(tf.constant([0.5 * n, 2])), acc.dtype)
    with tf.GradientTape() as tape1:
        y2 = tf.reduce_sum(tf.cast(acc, tf.float32) * V0)
    g3 = tape1.gradient(y2, V0)
    V0.assign_sub(0.01 * g3)
    for it6 in ITEMS5:
        if it6.w > 0:
            acc = acc * 0.9
        else:
            acc = acc + 0.1
        acc = acc - float(it6.w) * 0.05
    for j7, it6 in enumerate(ITEMS5):
        it6.w = (it6.w * 3 + j7 + len(s.hist)) % 5
        it6.c = it6.c * 0.5 + 0.25
    s.count += 1
    NUMS["s"] = [0.25 * s.count, 0.5, 0.75 + n]
    acc = acc + tf.cast(tf.reduce_sum(tf.constant(NUMS["m"])), acc.dtype) * 0.01
    if len(s.hist) >= 1:
        tf.nest.map_structure(WLOG.log, 1.0)
    k = k + int(tf.reduce_sum(acc).numpy() > 1e9)
    k = k + wlen()
    return (acc, out)

# ---- janus fuzz case
# seed 3810 (generator v100 with rules_s38_frames_threads registered, its writer rule weighted x200), not minimized
# original: heap: heap['globals']['WLOG'].history: keys plain [..., '5'], janus [..., '5', '6']
FINDING = 'F433'
KIND = 'heap'
XFAIL = None
CALLS = [{'dtype': 'float32', 'flag': True, 'len': 2, 'n': 0, 'obj': 'main', 'seed': 48, 'shape': [4]},
 {'dtype': 'float32', 'flag': True, 'len': 2, 'n': 0, 'obj': 'main', 'seed': 48, 'shape': [4]},
 {'dtype': 'float32', 'flag': True, 'len': 2, 'n': 0, 'obj': 'main', 'seed': 48, 'shape': [4]},
 {'dtype': 'float32', 'flag': True, 'len': 2, 'n': 0, 'obj': 'main', 'seed': 48, 'shape': [4]},
 {'dtype': 'float32', 'flag': True, 'len': 2, 'n': 0, 'obj': 'main', 'seed': 48, 'shape': [3]}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
