"""janus's fixed per-call host cost, phase by phase, next to a bare graph call.

    python -m benchmarks.overhead [--quick] [--models rnn,treelstm,...] [--calls N] [--out DIR]

For each model: janus runs its step until it is steady, then, on one batch, every phase
of a janus call is timed on its own over many repetitions (median of several rounds,
microseconds per call):

- ``dispatch``: deciding how to run the call (host guard check included);
- ``guards``: the host guard check alone;
- ``feed``: reading the graph's inputs (node tables for recursion included);
- ``tables``: building the node tables alone (recursive models);
- ``graph``: calling the graph the way janus does (flat: no signature binding);
- ``bare``: ``ConcreteFunction(*inputs)``, the plain TF call of the same graph;
- ``write_back``: heap write-back and result rebuilding;
- ``janus``: the whole ``fn(state, *batch)`` call;
- ``overhead``: ``janus - bare`` (janus's host cost beyond a bare graph call);
- ``host cpu``: ``janus - graph`` in the calling thread's CPU time (`time.thread_time`:
  what janus's own Python costs per call, hardly moved by other processes' load).

A model janus runs split at graph breaks also gets a per-segment-call table: each
kept segment's call next to a bare ConcreteFunction call of its graph
(benchmarks/segment_overhead.py). Every model, also one janus runs in segments or mixed
(no whole-function graph), gets per-step host time: the step's wall time minus the time inside graph calls (janus's
``call_graph``; the expert's outermost ``tf.function`` calls): ``j.host`` next to
``exp.host`` (the expert's host work: e.g. linearizing trees into a node table).

On a loaded machine wall-time ratios swing with other processes' bursts (actor-critic
measured 0.38x and 0.76x of the expert within minutes). Every model with an expert also
gets both in process CPU time (`time.process_time`: this process's threads, TensorFlow's
op threads included), little moved by load: janus and the expert from fresh states,
stepped in lockstep on the same batches (the same episodes, the same trees) past janus's
profiling and generation, then `--calls` steps each: ``j.cpu`` next to ``exp.cpu`` and
their ratio (``cpu vs exp``).

Next to it: the expert's whole call, naive ``tf.function``'s call, and one-off latencies:
janus's first call (profiling), its time generating graphs, and naive ``tf.function``'s
first call (its trace).

With ``--warm``: the first calls of each model in fresh processes, cold (an empty graph
cache) and warm (a second process on the cache the first one filled): the first call's
latency (the time to its result, the model already built), the first three calls, the
time to the first graph run, and the graphs generated / loaded from the cache.

The machine may be shared: numbers are as measured (medians of rounds).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Optional, Sequence

from benchmarks.run import DEFAULT_OUT, quiet_tensorflow
from benchmarks.segment_overhead import measure_segments, segment_table

QUICK_MODELS = ("rnn", "treelstm", "treernn", "lenet", "lstm_lm")
ROUNDS = 5


def per_call(fns: dict, calls: int, rounds: int = ROUNDS, clock=time.perf_counter,
             statistic=statistics.median) -> dict:
    """Seconds per call of each zero-argument function in `fns`: the median (or
    `statistic`) over `rounds` of the mean over `calls` calls, the functions taking turns
    in each round (so a burst of load on the shared machine hits all of them alike).
    `clock`: wall time, or `time.thread_time` for the calling thread's CPU time."""
    times: dict = {name: [] for name in fns}
    for fn in fns.values():
        fn()
    for _ in range(rounds):
        for name, fn in fns.items():
            start = clock()
            for _ in range(calls):
                fn()
            times[name].append((clock() - start) / calls)
    return {name: statistic(t) for name, t in times.items()}


@contextlib.contextmanager
def time_inside_janus_graphs():
    """Accumulate the seconds janus spends inside its graph calls (`calls.call_graph`)."""
    from janus.graphgen import calls

    original = calls.call_graph
    spent = {"seconds": 0.0}

    def timed(concrete, inputs):
        start = time.perf_counter()
        try:
            return original(concrete, inputs)
        finally:
            spent["seconds"] += time.perf_counter() - start

    calls.call_graph = timed
    try:
        yield spent
    finally:
        calls.call_graph = original


def host_per_step(call, timer, n: int) -> tuple[float, float]:
    """(wall, host) seconds per call of `call()`: host is wall minus the time `timer`
    (one of the context managers here) saw inside graph calls."""
    with timer() as spent:
        start = time.perf_counter()
        for _ in range(n):
            call()
        total = time.perf_counter() - start
    return total / n, (total - spent["seconds"]) / n


@contextlib.contextmanager
def time_inside_tf_functions():
    """Accumulate the seconds spent inside (outermost) `tf.function` calls."""
    from tensorflow.python.eager.polymorphic_function import polymorphic_function as pf

    original = pf.Function.__call__
    spent = {"seconds": 0.0, "depth": 0}

    def timed(self, *args, **kwargs):
        spent["depth"] += 1
        start = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            spent["depth"] -= 1
            if spent["depth"] == 0:
                spent["seconds"] += time.perf_counter() - start

    pf.Function.__call__ = timed
    try:
        yield spent
    finally:
        pf.Function.__call__ = original


def _steady(fn, state, batches, limit: int = 40):
    """Call until a few calls in a row ran as graphs; the janus call's stats."""
    import janus

    stats = janus.stats(fn)
    streak = 0
    for i in range(limit):
        before = stats.graph_calls
        fn(state, *batches[i % len(batches)])
        streak = streak + 1 if stats.graph_calls > before else 0
        if streak >= 3:
            return True
    return False


def _table_builder(spec, env):
    """A zero-argument function building the spec's node tables (None without recursion)."""
    if not spec.tables:
        return None
    from janus.graphgen.sources import evaluate
    from janus.recursion.table import compile_builder

    work = [([evaluate(r, *env) for r in roots], compile_builder(list(cases)))
            for roots, cases in spec.tables.values()]
    return lambda: [build(nodes) for nodes, build in work]


def lockstep_cpu(workload, steps: int, warmup: int = 40) -> dict:
    """Process CPU seconds per step of janus and of the expert, each on a fresh state,
    stepping in turns on the same batches: both run the same work (an episode's length
    depends on the training so far). Measured once janus decides nothing more (at most
    `warmup` steps each, unmeasured), then `steps` steps each."""
    import janus

    states = {"janus": workload.make_state(), "expert": workload.make_state()}
    fn = janus.jit(workload.step, xla=False)
    run = {"janus": lambda *batch: fn(states["janus"], *batch),
           "expert": workload.expert(states["expert"])}
    batches = workload.batches(warmup + steps)
    spent = {name: 0.0 for name in run}
    i, measured, timing = 0, 0, False
    while measured < steps:
        timing = timing or i >= warmup or i >= 3 and not janus.deciding(fn)
        for name, call in run.items():
            start = time.process_time()
            call(*batches[i % len(batches)])
            if timing:
                spent[name] += time.process_time() - start
        measured += timing
        i += 1
    return {name: seconds / steps for name, seconds in spent.items()}


def measure_model(name: str, size: str, calls: int, seed: int = 0) -> dict:
    """The per-phase table of one model (see the module docstring)."""
    import janus
    import tensorflow as tf
    from janus.config import config as janus_config
    from models import get_workload

    workload = get_workload(name, size=size, seed=seed)
    batches = workload.batches(8)
    batch = batches[0]
    out: dict = {"model": name, "size": size}

    # naive tf.function: its first call traces
    state = workload.make_state()
    naive = tf.function(workload.step)
    start = time.perf_counter()
    try:
        naive(state, *batch)
        out["tf_function_first_call_s"] = time.perf_counter() - start
        out["tf_function_us"] = per_call({"": lambda: naive(state, *batch)}, calls)[""] * 1e6
    except Exception as exc:  # noqa: BLE001 - naive tf.function fails on some models
        out["tf_function_error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:100]}"

    if workload.expert is not None:
        state = workload.make_state()
        expert = workload.expert(state)
        expert(*batch)
        out["expert_us"] = per_call({"": lambda: expert(*batch)}, calls)[""] * 1e6
        _, host = host_per_step(lambda: expert(*batch), time_inside_tf_functions,
                                calls * ROUNDS)
        out["expert_host_us"] = host * 1e6

    state = workload.make_state()
    fn = janus.jit(workload.step, xla=False)  # host cost: the same graph as the bare call
    start = time.perf_counter()
    fn(state, *batch)
    out["janus_first_call_s"] = time.perf_counter() - start
    steady = _steady(fn, state, batches)
    stats = janus.stats(fn)
    out.update(janus_generations=stats.generations, janus_generation_s=stats.time_generating,
               janus_steady=steady)
    jit = fn
    args, kwargs = (state,) + tuple(batch), {}
    env = jit._env(args, kwargs)
    cfg = janus_config
    for _ in range(4):  # the measured batch may need its own specialization
        spec = next((s for s in jit.specializations if s.guards.check(args, kwargs) < 0), None)
        if spec is not None:
            break
        fn(*args)
    fn(*args)  # (the measured batch's own first call is not measured)
    wall, host = host_per_step(lambda: fn(*args), time_inside_janus_graphs, calls * ROUNDS)
    out.update(janus_step_us=wall * 1e6, janus_host_us=host * 1e6)
    if "expert_us" in out:
        out["ratio_to_expert"] = out["expert_us"] / out["janus_step_us"]
        cpu = lockstep_cpu(workload, calls)
        out.update(janus_cpu_us=cpu["janus"] * 1e6, expert_cpu_us=cpu["expert"] * 1e6,
                   cpu_ratio_to_expert=cpu["expert"] / cpu["janus"])
    if spec is None:  # segments or a mixed run: per step, and per segment call
        out["note"] = "no whole-function graph (segments or mixed): per-step host time " \
                      "and per-segment-call costs only"
        out["segments"] = measure_segments(lambda: fn(*args), calls, per_call)
        return out
    inputs = spec.feed(args, kwargs)
    results = spec.concrete(*inputs)

    def dispatch():
        with jit._lock:
            jit._decide(args, kwargs, cfg)

    phases = {
        "dispatch": dispatch,
        "guards": lambda: spec.guards.check(args, kwargs),
        "feed": lambda: spec.feed(args, kwargs),
        "graph": lambda: spec.call(inputs),
        "bare": lambda: spec.concrete(*inputs),
        "write_back": lambda: jit._write_back(spec, results, env),
        "janus": lambda: fn(*args),
    }
    tables = _table_builder(spec, env)
    if tables is not None:
        phases["tables"] = tables
    for phase, seconds in per_call(phases, calls).items():
        out[f"{phase}_us"] = seconds * 1e6
    out["overhead_us"] = out["janus_us"] - out["bare_us"]
    cpu = per_call({"janus": phases["janus"], "graph": phases["graph"]}, calls,
                   clock=time.thread_time)
    out["host_cpu_us"] = (cpu["janus"] - cpu["graph"]) * 1e6
    out["janus_graph_calls"] = janus.stats(fn).graph_calls
    if "expert_us" in out:
        out["ratio_to_expert"] = out["expert_us"] / out["janus_us"]
    return out


COLUMNS = [("janus", "janus_us"), ("bare", "bare_us"), ("overhead", "overhead_us"),
           ("host cpu", "host_cpu_us"), ("dispatch", "dispatch_us"), ("guards", "guards_us"),
           ("feed", "feed_us"), ("tables", "tables_us"), ("graph", "graph_us"),
           ("write", "write_back_us"), ("j.step", "janus_step_us"), ("j.host", "janus_host_us"),
           ("expert", "expert_us"), ("exp.host", "expert_host_us"),
           ("tf.func", "tf_function_us"), ("j.cpu", "janus_cpu_us"), ("exp.cpu", "expert_cpu_us")]


def table(rows: list[dict]) -> str:
    """Per-call microseconds, then first-call latencies, as text."""
    head = f"{'model':<10}" + "".join(f"{title:>10}" for title, _ in COLUMNS) + \
        f"{'vs expert':>10}{'cpu vs exp':>11}"
    lines = ["per-call time (us, median of rounds)", head, "-" * len(head)]
    for row in rows:
        cells = "".join(f"{row[key]:>10.0f}" if isinstance(row.get(key), float) else f"{'-':>10}"
                        for _, key in COLUMNS)
        ratio, cpu_ratio = row.get("ratio_to_expert"), row.get("cpu_ratio_to_expert")
        lines.append(f"{row['model']:<10}{cells}{(f'{ratio:.2f}x' if ratio else '-'):>10}"
                     f"{(f'{cpu_ratio:.2f}x' if cpu_ratio else '-'):>11}")
    lines += ["", "first-call latency (s)",
              f"{'model':<10}{'janus 1st':>10}{'generating':>11}{'gens':>6}{'tf.function 1st':>16}"]
    for row in rows:
        tf_first = row.get("tf_function_first_call_s")
        lines.append(f"{row['model']:<10}{row.get('janus_first_call_s', 0):>10.2f}"
                     f"{row.get('janus_generation_s', 0):>11.2f}{row.get('janus_generations', 0):>6}"
                     + (f"{tf_first:>16.2f}" if tf_first is not None else f"{'error':>16}"))
    return "\n".join(lines)


def first_calls(name: str, size: str, calls: int = 3, seed: int = 0) -> dict:
    """In this (fresh) process: the latencies of the first `calls` janus calls of a model
    (defaults: XLA on, the graph cache of $JANUS_CACHE_DIR), then a flush of the cache."""
    import janus
    from models import get_workload

    workload = get_workload(name, size=size, seed=seed)
    state, batches = workload.make_state(), workload.batches(calls)
    fn = janus.jit(workload.step)
    times, to_graph, start = [], None, time.perf_counter()
    for batch in batches:
        begin = time.perf_counter()
        fn(state, *batch)
        times.append(time.perf_counter() - begin)
        if to_graph is None and janus.stats(fn).graph_calls:
            to_graph = time.perf_counter() - start
    stats = janus.stats(fn)
    out = {"first_call_s": times[0], "first_calls_s": sum(times), "calls": calls,
           "to_first_graph_s": to_graph, "warm": janus.cache.is_warm(fn),
           "generations": stats.generations, "profile_calls": stats.profile_calls,
           "loaded": sum(s.portable is not None for s in fn.specializations)}
    janus.cache.flush()
    return out


def cold_and_warm(name: str, size: str, seed: int = 0) -> dict:
    """`first_calls` in a fresh process on an empty graph cache, then in another on the
    cache the first one filled: {"cold": ..., "warm": ...}."""
    cache = tempfile.mkdtemp(prefix="janus-overhead-cache-")
    env = dict(os.environ, JANUS_CACHE_DIR=cache, TF_CPP_MIN_LOG_LEVEL="3")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    out = {}
    for phase in ("cold", "warm"):
        done = subprocess.run([sys.executable, "-m", "benchmarks.overhead", "--first-calls",
                               name, "--size", size, "--seed", str(seed)], env=env, cwd=root,
                              capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            raise RuntimeError(f"{name} ({phase}): {done.stderr[-1000:]}")
        out[phase] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def warm_table(rows: list[dict]) -> str:
    """First calls in fresh processes, cold vs warm, as text."""
    head = (f"{'model':<10}{'':>6}{'1st call':>10}{'3 calls':>10}{'to graph':>10}"
            f"{'gens':>6}{'loaded':>8}")
    lines = ["first calls in a fresh process (s): cold = empty graph cache, warm = the cache "
             "a previous process filled", head, "-" * len(head)]
    for row in rows:
        for phase in ("cold", "warm"):
            r = row["first_calls"][phase]
            to_graph = r["to_first_graph_s"]
            lines.append(f"{row['model'] if phase == 'cold' else '':<10}{phase:>6}"
                         f"{r['first_call_s']:>10.3f}{r['first_calls_s']:>10.3f}"
                         + (f"{to_graph:>10.3f}" if to_graph is not None else f"{'-':>10}")
                         + f"{r['generations']:>6}{r['loaded']:>8}")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="quick model sizes")
    p.add_argument("--size", choices=["full", "quick", "tiny"])
    p.add_argument("--models", default=",".join(QUICK_MODELS))
    p.add_argument("--calls", type=int, default=30, help="calls per timing round")
    p.add_argument("--out", default=DEFAULT_OUT)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--warm", action="store_true",
                   help="also first calls in fresh processes, cold vs warm graph cache")
    p.add_argument("--warm-only", action="store_true", help="only the cold/warm first calls")
    p.add_argument("--first-calls", metavar="MODEL", help=argparse.SUPPRESS)  # (a worker)
    args = p.parse_args(argv)
    if args.first_calls:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        print(json.dumps(first_calls(args.first_calls, args.size or "full", seed=args.seed)))
        return []
    quiet_tensorflow()
    size = args.size or ("quick" if args.quick else "full")
    rows = []
    for name in [m for m in args.models.split(",") if m]:
        print(f"== {name} ({size})", flush=True)
        row = {"model": name, "size": size} if args.warm_only else \
            measure_model(name, size, args.calls, args.seed)
        if args.warm or args.warm_only:
            row["first_calls"] = cold_and_warm(name, size, args.seed)
        rows.append(row)
    print()
    if not args.warm_only:
        print(table(rows))
        if any(row.get("segments") for row in rows):
            print()
            print(segment_table(rows))
    if args.warm or args.warm_only:
        print()
        print(warm_table(rows))
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "overhead.json")
    with open(path, "w") as f:
        json.dump({"size": size, "models": rows}, f, indent=1)
    print(f"wrote {path}")
    return rows


if __name__ == "__main__":
    main()
