"""Benchmark the models under every executor, side by side.

    python -m benchmarks.run [--quick] [--models rnn,lenet,...]
                             [--executors eager,tf.function,janus,expert] [--out DIR]

Writes DIR/results.json and DIR/results.png and prints a table.  ``--quick``
uses small model sizes and few steps (a few minutes on 2 cores).
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
from typing import Callable, Optional, Sequence

from benchmarks import report
from benchmarks.executors import DEFAULT_EXECUTORS, EXECUTORS
from benchmarks.harness import RunConfig, run_workload

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
PRESETS = {
    # name: (size, RunConfig)
    "full": ("full", RunConfig(warmup=5, steps=20, windows=5, budget_s=120.0)),
    "quick": ("quick", RunConfig(warmup=5, steps=12, windows=3, budget_s=15.0)),
}


def quiet_tensorflow() -> None:
    """Keep TensorFlow's C++ and Python logs (e.g. retracing warnings) out of the output.

    Also gives janus an empty graph cache unless JANUS_CACHE_DIR is set, so first-call
    latencies are those of a cold start (a warm start would skip profiling)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if "JANUS_CACHE_DIR" not in os.environ:
        import tempfile
        os.environ["JANUS_CACHE_DIR"] = tempfile.mkdtemp(prefix="janus-bench-cache-")
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    try:
        import absl.logging

        absl.logging.set_verbosity(absl.logging.ERROR)
    except ImportError:
        pass


def parse_args(argv: Optional[Sequence[str]] = None, description: str = __doc__) -> argparse.Namespace:
    from models import WORKLOADS

    p = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small sizes, few steps")
    p.add_argument("--models", default=",".join(WORKLOADS), help="comma-separated (default: all)")
    p.add_argument("--executors", default=",".join(DEFAULT_EXECUTORS),
                   help=f"comma-separated from {','.join(EXECUTORS)} (eager always runs: it is the reference)")
    p.add_argument("--out", default=DEFAULT_OUT, help="directory for results.json and results.png")
    p.add_argument("--size", choices=["full", "quick", "tiny"], help="override the model size")
    p.add_argument("--warmup", type=int, help="untimed steps per executor")
    p.add_argument("--steps", type=int, help="measured steps per executor")
    p.add_argument("--windows", type=int, help="timed windows (throughput is their median)")
    p.add_argument("--budget", type=float, help="seconds per executor before measured steps stop")
    p.add_argument("--sequential", action="store_true",
                   help="each executor start to end before the next (default: their measured "
                        "steps in interleaved rounds)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-chart", action="store_true", help="skip the PNG")
    args = p.parse_args(argv)
    args.models = [m.strip() for m in args.models.split(",") if m.strip()]
    args.executors = [e.strip() for e in args.executors.split(",") if e.strip()]
    for m in args.models:
        if m not in WORKLOADS:
            p.error(f"unknown model {m!r}; known: {', '.join(WORKLOADS)}")
    for e in args.executors:
        if e not in EXECUTORS:
            p.error(f"unknown executor {e!r}; known: {', '.join(EXECUTORS)}")
    return args


def config_from_args(args: argparse.Namespace) -> tuple[str, RunConfig]:
    size, preset = PRESETS["quick" if args.quick else "full"]
    size = args.size or size
    config = RunConfig(
        warmup=preset.warmup if args.warmup is None else args.warmup,
        steps=preset.steps if args.steps is None else args.steps,
        windows=preset.windows if args.windows is None else args.windows,
        budget_s=preset.budget_s if args.budget is None else args.budget,
        interleaved=not getattr(args, "sequential", False),
    )
    return size, config


def environment() -> dict:
    import tensorflow as tf

    return {"tensorflow": tf.__version__, "python": platform.python_version(),
            "platform": platform.platform(), "cpus": os.cpu_count(),
            "gpus": len(tf.config.list_physical_devices("GPU"))}


def run(workloads: Sequence[Callable[[], object]], executors: Sequence[str], config: RunConfig,
        size: str, out: str, chart: bool = True, progress: Callable[[str], None] = print,
        extra_meta: Optional[dict] = None, stem: str = "results") -> dict:
    """Run every workload (given as zero-argument factories) and write the outputs."""
    started = time.perf_counter()
    results = {"meta": dict(environment(), size=size, executors=list(executors),
                            config=vars(config) if hasattr(config, "__dict__") else {},
                            started=datetime.datetime.now().isoformat(timespec="seconds"),
                            argv=sys.argv[1:], **(extra_meta or {})),
               "models": {}}
    for factory in workloads:
        t0 = time.perf_counter()
        workload = factory()
        progress(f"== {workload.name} ({workload.category}, {size}): {workload.items_per_step} "
                 f"{workload.item_name}/step, {config.warmup} warmup + {config.steps} measured steps")
        results["models"][workload.name] = run_workload(workload, executors, config, progress)
        results["models"][workload.name]["duration_s"] = time.perf_counter() - t0
    results["meta"]["duration_s"] = time.perf_counter() - started
    os.makedirs(out, exist_ok=True)
    json_path = os.path.join(out, f"{stem}.json")
    report.write_json(results, json_path)
    results["meta"]["json"] = json_path
    if chart:
        png_path = os.path.join(out, f"{stem}.png")
        report.chart(results, png_path)
        results["meta"]["png"] = png_path
    return results


def main(argv: Optional[Sequence[str]] = None) -> dict:
    args = parse_args(argv)
    quiet_tensorflow()
    from models import get_workload

    size, config = config_from_args(args)
    factories = [lambda name=name: get_workload(name, size=size, seed=args.seed) for name in args.models]
    results = run(factories, args.executors, config, size, args.out, chart=not args.no_chart)
    print()
    print(report.table(results))
    meta = results["meta"]
    print(f"wrote {meta['json']}" + (f" and {meta['png']}" if meta.get("png") else ""))
    print(f"total time {meta['duration_s']:.1f}s")
    return results


if __name__ == "__main__":
    main()
