"""Executors timed in interleaved rounds, for a machine whose load changes.

    python -m benchmarks.interleaved --models lstm_lm [--size full] [--rounds 12]
                                     [--executors eager,janus,expert]

`benchmarks.run` times one executor after the other; when other work shares the cores,
a load change between two executors' runs shows up as a speed difference (on 2 busy
cores we saw eager come out faster than the hand-written graph that way). Here every
round calls each executor once on the same batch (the order reversed every other
round) after `--warmup` untimed calls each, and the medians are compared. Executors
that still decide something in the background (janus's XLA trial) warm up until they
are settled. Losses are not compared here (`benchmarks.run` does that).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks.executors import prepare
from benchmarks.run import quiet_tensorflow
from models.common import to_float


def interleaved(workload, executors: list[str], rounds: int, warmup: int,
                max_warmup: int = 40) -> dict:
    """{executor: list of step seconds} over `rounds` interleaved rounds."""
    batches = workload.batches(max_warmup + rounds)
    prepared = {}
    for name in executors:
        try:
            p = prepare(name, workload, workload.make_state())
            for i in range(max_warmup):
                to_float(p.call(*batches[i % len(batches)]))
                if i + 1 == warmup:
                    p.settle()
                if i + 1 >= warmup and p.settled():
                    break
        except Exception as e:  # noqa: BLE001 - that executor cannot run this workload
            print(f"{workload.name}: {name} left out: {type(e).__name__}: "
                  f"{str(e).splitlines()[0] if str(e) else ''}")
            continue
        prepared[name] = p
    times: dict = {name: [] for name in prepared}
    order = list(prepared)
    for r in range(rounds):
        batch = batches[(max_warmup + r) % len(batches)]
        for name in (order if r % 2 == 0 else order[::-1]):
            start = time.perf_counter()
            to_float(prepared[name].call(*batch))
            times[name].append(time.perf_counter() - start)
    return times


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="lstm_lm")
    parser.add_argument("--size", default="full", choices=["full", "quick", "tiny"])
    parser.add_argument("--executors", default="eager,janus,expert")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args(argv)
    quiet_tensorflow()
    from models import get_workload

    executors = [e for e in args.executors.split(",") if e]
    out = {}
    for model in [m for m in args.models.split(",") if m]:
        times = interleaved(get_workload(model, size=args.size), executors, args.rounds,
                            args.warmup)
        out[model] = times
        if not times:
            continue
        first = next(iter(times))
        base = np.median(times[first])
        print(f"== {model} ({args.size}), {args.rounds} interleaved rounds")
        for name, t in times.items():
            t = np.asarray(t)
            print(f"{name:12s} median {np.median(t) * 1e3:8.1f} ms  min {t.min() * 1e3:8.1f} ms"
                  f"  {base / np.median(t):5.2f}x {first}")
    return out


if __name__ == "__main__":
    main()
