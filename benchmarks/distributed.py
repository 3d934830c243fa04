"""Distributed throughput: 1 and 2 workers (MultiWorkerMirroredStrategy over loopback,
one replica each), eager vs tf.function vs janus, via `python -m janus.distributed`.

    python -m benchmarks.distributed [--models lenet resnet] [--steps 20] [--size tiny]

steps/s is measured after the first `--warmup` steps (janus profiles, then generates;
tf.function traces). On a 2-core machine two workers share the same two cores with each
other (and with whatever else runs), so two replicas do not add compute: the 2-worker
numbers show the cost of the all-reduce and of sharing, not scaling. Scaling needs one
worker per machine or per accelerator (GPUs: each worker's strategy uses the GPUs it sees).
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
            "final_loss": record["losses"][-1]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=["lenet", "resnet"],
                        choices=distributed.MODELS)
    parser.add_argument("--workers", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--executors", nargs="+", default=list(EXECUTORS), choices=EXECUTORS)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--size", default="tiny", choices=("tiny", "quick", "full"))
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--json", help="write the results here too")
    args = parser.parse_args(argv)
    if args.steps <= args.warmup:
        parser.error("--steps must exceed --warmup")
    results = []
    print(f"{'model':8} {'workers':>7} {'executor':9} {'steps/s':>9}  final loss")
    for model in args.models:
        for workers in args.workers:
            for executor in args.executors:
                row = dict(model=model, workers=workers, executor=executor, size=args.size,
                           **measure(model, workers, executor, args.steps, args.size,
                                     args.warmup, args.timeout))
                results.append(row)
                if "error" in row:
                    print(f"{model:8} {workers:7} {executor:9} {row['error']}")
                else:
                    print(f"{model:8} {workers:7} {executor:9} {row['steps_per_s']:9.2f}  "
                          f"{row['final_loss']:.6f}", flush=True)
    print(f"({os.cpu_count()} CPU cores; on a 2-core machine 2 workers share the same cores: "
          "no scaling is expected)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
