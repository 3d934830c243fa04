"""MultiWorkerMirroredStrategy over loopback, started by the launcher
(`python -m janus.distributed`): 2 workers with a janus-jitted distributed step compute
what 1 worker computes with the same global batch (losses and final variables, 1e-5),
and every worker ends with the same variables."""
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STEPS = 4  # janus: 2 profiled calls, then graphs


def launch(tmp_path, workers: int, executor: str = "janus", model: str = "lenet") -> list[dict]:
    out = tmp_path / f"{model}-{executor}-{workers}"
    out.mkdir()
    env = dict(os.environ, PYTHONPATH=_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               JANUS_CACHE_DIR=str(tmp_path / "cache"), TF_CPP_MIN_LOG_LEVEL="3")
    cmd = [sys.executable, "-m", "janus.distributed", "--workers", str(workers), "--model",
           model, "--steps", str(STEPS), "--executor", executor, "--out", str(out),
           "--timeout", "240"]
    try:  # the launcher stops its workers at 240 s; this bounds the launcher itself
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        pytest.fail("the launcher did not stop its workers")
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.count("loss") == STEPS, done.stdout  # the chief's per-step losses
    if executor == "janus":  # after profiling, the distributed step runs as graphs
        graphs = re.search(r"janus: calls=\d+ graph=(\d+) .*generations=(\d+)", done.stdout)
        assert graphs and int(graphs.group(1)) >= 1, done.stdout
        assert int(graphs.group(2)) == 1, done.stdout  # not one graph per batch
    return [json.loads((out / f"worker-{i}.json").read_text()) for i in range(workers)]


def assert_same(a: dict, b: dict):
    np.testing.assert_allclose(a["losses"], b["losses"], rtol=1e-5, atol=1e-5)
    assert len(a["variables"]) == len(b["variables"])
    for x, y in zip(a["variables"], b["variables"]):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-5)


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_two_workers_equal_one_worker(tmp_path):
    one = launch(tmp_path, 1)
    two = launch(tmp_path, 2)
    assert one[0]["replicas"] == 1 and two[0]["replicas"] == 2
    assert_same(two[0], one[0])
    assert_same(two[1], two[0])


@pytest.mark.slow
def test_janus_equals_eager_with_two_workers(tmp_path):
    assert_same(launch(tmp_path, 2, "janus")[0], launch(tmp_path, 2, "eager")[0])


def test_launcher_stops_its_workers_at_the_timeout(tmp_path):
    """Workers that run past --timeout are stopped (their process groups killed); the
    launcher says so and fails."""
    env = dict(os.environ, PYTHONPATH=_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TF_CPP_MIN_LOG_LEVEL="3", JANUS_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-m", "janus.distributed", "--workers", "2",
                           "--steps", "1000", "--timeout", "2"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1
    assert "timeout after 2 s; stopping the workers" in done.stderr


def test_launcher_rejects_bad_arguments():
    done = subprocess.run([sys.executable, "-m", "janus.distributed", "--steps", "0"],
                          env=dict(os.environ, PYTHONPATH=_ROOT), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0 and "--steps" in done.stderr


def plain_losses(model: str, steps: int) -> tuple[list, list]:
    """The workload's own step, run plainly in this process (no strategy)."""
    import importlib

    workload = importlib.import_module(f"models.{model}").workload("tiny")
    state = workload.make_state()
    losses = [float(workload.step(state, *batch)) for batch in workload.batches(steps)]
    return losses, [v.numpy() for v in workload.variables(state)]


@pytest.mark.slow
def test_lstm_lm_two_workers_equal_one_worker_and_the_plain_step(tmp_path):
    """The LM carries its LSTM state in a Python attribute across windows (each worker its
    rows) and clips by the global norm: 2 workers = 1 worker = `models.lstm_lm.step`."""
    one = launch(tmp_path, 1, model="lstm_lm")
    two = launch(tmp_path, 2, model="lstm_lm")
    assert one[0]["replicas"] == 1 and two[0]["replicas"] == 2
    assert_same(two[0], one[0])
    assert_same(two[1], two[0])
    losses, variables = plain_losses("lstm_lm", STEPS)
    assert_same(one[0], {"losses": losses, "variables": [v.tolist() for v in variables]})


def test_odd_batches_through_strided_1x1_convolutions_are_refused(monkeypatch):
    """TF 2.21's oneDNN Conv2DBackpropFilter of a strided 1x1 convolution corrupts the heap
    for odd batches (the tiny ResNet on 2 workers had 1 example each: every executor
    crashed). The launcher names the layer and refuses instead; even batches and
    TF_ENABLE_ONEDNN_OPTS=0 are fine, and so are models without such a layer."""
    from janus.distributed import onednn_odd_batch_hazard
    from models.lenet import workload as lenet
    from models.resnet import build_resnet

    monkeypatch.delenv("TF_ENABLE_ONEDNN_OPTS", raising=False)
    resnet = build_resnet((4, 8), 1)
    for batch in (1, 3, 5):
        assert "1x1 convolution with strides (2, 2)" in onednn_odd_batch_hazard(resnet, batch)
    assert onednn_odd_batch_hazard(resnet, 2) is None
    assert onednn_odd_batch_hazard(lenet("tiny").make_state().model, 1) is None
    monkeypatch.setenv("TF_ENABLE_ONEDNN_OPTS", "0")
    assert onednn_odd_batch_hazard(resnet, 1) is None


@pytest.mark.slow
def test_resnet_two_workers_run_and_agree(tmp_path):
    """Used to crash inside TF for every executor (1 example per replica, see above).
    Batch norm normalizes per replica (and each worker keeps its own moving statistics),
    so 2 workers need not equal 1; the janus run equals the eager one, worker by worker."""
    two = launch(tmp_path, 2, model="resnet")
    assert two[0]["replicas"] == 2
    np.testing.assert_allclose(two[1]["losses"], two[0]["losses"], rtol=1e-5, atol=1e-5)
    assert_same(two[0], launch(tmp_path, 2, executor="eager", model="resnet")[0])
