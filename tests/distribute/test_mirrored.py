"""MirroredStrategy over two logical CPUs, configured after `import janus` and decorating:
the tutorial idioms with `@janus.jit` in place of `@tf.function` finish and equal plain
eager (losses and every variable after every step, Python state after the run).

Each case is its own process (mirrored_case.py): logical devices must be configured before
TensorFlow initializes. A hang (replica threads and janus waiting on each other) fails the
test through the subprocess timeout.
"""
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(_HERE))
STEPS = 6


def run_case(tmp_path, mode: str, counting: str) -> dict:
    env = dict(os.environ, PYTHONPATH=_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               JANUS_CACHE_DIR=str(tmp_path / "cache"), TF_CPP_MIN_LOG_LEVEL="3")
    try:
        done = subprocess.run([sys.executable, os.path.join(_HERE, "mirrored_case.py"), mode,
                               counting, str(STEPS)], env=env, capture_output=True, text=True,
                              timeout=240)
    except subprocess.TimeoutExpired:
        pytest.fail(f"MirroredStrategy {mode} step did not finish in 240 s (hang)")
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def assert_same_run(record):
    eager, jitted = record["eager"], record["janus"]
    assert len(jitted["losses"]) == len(eager["losses"]) == STEPS
    np.testing.assert_allclose(jitted["losses"], eager["losses"], rtol=1e-5, atol=1e-5)
    for step, (mine, theirs) in enumerate(zip(jitted["variables"], eager["variables"])):
        for a, b in zip(mine, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5, err_msg=f"step {step}")
    for key in ("steps", "log"):  # Python state written by the replica steps
        assert jitted[key] == eager[key], key
    np.testing.assert_allclose(jitted["last_loss"], eager["last_loss"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode,counting", [
    pytest.param("outer", "counting", marks=pytest.mark.slow),
    ("outer", "plain"),  # was wrong: train_step's Python ran once, at trace time
                         # (self.last_loss held a SymbolicTensor)
    ("inner", "counting"),  # failed: merge_call inside a graph janus made of a callee
])
def test_mirrored_steps_equal_eager(tmp_path, mode, counting):
    record = run_case(tmp_path, mode, counting)
    assert_same_run(record)
    # every call went through janus (a graph or a plain run it chose), none was lost;
    # the per-replica step is called once per replica (2) and step
    calls = STEPS * (2 if mode == "inner" else 1)
    stats = record["janus"]["stats"]
    assert f"calls={calls} " in stats, stats
    graphs = int(re.search(r"graph=(\d+)", stats).group(1))
    if mode == "outer":  # the distributed step runs as graphs (train_step traced inside)
        assert graphs >= 2, stats
    else:  # a jitted step in a replica context runs plainly (graphgen/distribute.py)
        assert graphs == 0, stats
