"""A warm start traces without profiling first, so a Keras layer the process has not
called yet is built inside janus's trace (F39: fuzz generator v18, warm seeds 522107 and
522036). TF lifts the new variables and traces the function again, and the trace's heap
effects were recorded twice: every graph call appended twice to a list (or a fed number
from the first trace leaked into the graph's inputs). A trace that creates a variable is
now refused: that call runs plainly (building the layer), later ones run graphs."""
import json
import sys

import pytest

from tests.cache.helpers import env_for, python_script, run_many

PROGRAM = '''
import json, sys
import tensorflow as tf
import janus

DENSE = tf.keras.layers.Dense(2, kernel_initializer=tf.keras.initializers.Constant(0.3))


class State:
    def __init__(self):
        self.hist = []


def f(s, x, n):
    acc = x * 0.5
    h = tf.reduce_sum(DENSE(tf.reshape(acc, [1, -1])))
    s.hist.append(n)
    return acc + h


jf = janus.jit(f)
rows = []
for i in range(6):
    s = State()
    value = jf(s, tf.constant([1.0, 2.0, 3.0]), i)
    rows.append([len(s.hist), value.numpy().tolist()])
expected = []
for i in range(6):
    s = State()
    value = f(s, tf.constant([1.0, 2.0, 3.0]), i)
    expected.append([len(s.hist), value.numpy().tolist()])
janus.cache.flush()
print(json.dumps({"rows": rows, "expected": expected, "stats": janus.stats(jf).as_dict()}))
'''


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_a_layer_built_inside_a_warm_trace_runs_its_effects_once(tmp_path):
    script = python_script(tmp_path, "unbuilt_layer.py", PROGRAM)
    cache = tmp_path / "cache"
    runs = []
    for _ in ("cold", "warm"):
        (result,) = run_many([([sys.executable, script], env_for(cache), None)])
        assert result.returncode == 0, str(result)
        runs.append(json.loads(result.stdout.splitlines()[-1]))
    cold, warm = runs
    for run in runs:
        assert run["rows"] == run["expected"]
    assert cold["stats"]["graph_calls"] >= 3
    assert warm["stats"]["graph_calls"] >= 3
