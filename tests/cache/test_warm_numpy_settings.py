"""A warm process under other TF numpy settings (janus/numpy_modes.py, F411) starts
cold: a graph recorded under the default settings kept float64 where the warm process's
`tnp.asarray(0.5)` is float32 (prefer_float32); under the same settings it is warm."""
import pytest

from tests.cache.test_warm_models import run_program

STEP = '''
import tensorflow as tf

tnp = tf.experimental.numpy


def step(x, f):
    return tnp.asarray(f) * 2 + tf.cast(x, tnp.asarray(f).dtype)
'''

PROGRAM = '''
import json, os, sys
import tensorflow as tf
sys.path.insert(0, os.environ["STEP_DIR"])
if os.environ.get("PREFER_FLOAT32"):
    tf.experimental.numpy.experimental_enable_numpy_behavior(prefer_float32=True)
import janus
from numpy_step import step

jitted = janus.jit(step)
x = tf.constant([1.0, 2.0])
kinds = []
for i in range(5):
    plain, mine = step(x, 0.5 * i), jitted(x, 0.5 * i)
    kinds.append([plain.dtype.name, mine.dtype.name])
print(json.dumps({"kinds": kinds, "stats": janus.stats(jitted).as_dict()}))
'''


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_a_warm_start_under_other_numpy_settings_starts_cold(tmp_path):
    (tmp_path / "numpy_step.py").write_text(STEP)
    cache = tmp_path / "cache"
    cold = run_program(PROGRAM, cache, STEP_DIR=str(tmp_path))
    assert cold["stats"]["profile_calls"] == 2 and cold["stats"]["graph_calls"] >= 1
    other = run_program(PROGRAM, cache, STEP_DIR=str(tmp_path), PREFER_FLOAT32="1")
    assert all(plain == mine == "float32" for plain, mine in other["kinds"]), other
    assert other["stats"]["profile_calls"] == 2, other["stats"]
    same = run_program(PROGRAM, cache, STEP_DIR=str(tmp_path), PREFER_FLOAT32="1")
    assert same["stats"]["profile_calls"] == 0, same["stats"]  # (warm: the same settings)
    assert all(plain == mine == "float32" for plain, mine in same["kinds"]), same
