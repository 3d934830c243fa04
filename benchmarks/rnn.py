"""The RNN benchmark at two hidden sizes (256 and 64), with compile latencies.

    python -m benchmarks.rnn [--quick] [--hidden 256,64] [--executors ...] [--out DIR]

Both sizes use batch 32 and input 128 with sequences of 10-50 items; --quick
only runs fewer steps.  Besides the throughput table it prints the one-off
costs: naive tf.function's first call (its trace) next to janus's first call
(profiling) and its slowest warm-up call (typically graph generation).
"""
from __future__ import annotations

import argparse
from typing import Optional, Sequence

from benchmarks import report
from benchmarks.executors import DEFAULT_EXECUTORS, EXECUTORS
from benchmarks.run import DEFAULT_OUT, PRESETS, quiet_tensorflow, run
from benchmarks.harness import RunConfig


def latency_table(results: dict) -> str:
    """First-call and slowest-warm-up-call seconds per executor and model."""
    head = (f"{'model':<10} {'executor':<12} {'1st call':>9} {'max warmup call':>16} "
            f"{'steady step':>12} {'guard check':>12}")
    lines = [head, "-" * len(head)]
    for model in results["models"].values():
        for name, rec in model["executors"].items():
            if rec["status"] == "unavailable":
                continue
            cells = [rec.get("first_call_s"), rec.get("max_warmup_call_s"), rec.get("mean_step_s")]
            text = [("-" if c is None else f"{c * 1000:.0f} ms") for c in cells]
            stats = rec.get("janus_stats") or {}
            guard = (f"{stats['time_guards'] / stats['calls'] * 1e6:.0f} us/call"
                     if stats.get("calls") else "-")
            note = "" if rec["status"] == "ok" else f"  ({rec['status']}: {rec.get('error_type')})"
            lines.append(f"{model['name']:<10} {name:<12} {text[0]:>9} {text[1]:>16} {text[2]:>12} "
                         f"{guard:>12}{note}")
    return "\n".join(lines) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="fewer steps (same model sizes)")
    p.add_argument("--hidden", default="256,64", help="comma-separated hidden sizes")
    p.add_argument("--size", choices=["full", "quick", "tiny"], default="full",
                   help="batch/input/sequence-length preset (hidden comes from --hidden)")
    p.add_argument("--executors", default=",".join(DEFAULT_EXECUTORS),
                   help=f"comma-separated from {','.join(EXECUTORS)}")
    p.add_argument("--steps", type=int)
    p.add_argument("--warmup", type=int)
    p.add_argument("--out", default=DEFAULT_OUT)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    executors = [e for e in args.executors.split(",") if e]
    for e in executors:
        if e not in EXECUTORS:
            p.error(f"unknown executor {e!r}")
    quiet_tensorflow()
    from models import rnn

    preset = PRESETS["quick" if args.quick else "full"][1]
    # RNN steps are short and their lengths vary: measure more of them than the suite does
    default_steps = preset.steps if args.quick else max(preset.steps, 50)
    config = RunConfig(warmup=preset.warmup if args.warmup is None else args.warmup,
                       steps=default_steps if args.steps is None else args.steps,
                       windows=preset.windows, budget_s=preset.budget_s)
    hiddens = [int(h) for h in args.hidden.split(",") if h]
    factories = [lambda h=h: rnn.workload(size=args.size, seed=args.seed, hidden=h) for h in hiddens]
    results = run(factories, executors, config, args.size, args.out, stem="rnn")
    print()
    print(report.table(results))
    print(latency_table(results))
    meta = results["meta"]
    print(f"wrote {meta['json']} and {meta.get('png')}; total time {meta['duration_s']:.1f}s")
    return results


if __name__ == "__main__":
    main()
