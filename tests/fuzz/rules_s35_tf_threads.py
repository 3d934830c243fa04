"""Generator rules (session 35) for Python TensorFlow runs on its own threads while janus
traces (F413): a loader library's `tf.data` pipeline makes each element in Python
(`tf.py_function`, run on a thread of TensorFlow's, not one of `threading`'s) and notes
in its `state` that it is ready; the step takes an element (the library takes it
eagerly, also while janus traces: `TAKE()`, no value handed back) and reads the state.
graphgen/other_threads.py counts `FuncRegistry.__call__`, so a trace the pipeline's
Python ran during is inconclusive (nothing put back, retried later); whatever janus
decides, each call's results and the loader's state must be plain Python's. (The note
is the same on every element: how many elements a trace and a plain rerun take is
F414's, open; the write a trace put back while another thread made it, F413's wrong
answer, needs a loader whose work is once per call: tests/graphgen/test_other_threads.py.)

The library is a module the program writes under a `site-packages` directory whose path
has no "/janus" (runtime.user_file: a library's code). Registered in `rules.RULES` on
import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_LOADER = '''\
import os
import sys
import tempfile

# (a path with no "/janus": the library's code is not the program's)
_TLIB = os.path.join(tempfile.gettempdir(), "fuzz_s35_loader", "site-packages")
_TSRC = """
import tensorflow as tf


class Loader:
    \\"\\"\\"Elements made in Python on TensorFlow's threads (noting that one was), only
    as one is taken (`take`: eagerly, also while a graph is built).\\"\\"\\"

    def __init__(self):
        self.state = {}
        elements = tf.data.Dataset.range(10 ** 9).map(
            lambda i: tf.py_function(self._make, [i], tf.int64))
        options = tf.data.Options()
        options.experimental_optimization.inject_prefetch = False
        self.take = Take(iter(elements.with_options(options)))

    def _make(self, i):
        self.state["ready"] = True
        self.state["made_by"] = "tf.data"
        return i


class Take:
    def __init__(self, elements):
        self.elements = elements

    def __call__(self):
        with tf.init_scope():  # (eager, also while a graph is built)
            next(self.elements)
"""


def _twrite():
    """The library's module, written once (no names left behind: both sides alike)."""
    if not os.path.exists(os.path.join(_TLIB, "fuzz_tfloader.py")):
        os.makedirs(_TLIB, exist_ok=True)
        temporary = os.path.join(_TLIB, "fuzz_tfloader.%d.tmp" % os.getpid())
        with open(temporary, "w") as written:
            written.write(_TSRC)
        os.replace(temporary, os.path.join(_TLIB, "fuzz_tfloader.py"))


_twrite()
if _TLIB not in sys.path:
    sys.path.append(_TLIB)
import fuzz_tfloader  # noqa: E402

TLOAD = fuzz_tfloader.Loader()
TAKE = TLOAD.take
'''

_READS = [
    "out.append(len(TLOAD.state))",
    "acc = acc + tf.cast(len(TLOAD.state), acc.dtype) * 0.001",
    "out.append(TLOAD.state.get('ready', False))",
]


@rule(0.3, max_depth=2)
def loader_python_on_tensorflow_threads(g):
    """(F413) A loader's element made in Python on TensorFlow's own thread as the step
    takes it (also while janus traces), and the loader's state read."""
    _helper(g, _LOADER)
    read = g.choice(_READS)
    return g.choice([
        ["TAKE()", read],
        [f"if {g.pcond()}:", "    TAKE()", read],
        [read, "TAKE()"],
        ["for _ in range(2):", "    TAKE()", read],
    ])
