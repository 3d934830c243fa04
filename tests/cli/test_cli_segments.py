"""`janus cache list/show` and `janus.explain` list a function's graph breaks (reason and
source line), its segments and what runs inline, and count segment calls (issue 10).

A program with a `.numpy()` break inside a loop runs under janus in a subprocess that
writes the cache; the commands then read it in this process (janus.cli.main)."""
from __future__ import annotations

import json
import sys

from tests.cache.helpers import env_for, python_script, run_many
from tests.cli.test_cli_cache import run_main

PROGRAM = '''
import json
import numpy as np
import tensorflow as tf
import janus
from janus.fallback import trial
from janus.transform import segments

segments.TINY_OPS = 0                     # keep every stretch a segment (size rules apart)
trial.MIN_PLAIN_S = 0.0
trial.PAYS = float("inf")

W = tf.Variable(tf.ones([3, 3]) * 0.1)


@janus.jit
def rollout(x, steps):
    total = tf.constant(0.0)
    for t in range(steps):
        h = tf.tanh(tf.matmul(x, W)) * 2.0 + 1.0
        host = float(h.numpy().sum())
        total = total + tf.reduce_sum(h) * host
    return total


for k in range(8):
    rollout(tf.ones([2, 3]) * (k + 1), 3)
text = janus.explain(rollout)
janus.cache.flush()
print(json.dumps({"explain": text, "stats": janus.stats(rollout).as_dict()}))
'''


def test_breaks_and_segments_are_listed(tmp_path):
    root = tmp_path / "cache"
    script = python_script(tmp_path, "prog.py", PROGRAM)
    [run] = run_many([([sys.executable, script], env_for(root), "")])
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    stats, explained = out["stats"], out["explain"]
    assert stats["segmented_calls"] == 8 and stats["segment_graph_calls"] > 0, stats
    # explain: the break with its reason, file:line and source line; the segment
    assert "break at " in explained and "prog.py:" in explained, explained
    assert "calls .numpy() on a tensor" in explained
    assert "| host = float(h.numpy().sum())" in explained
    assert "segment 0 (line" in explained and "-> (h)" in explained, explained

    listing = run_main(["cache", "list", "--cache-dir", str(root)])
    assert listing.returncode == 0, listing.stderr
    assert "rollout" in listing.stdout
    assert "split at 1 graph break(s)" in listing.stdout, listing.stdout
    assert "8 split call(s)" in listing.stdout

    shown = run_main(["cache", "show", "rollout", "--cache-dir", str(root)])
    assert shown.returncode == 0, shown.stderr
    assert "calls .numpy() on a tensor" in shown.stdout, shown.stdout
    assert "| host = float(h.numpy().sum())" in shown.stdout
    assert "segments (" in shown.stdout
    [seg] = [line for line in shown.stdout.splitlines() if "-> (h)" in line]
    assert "(x)" in seg and "graph;" in seg and "as graph" in seg, seg
    assert int(seg.split(", ")[-1].split()[0]) > 0, seg  # graph runs

    as_json = run_main(["cache", "list", "--json", "--cache-dir", str(root)])
    rows = {r["qualname"]: r for r in json.loads(as_json.stdout)}
    split = rows["rollout"]["segments"]
    assert [b["reason"] for b in split["breaks"]] == ["calls .numpy() on a tensor"]
    assert any(s["outputs"] == ["h"] and s["graph_calls"] > 0 for s in split["segments"])
    assert rows["rollout"]["counters"]["segment_graph_calls"] == stats["segment_graph_calls"]
