"""What graph generation costs over a broad program corpus (the differential fuzzer's).

    python -m benchmarks.generation [--n 300] [--seed 0] [--out DIR]

Generates `n` fuzz programs (tests/fuzz), runs each call sequence plainly and under
janus (as the fuzzer does, compared), and counts every graph generation janus attempts:
how many succeed or fail, why they fail (exception type and the first words of the
reason, numbers and names stripped), how long successful and failed generations take
and how many traces they needed, how many janus decided not to trace (the profile showed
the trace would fail), next to the time janus spends running graphs,
profiling and running eagerly. The machine may be shared: times are as measured.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import time
from typing import Optional, Sequence

from benchmarks.run import DEFAULT_OUT, quiet_tensorflow

_NOISE = re.compile(r"(\d+|`[^`]*`|'[^']*'|\"[^\"]*\"|<[^>]*>|\([^)]*\))")


def reason_class(exc: BaseException) -> str:
    """`Type: first words` with names and numbers stripped, to group failures."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    text = _NOISE.sub("_", text)
    return f"{type(exc).__name__}: {' '.join(text.split()[:12])}"[:120]


class Recorder:
    """Wraps janus's `generate` and the Tracer to count attempts, traces and time."""

    def __init__(self):
        self.ok_times: list = []
        self.failed: collections.Counter = collections.Counter()
        self.failed_time: collections.Counter = collections.Counter()
        self.failed_traces: collections.Counter = collections.Counter()
        self.traces_ok: list = []
        self.failure_events = 0  # generation failures janus counted (traced or decided)
        self._traces = 0

    def install(self):
        from janus import events, generation
        from janus.graphgen import specialize

        def on_failed(jit, reason):
            self.failure_events += 1
        events.subscribe("generation_failed", on_failed)

        original, tracer_cls = generation.generate, specialize.Tracer
        recorder = self

        class CountingTracer(tracer_cls):
            def __init__(self, *args, **kwargs):
                recorder._traces += 1
                super().__init__(*args, **kwargs)

        def generate(*args, **kwargs):
            recorder._traces = 0
            start = time.perf_counter()
            try:
                spec = original(*args, **kwargs)
            except BaseException as exc:
                key = reason_class(exc)
                self.failed[key] += 1
                self.failed_time[key] += time.perf_counter() - start
                self.failed_traces[key] += recorder._traces
                raise
            self.ok_times.append(time.perf_counter() - start)
            self.traces_ok.append(recorder._traces)
            return spec

        generation.generate, specialize.Tracer = generate, CountingTracer
        return lambda: (setattr(generation, "generate", original),
                        setattr(specialize, "Tracer", tracer_cls),
                        events.unsubscribe("generation_failed", on_failed))


def measure(n: int, seed: int, timeout: int = 60, progress=print) -> dict:
    from tests.fuzz import generator, runner

    recorder = Recorder()
    uninstall = recorder.install()
    totals = collections.Counter()
    divergences = collections.Counter()
    try:
        for k in range(n):
            program = generator.generate(seed + k)
            result = runner.run(program.source, program.calls, timeout=timeout)
            for key in ("time_generating", "time_graph", "time_profiling", "time_fallback",
                        "graph_calls", "calls", "generations", "generation_failures"):
                totals[key] += result.stats.get(key, 0)
            if result.divergence is not None:
                divergences[result.divergence.kind] += 1
            if (k + 1) % 50 == 0:
                progress(f"  {k + 1}/{n} programs")
    finally:
        uninstall()
    failures = sum(recorder.failed.values())
    attempts = failures + len(recorder.ok_times)
    return {
        "programs": n, "seed": seed, "attempts": attempts,
        "succeeded": len(recorder.ok_times), "failed": failures,
        "failed_fraction": failures / attempts if attempts else 0.0,
        "decided_without_tracing": max(0, recorder.failure_events - failures),
        "time_ok_s": sum(recorder.ok_times), "time_failed_s": sum(recorder.failed_time.values()),
        "mean_ok_s": sum(recorder.ok_times) / len(recorder.ok_times) if recorder.ok_times else 0,
        "mean_traces_ok": sum(recorder.traces_ok) / len(recorder.traces_ok)
        if recorder.traces_ok else 0,
        "failures": {k: {"count": c, "seconds": recorder.failed_time[k],
                         "traces": recorder.failed_traces[k]}
                     for k, c in recorder.failed.most_common()},
        "totals": dict(totals), "divergences": dict(divergences),
    }


def report(result: dict) -> str:
    t = result["totals"]
    lines = [
        f"{result['programs']} programs (seeds {result['seed']}..), {t.get('calls', 0)} calls, "
        f"{t.get('graph_calls', 0)} as graphs",
        f"generations: {result['attempts']} attempted, {result['succeeded']} succeeded, "
        f"{result['failed']} failed ({100 * result['failed_fraction']:.0f}%); "
        f"{result['decided_without_tracing']} not traced (the profile showed they would fail)",
        f"time generating: {result['time_ok_s']:.1f}s in successful ones "
        f"(mean {result['mean_ok_s'] * 1000:.0f} ms, {result['mean_traces_ok']:.2f} traces), "
        f"{result['time_failed_s']:.1f}s in failed ones",
        f"time running graphs {t.get('time_graph', 0):.1f}s, profiling "
        f"{t.get('time_profiling', 0):.1f}s, eagerly {t.get('time_fallback', 0):.1f}s",
        "failed generations by reason (count, seconds, traces):"]
    for reason, f in result["failures"].items():
        lines.append(f"  {f['count']:>5} {f['seconds']:>7.1f}s {f['traces']:>5}  {reason}")
    if result["divergences"]:
        lines.append(f"divergences (the fuzzer's business): {result['divergences']}")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=int, default=60)
    p.add_argument("--out", default=DEFAULT_OUT)
    args = p.parse_args(argv)
    quiet_tensorflow()
    result = measure(args.n, args.seed, args.timeout)
    print(report(result))
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "generation.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
    print(f"wrote {path}")
    return result


if __name__ == "__main__":
    main()
