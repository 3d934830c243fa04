"""Cold vs warm first calls of a model step under janus (not a test; run by hand).

    JANUS_CACHE_DIR=/tmp/c python tests/cache/warm_bench.py rnn cold
    JANUS_CACHE_DIR=/tmp/c python tests/cache/warm_bench.py rnn warm

`warm` calls janus.cache.warm_start(step) before the first call, which is what the
hook in JitFunction.__call__ does. Prints one JSON line: per-call latencies, time to
the first graph run, janus.stats, and the cost of building the cache record.
"""
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import janus  # noqa: E402
from janus.cache import record  # noqa: E402


def main(model: str, mode: str, size: str = "tiny", steps: int = 8):
    if model == "rnn":
        from models import rnn
        workload = rnn.workload(size)
    else:
        from models import sst, treelstm
        workload = treelstm.workload(size, sst_path=sst.SAMPLE_PATH)
    state = workload.make_state()
    batches = workload.batches(steps)
    step = janus.jit(workload.step)
    warm = janus.cache.warm_start(step) if mode == "warm" else False
    latencies, first_graph = [], None
    start = time.perf_counter()
    for batch in batches:
        t = time.perf_counter()
        step(state, *batch)
        latencies.append(time.perf_counter() - t)
        if first_graph is None and janus.stats(step).graph_calls:
            first_graph = time.perf_counter() - start
    stats = janus.stats(step)
    spec = step.specializations[0]
    t = time.perf_counter()
    rec, text = record.build_spec_record(step, spec)
    record_cost = time.perf_counter() - t
    print(json.dumps({"model": model, "mode": mode, "warm_started": warm,
                      "latencies_ms": [round(x * 1000, 1) for x in latencies],
                      "first_3_calls_ms": round(sum(latencies[:3]) * 1000, 1),
                      "time_to_first_graph_ms": round((first_graph or 0) * 1000, 1),
                      "profile_calls": stats.profile_calls, "generations": stats.generations,
                      "graph_calls": stats.graph_calls, "fallback_calls": stats.fallback_calls,
                      "time_generating_ms": round(stats.time_generating * 1000, 1),
                      "record_build_ms": round(record_cost * 1000, 1),
                      "graph_kb": round(len(text) / 1024, 1),
                      "ops": sum(rec["op_histogram"].values())}))


if __name__ == "__main__":
    main(*sys.argv[1:3], *(sys.argv[3:4] or ["tiny"]))
