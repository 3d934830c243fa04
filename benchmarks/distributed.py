"""Distributed throughput: 1 and 2 workers (MultiWorkerMirroredStrategy over loopback,
one replica each), eager vs tf.function vs janus, via `python -m janus.distributed`.

    python -m benchmarks.distributed [--models lenet resnet lstm_lm] [--steps 20] [--size tiny]

steps/s is measured after the first `--warmup` steps (janus profiles, then generates;
tf.function traces). On a 2-core machine two workers share the same two cores with each
other (and with whatever else runs), so two replicas do not add compute: the 2-worker
numbers show the cost of the all-reduce and of sharing, not scaling. Scaling needs one
worker per machine or per accelerator (GPUs: each worker's strategy uses the GPUs it sees).

Each row is one process per worker measured once; on a machine shared with other jobs the
same row varies by up to 2x from run to run (ResNet 1 worker tf.function measured 64 and
127 steps/s in consecutive runs), so compare executors with `--repeats 3` (interleaved
rounds, median). The earlier "ResNet 1 worker: janus 97 vs tf.function 158 steps/s" was
this noise: timed interleaved in one process, janus's graph runs as fast as tf.function's
(same ops but janus's deferred variable writes; 192 vs 183 steps/s median over 290 steps).

"vs eager" is the largest difference of the per-step losses from the eager run with the
same number of workers: `tf.function` freezes the LSTM LM's carried state (a Python
attribute written inside the step) into its graph, so its LM losses differ -- fast and
wrong; janus's equal eager's.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile

from janus import distributed

EXECUTORS = ("eager", "function", "janus")


def measure(model: str, workers: int, executor: str, steps: int, size: str, warmup: int,
            timeout: float) -> dict:
    """One launch; steps/s of the steady state as the chief saw it."""
    with tempfile.TemporaryDirectory(prefix="janus-dist-bench-") as out:
        code = distributed.launch(workers, model, steps, size, executor, out, timeout,
                                  echo=False)
        if code != 0:
            return {"error": f"launch failed ({code})"}
        with open(os.path.join(out, "worker-0.json")) as f:
            record = json.load(f)
    ends = record["step_ends"]
    timed = ends[-1] - ends[warmup - 1] if warmup else ends[-1]
    return {"steps_per_s": (len(ends) - warmup) / timed, "replicas": record["replicas"],
            "final_loss": record["losses"][-1], "losses": record["losses"]}


def _median_round(rounds: list[dict]) -> dict:
    """The round with the median steps/s (any failed round makes the row an error), with
    every round's steps/s kept."""
    failed = [r for r in rounds if "error" in r]
    if failed:
        return failed[0]
    ordered = sorted(rounds, key=lambda r: r["steps_per_s"])
    return dict(ordered[(len(ordered) - 1) // 2],
                rounds_steps_per_s=[r["steps_per_s"] for r in rounds])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=list(distributed.MODELS),
                        choices=distributed.MODELS)
    parser.add_argument("--workers", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--executors", nargs="+", default=list(EXECUTORS), choices=EXECUTORS)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--size", default="tiny", choices=("tiny", "quick", "full"))
    parser.add_argument("--repeats", type=int, default=1,
                        help="rounds of all executors, interleaved; steps/s is the median "
                             "round (the slower of two) -- separate processes on a shared "
                             "machine vary by 2x from run to run")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--json", help="write the results here too")
    args = parser.parse_args(argv)
    if args.steps <= args.warmup:
        parser.error("--steps must exceed --warmup")
    results = []
    print(f"{'model':8} {'workers':>7} {'executor':9} {'steps/s':>9}  {'final loss':>10}  "
          "max |loss - eager|")
    for model in args.models:
        for workers in args.workers:
            eager = None
            rounds = {e: [measure(model, workers, e, args.steps, args.size, args.warmup,
                                  args.timeout)] for e in args.executors}
            for _ in range(args.repeats - 1):
                for executor in args.executors:
                    rounds[executor].append(measure(model, workers, executor, args.steps,
                                                    args.size, args.warmup, args.timeout))
            for executor in args.executors:
                row = dict(model=model, workers=workers, executor=executor, size=args.size,
                           **_median_round(rounds[executor]))
                results.append(row)
                if "error" in row:
                    print(f"{model:8} {workers:7} {executor:9} {row['error']}")
                    continue
                if executor == "eager":
                    eager = row["losses"]
                elif eager is not None:
                    row["max_loss_diff_vs_eager"] = max(abs(a - b) for a, b in
                                                        zip(row["losses"], eager))
                diff = row.get("max_loss_diff_vs_eager")
                print(f"{model:8} {workers:7} {executor:9} {row['steps_per_s']:9.2f}  "
                      f"{row['final_loss']:10.6f}  {'-' if diff is None else f'{diff:.1e}':>18}"
                      + (f"  rounds {' '.join(f'{r:.1f}' for r in row['rounds_steps_per_s'])}"
                         if args.repeats > 1 else ""), flush=True)
    print(f"({os.cpu_count()} CPU cores; on a 2-core machine 2 workers share the same cores: "
          "no scaling is expected)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
