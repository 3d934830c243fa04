"""benchmarks/env_loop.py (a numpy environment stepped until done): JSON fields, that
janus's episodes equal eager's and ran as one generated graph, not timings."""
import json

from benchmarks import env_loop


def test_env_loop_benchmark_fields(tmp_path, capsys):
    rows = env_loop.main(["--size", "tiny", "--rounds", "2", "--out", str(tmp_path)])
    with open(tmp_path / "env_loop.json") as f:
        assert json.load(f) == rows
    (row,) = rows
    assert row["janus_right"] and row["janus_generations"] == 1, row
    assert row["janus_graph_calls"] > 0, row
    assert row["while_right"] and row["while_generations"] == 1, row
    assert row["while_graph_calls"] > 0, row
    assert all(row["ms"][k] > 0 for k in ("eager", "janus", "expert")), row
    # AutoGraph cannot trace the numpy environment: the row says why
    assert row["tf_function_failed"] or row["tf_function_right"] is not None, row
    assert "janus/expert" in capsys.readouterr().out
