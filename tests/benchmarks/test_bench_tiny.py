"""benchmarks/tiny.py (functions janus cannot speed up, eager vs janus): JSON fields and
the decisions it reports, not timings."""
import json

from benchmarks import tiny


def test_tiny_benchmark_fields_and_table(tmp_path, capsys):
    rows = tiny.main(["--calls", "3", "--rounds", "2", "--out", str(tmp_path)])
    with open(tmp_path / "tiny.json") as f:
        assert json.load(f)["functions"] == rows
    assert [r["function"] for r in rows] == ["x*2+1 [4]", "relu(x@w) 8x8", "relu(x@w) 256",
                                             "50 ops loop", "generator", "numpy glue"]
    for row in rows:
        for key in ("eager_us", "janus_us", "janus_graph_us", "eager_over_janus",
                    "eager_over_graph", "min_eager_over_janus", "min_eager_over_graph"):
            assert row[key] > 0, (row["function"], key)
    for row in rows[-2:]:  # janus makes no graph of these: plain for good, counted
        assert row["decision"].startswith("plain for good"), row
        assert row["fallback_calls"] > 0 and row["graph_calls"] == 0, row
    rows = rows[:-2]
    for row in rows:
        # every function was decided (or not tried: its graph call took long)
        assert row["decision"].startswith(("plain (", "graph (", "not tried")), row
        assert row["plain_calls"] + row["graph_calls"] > 0
    loop = rows[-1]  # 50 small ops: a plain run takes milliseconds, its graph pays
    assert not loop["decision"].startswith("plain"), loop
    out = capsys.readouterr().out
    assert "eager/janus" in out and "wrote" in out
