"""benchmarks/segment_overhead.py: per-segment-call rows of a split function (fields, not
timings)."""
import numpy as np
import tensorflow as tf

import janus
from benchmarks import overhead
from benchmarks.segment_overhead import measure_segments, segment_table


def _split(w, x):
    y = tf.tanh(tf.matmul(x, w)) * 2.0 + 1.0
    total = float(y.numpy().sum())
    return tf.reduce_sum(tf.matmul(x, w) * total) + 1.0


def test_a_split_function_gets_per_segment_call_rows(monkeypatch):
    from janus.fallback import trial, whole_trial
    from janus.transform import segments
    monkeypatch.setattr(segments, "TINY_OPS", 0)  # every stretch a kept graph (any size)
    monkeypatch.setattr(trial, "MIN_PLAIN_S", 0.0)
    monkeypatch.setattr(trial, "PAYS", float("inf"))
    monkeypatch.setattr(whole_trial, "MIN_GAIN", float("inf"))  # (the split kept against plain,
    # however small: all six rounds of its whole trial run since F328)
    w = tf.Variable(np.full((3, 2), 0.3, np.float32))
    x = tf.constant(np.ones((4, 3), np.float32))
    fn = janus.jit(_split)
    for _ in range(40):  # (past the trials: both graphs kept)
        fn(w, x)
    rows = measure_segments(lambda: fn(w, x), 2, overhead.per_call)
    assert len(rows) == 2 and all(s["segment"].startswith("_split.<segment") for s in rows)
    timed = [s for s in rows if "segment_us" in s]
    assert timed and all(s["state"] == "kept" for s in timed)  # (a kept graph is timed)
    for seg in timed:
        assert seg["segment_us"] > 0 and seg["bare_us"] > 0 and seg["graph_us"] > 0
        assert abs(seg["overhead_us"] - (seg["segment_us"] - seg["bare_us"])) < 1e-6
    text = segment_table([{"model": "split", "segments": rows}])
    assert text.startswith("per-segment-call time") and text.count("\nsplit") == 2
    assert text.count("not timed") == 2 - len(timed)
