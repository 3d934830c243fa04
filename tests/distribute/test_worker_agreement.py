"""Workers of a MultiWorkerMirroredStrategy never take different paths through a jitted
call (janus/fallback/agreement.py): a host guard that fails on one worker only, or a
tensor-value guard that would fail on one worker only, makes every worker run that call
plainly -- no hang, no mismatched all-reduce -- and the run equals plain Python's.

Each worker is a process (divergent_case.py) started here with its TF_CONFIG; a run that
does not finish in time (the old behaviour: worker 0 in the graph's all-reduce, worker 1
in an eager one) is stopped and fails the test."""
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from janus.distributed import _stop, free_ports, tf_config

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(_HERE))
STEPS = 6
TIMEOUT_S = 150


def run_workers(tmp_path, case: str, executor: str) -> list[dict]:
    out = tmp_path / f"{case}-{executor}"
    out.mkdir()
    ports = free_ports(2)
    procs = []
    try:
        for index in range(2):
            env = dict(os.environ, TF_CONFIG=tf_config(ports, index), TF_CPP_MIN_LOG_LEVEL="3",
                       PYTHONPATH=_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
                       JANUS_CACHE_DIR=str(tmp_path / f"cache-{index}"))
            procs.append(subprocess.Popen(
                [sys.executable, os.path.join(_HERE, "divergent_case.py"), case, executor,
                 str(STEPS), str(out)], env=env, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, start_new_session=True))
        deadline = time.monotonic() + TIMEOUT_S
        while any(p.poll() is None for p in procs):
            if time.monotonic() > deadline:
                pytest.fail(f"{case}/{executor}: the workers did not finish in {TIMEOUT_S} s "
                            "(stuck in mismatched collectives?)")
            time.sleep(0.2)
        for p in procs:
            assert p.returncode == 0, p.stderr.read()[-4000:]
    finally:
        _stop(procs)
    return [json.loads((out / f"worker-{i}.json").read_text()) for i in range(2)]


@pytest.mark.slow
@pytest.mark.parametrize("case", ["host", "ingraph"])
def test_workers_agree_and_equal_plain_python(tmp_path, case):
    jitted = run_workers(tmp_path, case, "janus")
    plain = run_workers(tmp_path, case, "eager")
    for j, p in zip(jitted, plain):
        np.testing.assert_allclose(j["losses"], p["losses"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(j["variables"], p["variables"], rtol=1e-5, atol=1e-6)
        assert j["flagged"] == p["flagged"]
    assert len(jitted[1]["flagged"]) == (1 if case == "host" else 0)
    if case == "host":  # the steady state still runs as graphs on both workers
        for worker in jitted:
            assert worker["stats"]["graph_calls"] >= 2, worker["stats"]
            assert worker["stats"]["guard_failures"]["workers decided differently"] >= 1
    else:  # no graph with an in-graph guard under collectives: both run plainly
        for worker in jitted:
            assert "in-graph guard(s)" in worker["stats"]["explain"], worker["stats"]
    assert jitted[0]["stats"]["graph_calls"] == jitted[1]["stats"]["graph_calls"]
