"""A graph call that fails (an in-graph guard, an op) prints nothing on stderr:
TensorFlow's "Local rendezvous is aborting" warning stays off it (graphgen/quiet_aborts.py),
and TensorFlow's log level is what it was after every call."""
import os
import pathlib
import subprocess
import sys
import textwrap

import tensorflow as tf

from janus.graphgen import quiet_aborts
from tests.differential import assert_same

_ROOT = pathlib.Path(__file__).resolve().parents[2]

_PROGRAM = textwrap.dedent("""
    import numpy as np
    import tensorflow as tf
    import janus

    class S:
        def __init__(self):
            self.step = 0
            self.log = []

    def step(s, x, i):
        s.step += 1
        y = tf.reduce_sum(x * 2.0)
        if s.step % 3 == 0:      # an every-k-steps branch: an in-graph guard fails
            s.log.append(y)
        z = tf.gather(x, i)      # out of range on the last call: the op fails
        return y + z

    results = []
    for fn in (step, janus.jit(step)):
        s, out = S(), []
        for k in range(24):
            try:
                out.append(float(fn(s, tf.constant([float(k), 1.0]), 5 if k == 23 else 1)))
            except Exception as exc:
                out.append(type(exc).__name__)
        results.append((out, [float(v) for v in s.log]))
    assert results[0] == results[1], results
    stats = janus.stats(fn)
    assert stats.graph_calls >= 8 and stats.guard_failures, stats
    print("ok", stats.graph_calls)
""")


def _stderr_of(path: pathlib.Path, program: str, **env) -> subprocess.CompletedProcess:
    path.write_text(program)  # (a file: janus reads the function's source)
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          timeout=300, cwd=_ROOT, env={
                              **os.environ, "JANUS_CACHE": "0", "PYTHONPATH": str(_ROOT),
                              "TF_CPP_MIN_LOG_LEVEL": "0", **env})


def test_failing_guard_prints_nothing_on_stderr(tmp_path):
    done = _stderr_of(tmp_path / "program.py", _PROGRAM)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("ok"), done.stdout
    lines = [line for line in done.stderr.splitlines()
             if "janus-guard" in line or "rendezvous" in line.lower() or "{{node" in line]
    # (the gather out of range logs as plain Python's eager op does: only the plain
    # runs' lines; TF's "ABORTED: Shutdown" at the process's exit is TF's own)
    assert not [line for line in lines if "Shutdown" not in line and
                "indices = 5" not in line], done.stderr[-3000:]


def test_log_level_is_put_back():
    """After janus's graph calls, failing or not, TensorFlow logs as it did before."""
    functions = quiet_aborts._absl_functions()
    assert functions, "absl's SetMinLogLevel not found in TensorFlow's library"
    get, put = functions
    before = get()
    try:
        for level in (0, 1, 3):  # (3: the user's TF_CPP_MIN_LOG_LEVEL=3 is never lowered)
            put(level)

            def pick(x, i):
                return tf.gather(x, i) * 2.0

            stats = assert_same(pick, [(tf.constant([1.0, 2.0, 3.0]), i % 3 - (4 if i == 9
                                                                            else 0))
                                       for i in range(12)])
            assert stats.graph_calls >= 6
            assert get() == level
    finally:
        put(before)
