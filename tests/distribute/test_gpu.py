"""MirroredStrategy over every visible GPU (one replica per GPU): the same code path as
the logical-CPU tests, run when GPUs exist (the `gpu` extra); skipped cleanly without.

The outer and the per-replica jitted steps must equal plain eager (losses, variables,
Python state), as in test_mirrored.py.
"""
import json
import os
import subprocess
import sys

import pytest
import tensorflow as tf

from tests.distribute.test_mirrored import STEPS, assert_same_run

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(_HERE))

pytestmark = pytest.mark.skipif(not tf.config.list_physical_devices("GPU"),
                                reason="no GPU visible (install the gpu extra on a GPU machine)")


@pytest.mark.parametrize("mode", ["outer", "inner"])
def test_mirrored_over_gpus_equals_eager(tmp_path, mode):
    env = dict(os.environ, PYTHONPATH=_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               JANUS_CACHE_DIR=str(tmp_path / "cache"), TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run([sys.executable, os.path.join(_HERE, "mirrored_case.py"), mode,
                           "counting", str(STEPS), "gpu"], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    assert_same_run(json.loads(done.stdout.strip().splitlines()[-1]))
