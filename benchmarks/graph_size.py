"""janus's graph next to the expert's, node by node: where a graph's size comes from.

    python -m benchmarks.graph_size [--models actor_critic,...] [--size quick] [--top 25]

For each model, janus runs its step until steady (`xla=False`) and the expert runs a few
steps, each from a fresh state, with TensorFlow's run metadata collected from the first
call (it records a function's graphs when the runtime instantiates it). Per executor:

- ``traced``: the graph as traced (the ConcreteFunction's graph, its library functions
  included: loop bodies, branches, gradients), before Grappler;
- ``run``: the partition graphs the runtime runs, after Grappler (control flow lowered:
  ``/body/`` nodes are inside loops, run once per iteration);
- ``executed``: the op kernels one call runs (TensorFlow's profiler, mean over a few
  steady calls; loop bodies counted per iteration), ``in loops`` of them, and the
  ``scheduled`` ones (the executor hands them to its thread pool: the per-op cost that
  dominates small graphs). Cheap kernels (Const, Identity, control flow) go unrecorded:
  executed counts the ops that cost.

Then the op types, traced and run, janus next to the expert (largest differences first).
With ``--grappler``: janus's steady graph called as janus calls it (Grappler's arithmetic
optimizer, its common-subexpression elimination and constant folding off: F141, F143)
and with those two on (deduplicated and folded constants), run nodes and process CPU per
call, rounds interleaved: what merging janus's duplicate nodes would save.
Writes DIR/graph_size.json.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
from typing import Optional, Sequence

from benchmarks.run import DEFAULT_OUT, quiet_tensorflow

DEFAULT_MODELS = ("actor_critic",)


def traced_ops(graph_def) -> collections.Counter:
    """Op types of a GraphDef and of every function in its library."""
    ops = collections.Counter(n.op for n in graph_def.node)
    for function in graph_def.library.function:
        ops.update(n.op for n in function.node_def)
    return ops


def _in_loop(name: str) -> bool:
    return "/body/" in name or name.startswith("body/")


def run_ops(function_graphs) -> tuple[collections.Counter, int]:
    """Op types of the partition graphs of the largest instantiated function (the step's
    graph; the others are small helpers), and how many of its nodes are in loop bodies."""
    if not function_graphs:
        return collections.Counter(), 0
    biggest = max(function_graphs, key=lambda g: sum(len(p.node) for p in g.partition_graphs))
    nodes = [n for p in biggest.partition_graphs for n in p.node]
    return collections.Counter(n.op for n in nodes), sum(_in_loop(n.name) for n in nodes)


def _collect(run):
    """Run `run()` with run metadata on: the function graphs instantiated meanwhile."""
    from tensorflow.python.eager import context

    ctx = context.context()
    ctx.enable_run_metadata()
    try:
        run()
        return list(ctx.export_run_metadata().function_graphs)
    finally:
        ctx.disable_run_metadata()


_RUNTIME_EVENTS = ("ExecutorState", "EagerLocalExecute", "KernelAndDevice")
_SCHEDULER_EVENTS = ("Record", "StartRegion", "StopRegion")  # (a closure the executor
# schedules on its thread pool: each records these three)


def executed_ops(call, calls: int = 5) -> dict:
    """The op kernels `call()` runs per call, from TensorFlow's profiler: their number,
    how many of them in loop bodies, how many the executor scheduled, and per op type."""
    import glob
    import tempfile

    import tensorflow as tf
    from tensorflow.tsl.profiler.protobuf import xplane_pb2

    logdir = tempfile.mkdtemp(prefix="janus-graph-size-")
    tf.profiler.experimental.start(logdir)
    try:
        for _ in range(calls):
            call()
    finally:
        tf.profiler.experimental.stop()
    space = xplane_pb2.XSpace()
    for path in glob.glob(os.path.join(logdir, "**", "*.xplane.pb"), recursive=True):
        with open(path, "rb") as f:
            space.MergeFromString(f.read())
    ops, in_loops, scheduled = collections.Counter(), 0, 0
    for plane in space.planes:
        names = {key: meta.name for key, meta in plane.event_metadata.items()}
        for line in plane.lines:
            for event in line.events:
                name = names.get(event.metadata_id, "")
                if ":" not in name or name.startswith(_RUNTIME_EVENTS):
                    continue
                node, kind = name.rsplit(":", 1)
                if kind in _SCHEDULER_EVENTS:
                    scheduled += kind == "StartRegion"
                    continue
                ops[kind] += 1
                in_loops += _in_loop(node) or "while" in node
    return {"executed": round(sum(ops.values()) / calls), "executed_in_loops":
            round(in_loops / calls), "scheduled": round(scheduled / calls),
            "executed_ops": {k: round(v / calls, 1) for k, v in ops.items()}}


def _summary(traced: collections.Counter, ran: collections.Counter, in_loops: int) -> dict:
    return {"traced_nodes": sum(traced.values()), "run_nodes": sum(ran.values()),
            "run_loop_nodes": in_loops, "traced_ops": dict(traced), "run_ops": dict(ran)}


def measure_model(name: str, size: str, seed: int = 0, profile: bool = True,
                  grappler: bool = False) -> dict:
    """Graph sizes of janus's steady specialization and of the expert (see the docstring)."""
    from models import get_workload

    out = measure_workload(get_workload(name, size=size, seed=seed), profile=profile,
                           grappler=grappler)
    return {"model": name, "size": size, **out}


def grappler_ab(spec, args: tuple, rounds: int = 7, calls: int = 10) -> dict:
    """Janus's graph `spec` on the inputs `args` feed, called flat under janus's call
    options and with Grappler's arithmetic optimizer and constant folding on: run nodes
    and median process CPU seconds per call of each (rounds interleaved; the calls run
    the graph's variable updates, nothing is written back)."""
    import statistics
    import time

    from tensorflow.core.protobuf import config_pb2, rewriter_config_pb2
    from tensorflow.python.eager import context

    from janus.graphgen import calls as janus_calls

    ctx = context.context()
    caller = ctx.function_call_options
    exact = janus_calls.eager_kernels(caller)
    variants = {}
    for name, on in (("janus", False), ("merged", True)):
        config = config_pb2.ConfigProto.FromString(exact.config_proto_serialized)
        rewrites = config.graph_options.rewrite_options
        # (a setting janus's calls do not have, harmless: both variants are instantiated
        # anew, so the run metadata records their graphs)
        rewrites.meta_optimizer_timeout_ms = 3_600_000
        if on:
            rewrites.arithmetic_optimization = rewriter_config_pb2.RewriterConfig.ON
            rewrites.constant_folding = rewriter_config_pb2.RewriterConfig.ON
        variants[name] = context.FunctionCallOptions(executor_type=exact.executor_type,
                                                     config_proto=config)
    inputs = spec.feed(args, {})
    concrete = spec.concrete

    def run(options):
        ctx.function_call_options = options
        try:
            concrete._call_flat(inputs, concrete.captured_inputs)
        finally:
            ctx.function_call_options = caller

    out: dict = {}
    for name, options in variants.items():
        graphs = _collect(lambda: run(options))
        out[f"{name}_run_nodes"] = sum(run_ops(graphs)[0].values()) if graphs else None
    times: dict = {name: [] for name in variants}
    for _ in range(rounds):
        for name, options in variants.items():
            start = time.process_time()
            for _ in range(calls):
                run(options)
            times[name].append((time.process_time() - start) / calls)
    for name in variants:
        out[f"{name}_cpu_us"] = statistics.median(times[name]) * 1e6
    return out


def measure_workload(workload, steps: int = 3, profile: bool = True,
                     grappler: bool = False) -> dict:
    """`measure_model` of a workload (make_state, step, batches, expert)."""
    import janus
    from benchmarks.overhead import _steady

    batches = workload.batches(40)
    out: dict = {}
    state = workload.make_state()
    fn = janus.jit(workload.step, xla=False)
    graphs = _collect(lambda: _steady(fn, state, batches))
    specs = [s for s in fn.specializations if s.concrete is not None]
    if specs:
        spec = max(specs, key=lambda s: s.calls)
        ran, in_loops = run_ops(graphs)
        out["janus"] = _summary(traced_ops(spec.concrete.graph.as_graph_def()), ran, in_loops)
        if profile:
            out["janus"].update(executed_ops(lambda: fn(state, *batches[0])))
        if grappler:
            out["grappler"] = grappler_ab(spec, (state, *batches[0]))
    if workload.expert is not None:
        expert = workload.expert(workload.make_state())
        graphs = _collect(lambda: [expert(*batches[i]) for i in range(steps)])
        ran, in_loops = run_ops(graphs)
        concrete = _expert_concrete(expert)
        traced = traced_ops(concrete.graph.as_graph_def()) if concrete is not None else ran
        out["expert"] = _summary(traced, ran, in_loops)
        if profile:
            out["expert"].update(executed_ops(lambda: expert(*batches[0])))
    return out


def _expert_concrete(expert):
    """The biggest ConcreteFunction of the `tf.function`s an expert's closure holds."""
    import tensorflow as tf

    found = []
    for cell in getattr(expert, "__closure__", None) or ():
        value = cell.cell_contents
        if isinstance(value, tf.types.experimental.PolymorphicFunction):
            found += value._list_all_concrete_functions()
    return max(found, key=lambda c: len(c.graph.as_graph_def().node), default=None)


def table(rows: list[dict], top: int = 25) -> str:
    """Sizes per model, then the op types whose counts differ most, as text."""
    head = f"{'model':<14}{'':<8}{'traced':>8}{'run':>8}{'in loops':>10}" \
        f"{'executed':>10}{'in loops':>10}{'scheduled':>10}"
    lines = ["graph nodes: traced (before Grappler, library included) and run (after); op "
             "kernels executed per call (in loops: per iteration, summed)",
             head, "-" * len(head)]
    for row in rows:
        for who in ("janus", "expert"):
            if who in row:
                r = row[who]
                executed = "".join(f"{r[key]:>10}" if key in r else f"{'-':>10}" for key in
                                   ("executed", "executed_in_loops", "scheduled"))
                lines.append(f"{row['model'] if who == 'janus' else '':<14}{who:<8}"
                             f"{r['traced_nodes']:>8}{r['run_nodes']:>8}{r['run_loop_nodes']:>10}"
                             + executed)
    for row in rows:
        g = row.get("grappler")
        if g:
            lines += ["", f"{row['model']}: janus's graph as janus runs it vs with Grappler's "
                      "arithmetic optimizer (CSE) and constant folding on",
                      f"  run nodes {g['janus_run_nodes']} vs {g['merged_run_nodes']}; process "
                      f"CPU per call {g['janus_cpu_us']:.0f} vs {g['merged_cpu_us']:.0f} us"]
    for row in rows:
        if "janus" not in row or "expert" not in row:
            continue
        j, e = row["janus"], row["expert"]
        kinds = ("traced_ops", "run_ops", "executed_ops")
        ops = set().union(*(r.get(kind, {}) for r in (j, e) for kind in kinds))

        def count(r, kind, op):
            return r.get(kind, {}).get(op, 0)

        def gap(op):
            return tuple(abs(count(j, kind, op) - count(e, kind, op)) for kind in kinds[::-1])

        lines += ["", f"{row['model']} ({row['size']}): op types, largest executed "
                  "difference first (then run, traced)",
                  f"{'op':<26}{'j.traced':>9}{'e.traced':>9}{'j.run':>8}{'e.run':>8}"
                  f"{'j.exec':>9}{'e.exec':>9}"]
        for op in sorted(ops, key=gap, reverse=True)[:top]:
            cells = [(count(j, kind, op), count(e, kind, op)) for kind in kinds]
            lines.append(f"{op:<26}{cells[0][0]:>9g}{cells[0][1]:>9g}{cells[1][0]:>8g}"
                         f"{cells[1][1]:>8g}{cells[2][0]:>9g}{cells[2][1]:>9g}")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default=",".join(DEFAULT_MODELS))
    p.add_argument("--size", choices=["full", "quick", "tiny"], default="quick")
    p.add_argument("--top", type=int, default=25, help="op types listed per model")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-profile", action="store_true",
                   help="graph sizes only (no profiler run: no executed op counts)")
    p.add_argument("--grappler", action="store_true",
                   help="also time janus's graph with Grappler's CSE and constant folding on")
    p.add_argument("--out", default=DEFAULT_OUT)
    args = p.parse_args(argv)
    quiet_tensorflow()
    rows = []
    for name in [m for m in args.models.split(",") if m]:
        print(f"== {name} ({args.size})", flush=True)
        rows.append(measure_model(name, args.size, args.seed, profile=not args.no_profile,
                                  grappler=args.grappler))
    print()
    print(table(rows, args.top))
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "graph_size.json")
    with open(path, "w") as f:
        json.dump({"size": args.size, "models": rows}, f, indent=1)
    print(f"wrote {path}")
    return rows


if __name__ == "__main__":
    main()
