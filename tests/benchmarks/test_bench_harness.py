"""The benchmark harness on tiny configurations: JSON fields and sanity, not timings."""
import json
import math
import sys
import types

import pytest

from benchmarks import executors, harness, report
from benchmarks import rnn as rnn_bench
from benchmarks import run as bench_run

TINY = ["--size", "tiny", "--warmup", "1", "--steps", "3", "--windows", "2"]


@pytest.fixture(scope="module")
def tiny_results(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    bench_run.main(TINY + ["--models", "gan,lstm_lm,rnn", "--executors", "eager,tf.function,expert",
                           "--out", str(out)])
    with open(out / "results.json") as f:
        return json.load(f), out


def test_json_fields_and_sane_values(tiny_results):
    results, _ = tiny_results
    meta = results["meta"]
    assert meta["size"] == "tiny" and meta["duration_s"] > 0 and meta["tensorflow"]
    assert set(results["models"]) == {"gan", "lstm_lm", "rnn"}
    for model in results["models"].values():
        assert model["category"] in ("CNN", "RNN", "TreeNN", "DRL", "GAN")
        assert set(model["executors"]) == {"eager", "tf.function", "expert"}
        for name in ("eager", "expert"):
            rec = model["executors"][name]
            assert rec["status"] == "ok", rec.get("error")
            assert rec["steps_per_s"] > 0 and rec["items_per_s"] > 0 and rec["first_call_s"] > 0
            # eager, the reference, also runs the batches kept for executors still deciding
            runs = 4 + (harness.RunConfig.decide_steps if name == "eager" else 0)
            assert rec["steps_run"] == runs and rec["measured_steps"] == 3
            assert len(rec["losses"]) == runs and all(math.isfinite(l) for l in rec["losses"])
            assert rec["speedup_vs_eager"] > 0 and rec["ratio_to_expert"] > 0
        expert = model["executors"]["expert"]
        assert expert["correct"] is True and math.isfinite(expert["max_abs_loss_diff"])
        assert expert["compared_steps"] == 4 and expert["max_abs_variable_diff"] < 1e-3
        assert model["executors"]["eager"]["speedup_vs_eager"] == pytest.approx(1.0)


def test_naive_tf_function_failures_are_recorded(tiny_results):
    results, _ = tiny_results
    gan = results["models"]["gan"]["executors"]["tf.function"]
    assert gan["status"] == "ok" and gan["correct"] is True and gan["retraces"] == 1
    # hidden state read from an attribute is frozen into the graph: silently wrong
    lm = results["models"]["lstm_lm"]["executors"]["tf.function"]
    assert lm["status"] == "ok" and lm["correct"] is False and lm["first_wrong_step"] >= 1
    # self.state left holding a symbolic tensor: the next trace fails
    rnn = results["models"]["rnn"]["executors"]["tf.function"]
    assert rnn["status"] == "error" and rnn["error_type"] and rnn["error_first_line"]
    assert rnn["error_step"] >= 1 and rnn["speedup_vs_eager"] is None


def test_table_and_chart(tiny_results):
    results, out = tiny_results
    text = report.table(results)
    assert "lstm_lm" in text and "WRONG" in text and "ERROR" in text
    png = (out / "results.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 5000


def test_janus_missing_is_unavailable_not_fatal(monkeypatch):
    from models import get_workload

    monkeypatch.setitem(sys.modules, "janus", None)  # `import janus` raises ImportError
    wl = get_workload("gan", size="tiny")
    with pytest.raises(executors.Unavailable, match="import janus failed"):
        executors.prepare("janus", wl, wl.make_state())
    result = harness.run_workload(wl, ["janus"], harness.RunConfig(warmup=1, steps=1, windows=1),
                                  progress=lambda _: None)
    assert result["eager_run_as_reference"] is True
    assert result["executors"]["janus"]["status"] == "unavailable"
    assert result["executors"]["eager"]["status"] == "ok"


def test_janus_stats_fields_read_defensively():
    class Stats:
        generations, graph_calls, fallback_calls, profile_calls = 1, 5, 0, 2
        guard_failures = {"shape": 1}

    fake = types.SimpleNamespace(stats=lambda fn: Stats())
    stats = executors.janus_stats(fake, None)["janus_stats"]
    assert stats == {"generations": 1, "graph_calls": 5, "fallback_calls": 0, "profile_calls": 2,
                     "guard_failures": {"shape": 1}}
    fake = types.SimpleNamespace(stats=lambda fn: {"graph_calls": 3})
    assert executors.janus_stats(fake, None)["janus_stats"] == {"graph_calls": 3}
    broken = types.SimpleNamespace(stats=lambda fn: 1 / 0)
    assert "ZeroDivisionError" in executors.janus_stats(broken, None)["janus_stats"]["error"]


def test_median_throughput():
    assert harness.median_throughput([], 3) is None
    assert harness.median_throughput([0.5, 0.5], 5) == pytest.approx(2.0)
    # one slow outlier window does not move the median
    assert harness.median_throughput([0.1, 0.1, 0.1, 5.0], 4) == pytest.approx(10.0)


def test_first_line_of_tf_errors():
    assert harness.first_line("in user code:\n\n  File x.py\n\nAttributeError: no numpy") == \
        "AttributeError: no numpy"
    assert harness.first_line("plain\nmore") == "plain"


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_rnn_benchmark_two_hidden_sizes(tmp_path, capsys):
    results = rnn_bench.main(["--size", "tiny", "--hidden", "6,3", "--executors", "eager,expert",
                              "--warmup", "1", "--steps", "2", "--out", str(tmp_path)])
    assert set(results["models"]) == {"rnn_h6", "rnn_h3"}
    assert (tmp_path / "rnn.json").exists() and (tmp_path / "rnn.png").exists()
    out = capsys.readouterr().out
    assert "max warmup call" in out and "rnn_h3" in out


def test_bad_arguments_exit():
    with pytest.raises(SystemExit):
        bench_run.parse_args(["--models", "nope"])
    with pytest.raises(SystemExit):
        bench_run.parse_args(["--executors", "eager,magic"])


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_tree_benchmark_runs_the_labelled_treelstm(tmp_path):
    from benchmarks import trees as trees_bench

    results = trees_bench.main(["--size", "tiny", "--executors", "eager,expert", "--warmup", "1",
                                "--steps", "2", "--models",
                                "treelstm_labels,treelstm_labels_infer", "--out", str(tmp_path)])
    assert set(results["models"]) == {"treelstm_labels", "treelstm_labels_infer"}
    for model in results["models"].values():
        assert model["executors"]["expert"]["status"] == "ok"
        assert model["executors"]["expert"]["ratio_to_expert"] == 1.0


def test_an_executor_still_deciding_warms_up_longer_on_the_same_batches(monkeypatch):
    """janus's XLA trial (Prepared.settled() False) extends its warm-up onto extra
    batches, so it still measures `steps` steps; its losses and variables are still
    compared batch by batch with eager's, and settle() runs once, untimed."""
    from models import get_workload

    wl = get_workload("gan", size="tiny")
    calls, settles = [], []
    real_prepare = executors.prepare

    def prepare(name, workload, state):
        prepared = real_prepare("eager", workload, state)
        if name == "eager":
            return prepared

        def call(*batch):
            calls.append(1)
            return prepared.call(*batch)
        return executors.Prepared(call, settle=lambda: settles.append(len(calls)),
                                  settled=lambda: len(calls) >= 4)

    monkeypatch.setattr(harness, "prepare", prepare)
    result = harness.run_workload(wl, ["expert"], harness.RunConfig(warmup=1, steps=5, windows=1),
                                  progress=lambda _: None)
    rec = result["executors"]["expert"]
    assert settles == [1] and "settle_s" in rec
    assert rec["warmup_steps"] == 4 and rec["measured_steps"] == 5 and rec["steps_run"] == 9
    # (interleaved: eager warms up as long, so both measure the same batches)
    assert result["executors"]["eager"]["warmup_steps"] == 4
    assert rec["correct"] is True and rec["compared_steps"] == 9
    assert rec["max_abs_variable_diff"] == 0.0


def test_interleaved_rounds_call_every_executor_once_per_round():
    from benchmarks.interleaved import interleaved
    from models import get_workload

    times = interleaved(get_workload("gan", size="tiny"), ["eager", "expert"], rounds=3,
                        warmup=1, max_warmup=2)
    assert set(times) == {"eager", "expert"}
    assert all(len(t) == 3 and all(s > 0 for s in t) for t in times.values())


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
@pytest.mark.parametrize("interleaved", [True, False])
def test_measured_steps_run_in_rounds_unless_sequential(monkeypatch, interleaved):
    """Interleaved (the default): every executor warms up in turn, then one measured step
    of each per round (the order reversed every other round), then eager's remaining
    reference batches; sequential: each start to end. Same batches, same losses."""
    from models import get_workload

    wl = get_workload("gan", size="tiny")
    order = []
    real_prepare = executors.prepare

    def prepare(name, workload, state):
        prepared = real_prepare("eager", workload, state)

        def call(*batch):
            order.append(name)
            return prepared.call(*batch)
        return executors.Prepared(call)

    monkeypatch.setattr(harness, "prepare", prepare)
    config = harness.RunConfig(warmup=1, steps=4, windows=1, decide_steps=2,
                               interleaved=interleaved)
    result = harness.run_workload(wl, ["expert"], config, progress=lambda _: None)
    if interleaved:
        rounds = ["eager", "expert", "expert", "eager"] * 2
        assert order == ["eager", "expert"] + rounds + ["eager"] * 2
    else:
        assert order == ["eager"] * 7 + ["expert"] * 5
    rec = result["executors"]["expert"]
    assert result["interleaved"] is interleaved and rec["measured_steps"] == 4
    assert rec["correct"] is True and rec["compared_steps"] == 5
