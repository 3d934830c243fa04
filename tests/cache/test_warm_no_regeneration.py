"""A warm process of an unchanged script loads every graph the earlier one recorded and
generates nothing, with the results of plain eager execution.

The script makes several JitFunctions of one step function, as the benchmarks do (the
RNN at two hidden sizes, with and without XLA: four JitFunctions, two specializations
of one source), and a few other models. The warm process makes them in the reverse
order, so Keras numbers its optimizers differently (`sgd` vs `sgd_3`).

Before: a warm state held one recorded graph per function (the last generated), a warm
process rewrote it as its own when it merely loaded a graph (so the next JitFunction of
the function started cold), and a Keras object's auto-numbered name counted as part of
its identity: the warm process of this script generated four graphs for the RNN.
"""
import pytest

from tests.cache.test_warm_models import run_program

PROGRAM = '''
import json, os
import numpy as np
import janus
from models import get_workload

RUNS = [("rnn", {"hidden": 8}, True), ("rnn", {"hidden": 8}, False),
        ("rnn", {"hidden": 4}, True), ("rnn", {"hidden": 4}, False),
        ("lstm_lm", {}, True), ("lenet", {}, True), ("treelstm", {}, True)]
if os.environ.get("REVERSED"):
    RUNS.reverse()
out = {}
for name, kwargs, xla in RUNS:
    workload = get_workload(name, "tiny", **kwargs)
    janus_state, eager_state = workload.make_state(), workload.make_state()
    step = janus.jit(workload.step, xla=xla)
    loss_diff = 0.0
    for batch in workload.batches(6):
        got = float(step(janus_state, *batch))
        loss_diff = max(loss_diff, abs(got - float(workload.step(eager_state, *batch))))
    var_diff = max(float(np.max(np.abs(a.numpy() - b.numpy()))) for a, b in
                   zip(workload.variables(eager_state), workload.variables(janus_state)))
    out[f"{workload.name} xla={xla}"] = {
        "loss_diff": loss_diff, "var_diff": var_diff, "warm": janus.cache.is_warm(step),
        "stats": janus.stats(step).as_dict(),
        "loaded": [s.portable is not None for s in step.specializations]}
janus.cache.flush()
print(json.dumps(out))
'''


def _run(cache_dir, **env):
    return run_program(PROGRAM, cache_dir, timeout=600, **env)


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_a_warm_process_of_the_same_script_loads_every_graph_and_generates_nothing(tmp_path):
    cold = _run(tmp_path)
    warm = _run(tmp_path, REVERSED="1")
    assert set(cold) == set(warm) and len(warm) == 7
    for run, result in cold.items():
        assert result["stats"]["generations"] >= 1, run   # (the cold process did generate)
        assert result["loss_diff"] < 1e-4 and result["var_diff"] < 1e-4, (run, result)
    for run, result in warm.items():
        stats = result["stats"]
        assert result["warm"], run
        assert (stats["profile_calls"], stats["generations"], stats["fallback_calls"]) == \
            (0, 0, 0), (run, stats)
        assert stats["graph_calls"] == 6 and result["loaded"] and all(result["loaded"]), \
            (run, result)
        assert result["loss_diff"] < 1e-4 and result["var_diff"] < 1e-4, (run, result)
