"""A later process runs the recorded RNN and TreeLSTM graphs without tracing them, with the
results of plain eager execution."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAM = '''
import json, sys
import numpy as np
import janus
from models import rnn, treelstm
out = {}
for module in (rnn, treelstm):
    workload = module.workload("tiny")
    eager_state, janus_state = workload.make_state(), workload.make_state()
    step = janus.jit(workload.step)
    loss_diff = 0.0
    for batch in workload.batches(6):
        loss_diff = max(loss_diff, abs(float(workload.step(eager_state, *batch)) -
                                       float(step(janus_state, *batch))))
    var_diff = max(float(np.max(np.abs(a.numpy() - b.numpy()))) for a, b in
                   zip(workload.variables(eager_state), workload.variables(janus_state)))
    out[workload.name] = {"loss_diff": loss_diff, "var_diff": var_diff,
                          "stats": janus.stats(step).as_dict(),
                          "loaded": [s.portable is not None for s in step.specializations]}
janus.cache.flush()
print(json.dumps(out))
'''


def run_program(program: str, cache_dir, timeout: int = 300, **env) -> dict:
    """`program` in a fresh process on the graph cache `cache_dir` (extra environment
    `env`); the JSON object its last output line prints."""
    env = dict(os.environ, JANUS_CACHE_DIR=str(cache_dir), TF_CPP_MIN_LOG_LEVEL="3",
               PYTHONPATH=ROOT, **env)
    env.pop("JANUS_WARM_START", None)
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _run(cache_dir):
    return run_program(PROGRAM, cache_dir)


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_warm_process_runs_recorded_graphs_equal_to_eager(tmp_path):
    cold = _run(tmp_path)
    warm = _run(tmp_path)
    for name in ("rnn", "treelstm"):
        assert cold[name]["stats"]["generations"] == 1 and cold[name]["stats"]["profile_calls"] == 2
        stats = warm[name]["stats"]
        assert (stats["profile_calls"], stats["generations"], stats["graph_calls"]) == (0, 0, 6)
        assert warm[name]["loaded"] == [True]
        assert warm[name]["loss_diff"] < 1e-5 and warm[name]["var_diff"] < 1e-5
