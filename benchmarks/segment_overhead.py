"""janus's per-call host cost for a function it runs split at graph breaks, segment by
segment, next to a bare ConcreteFunction call of the same segment's graph.

Used by benchmarks/overhead.py for a model janus makes no whole-function graph of
(PPO, the decoder's `translate`): one step runs with every segment call recorded (its
arguments), then each segment whose graph is kept is called on its recorded arguments,
phase by phase (microseconds per call, median of rounds):

- ``segment``: the segment's call as the split function makes it (trial bookkeeping,
  its jit's dispatch, guards, feed, graph, write-back);
- ``guards``, ``feed``, ``write``: those phases alone;
- ``graph``: the graph called the way janus does (flat, on the fed inputs);
- ``bare``: ``ConcreteFunction(*inputs)`` on the same inputs (the floor);
- ``overhead``: ``segment - bare``;
- ``host cpu``: ``segment - graph`` in the calling thread's CPU time (janus's own
  Python per segment call, hardly moved by other processes' load).

Calling a segment again repeats its effects (an optimizer step, a list append) on the
benchmark's own state: the numbers are host costs, not the model's results.
"""
from __future__ import annotations

import time


def record_segment_calls(call) -> list:
    """[(segment, args)] of the first call of each segment during `call()` (every split
    function reached, callees' too)."""
    from janus.fallback import trial

    seen: dict = {}
    original = trial.Segment.__call__

    def recording(self, *args):
        seen.setdefault(id(self), (self, args))
        return original(self, *args)

    trial.Segment.__call__ = recording
    try:
        call()
    finally:
        trial.Segment.__call__ = original
    return list(seen.values())


def measure_segments(call, calls: int, per_call) -> list[dict]:
    """One row per segment reached by `call()` (see the module docstring); `per_call` is
    benchmarks/overhead.py's timer."""
    from janus.graphgen import calls as graph_calls

    rows = []
    for segment, args in record_segment_calls(call):
        row = {"segment": f"{segment.jit.__qualname__}", "state": segment.state,
               "inputs": len(segment.stretch.inputs)}
        rows.append(row)
        spec = segment.jit.specializations[0] if segment.jit.specializations else None
        if segment.state != "kept" or spec is None or spec.guards.check(args, {}) >= 0:
            continue  # eager, on trial, or this call fits no graph: nothing to compare
        jit = segment.jit
        inputs = spec.feed(args, {})
        results = spec.call(inputs)
        env = jit._env(args, {})
        phases = {
            "segment": lambda: segment(*args),
            "guards": lambda: spec.guards.check(args, {}),
            "feed": lambda: spec.feed(args, {}),
            "graph": lambda: graph_calls.call_graph(spec.concrete, inputs),
            "bare": lambda: spec.concrete(*inputs),
            "write_back": lambda: jit._write_back(spec, results, env),
        }
        for phase, seconds in per_call(phases, calls).items():
            row[f"{phase}_us"] = seconds * 1e6
        row["overhead_us"] = row["segment_us"] - row["bare_us"]
        cpu = per_call({"segment": phases["segment"], "graph": phases["graph"]}, calls,
                       clock=time.thread_time)
        row["host_cpu_us"] = (cpu["segment"] - cpu["graph"]) * 1e6
    return rows


SEGMENT_COLUMNS = [("segment", "segment_us"), ("bare", "bare_us"),
                   ("overhead", "overhead_us"), ("host cpu", "host_cpu_us"),
                   ("guards", "guards_us"), ("feed", "feed_us"), ("graph", "graph_us"),
                   ("write", "write_back_us")]


def segment_table(rows: list[dict]) -> str:
    """Per-segment-call microseconds of every model measured in segments, as text."""
    head = f"{'model':<10}{'segment':<34}" + \
        "".join(f"{title:>10}" for title, _ in SEGMENT_COLUMNS)
    lines = ["per-segment-call time (us, median of rounds; split functions)", head,
             "-" * len(head)]
    for row in rows:
        for seg in row.get("segments", ()):
            name = seg["segment"].replace("<segment ", "<")[-33:]
            if "segment_us" not in seg:
                lines.append(f"{row['model']:<10}{name:<34}  ({seg['state']}: not timed)")
                continue
            lines.append(f"{row['model']:<10}{name:<34}" + "".join(
                f"{seg[key]:>10.1f}" for _, key in SEGMENT_COLUMNS))
    return "\n".join(lines)
