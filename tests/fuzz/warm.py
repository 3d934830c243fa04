"""Warm mode: a later process runs the graphs an earlier one recorded, compared with Python.

    python -m tests.fuzz --warm --n 500 [--seed S] [--batch 40]

For each batch of generated programs the driver writes every program once to a file
(`<dir>/fzw_<seed>.py`, so both processes import the same path, module name and source
hash), then starts two worker processes with one fresh `JANUS_CACHE_DIR`:

- cold (process A): runs each program plainly and under janus, call by call, compared as
  in the normal mode, and records specializations in the cache (flushed before it exits);
- warm (process B): the same programs and calls again (reversed for odd seeds, see
  `warm_order`): janus restores the recorded profiles and plans and loads the recorded
  graphs instead of tracing them. Compared with plain Python after every call (values, stdout, exceptions, heap,
  variables). It counts the graphs loaded from the cache (and the calls they ran), so a
  summary shows the warm path was really exercised.

A divergence found by the cold worker is a plain fuzz finding (class `cold:<kind>`); one
found only by the warm worker is a warm-start finding (`warm:<kind>`).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def program_path(directory: str, seed: int) -> str:
    return os.path.join(directory, f"fzw_{seed}.py")


class _Counter:
    """Graphs loaded from the cache and the calls they ran (janus events)."""

    def __init__(self):
        self.loaded = 0
        self.loaded_calls = 0

    def generated(self, jit, spec):
        if getattr(spec, "portable", None) is not None:
            self.loaded += 1

    def graph_run(self, jit, spec, seconds):
        if getattr(spec, "portable", None) is not None:
            self.loaded_calls += 1


def run_program(path: str, source: str, calls: list, timeout: int | None,
                counter: _Counter) -> dict:
    """Run one program file plainly (a private copy) and under janus (the file itself)."""
    import janus
    from janus.cache import warm as warm_mod
    from tests.fuzz import inputs, runner

    name = os.path.splitext(os.path.basename(path))[0]
    runner._isolate()
    plain = runner._Side(source, "plain", jit=False, stem=name)  # (one basename: F439)
    jit = runner._Side.__new__(runner._Side)
    jit.module = runner.load_file(path, name, jit=True)
    jit.fn, jit.jitted = runner.entry_point(jit.module, jit=True)
    jit.objects = {"main": jit.module.State(), "alt": jit.module.State()}
    loaded_before, loaded_calls_before = counter.loaded, counter.loaded_calls
    row = {"calls": 0, "kind": None, "detail": "", "call": None, "warm": False}
    if timeout:
        signal.alarm(timeout)
    try:
        for i, spec in enumerate(calls):
            x, xs, n, flag = inputs.arguments(spec)
            tape = runner.outer_tape(source, i)  # (a caller's tape: runner's module docstring)
            expected = plain.call(spec, x, n, flag, list(xs), tape)
            actual = jit.call(spec, x, n, flag, list(xs), tape)
            if i == 0:
                row["warm"] = warm_mod.is_warm(jit.jitted)
            row["calls"] = i + 1
            found = runner._compare(expected, actual)
            if found:
                row.update(kind=found[0], detail=found[1][:500], call=i)
                break
    except runner.Timeout:
        row.update(kind="timeout", detail=f"call #{row['calls']} ran over {timeout}s",
                   call=row["calls"])
    finally:
        if timeout:
            signal.alarm(0)
        stats = janus.stats(jit.jitted).as_dict()
        runner.unload(plain.module)
        sys.modules.pop(name, None)   # the program file stays: the warm process needs it
    row.update(graph_calls=stats["graph_calls"], generations=stats["generations"],
               profile_calls=stats["profile_calls"],
               loaded=counter.loaded - loaded_before,
               loaded_calls=counter.loaded_calls - loaded_calls_before)
    return row


def warm_order(seed: int, calls: list) -> list:
    """The warm process's calls: as recorded for even seeds; reversed for odd ones. A warm
    start offers the last graphs generated (cache/warm.py), each to every generation until
    one fits: in both orders the warm calls take the recorded-graph path wherever a graph
    of the cold process fits, and the restored-plan path (generating) elsewhere."""
    return calls[::-1] if seed % 2 else list(calls)


def worker(directory: str, seeds: list, n_calls, timeout: int, phase: str) -> None:
    """One process: run the programs of `seeds` (already written to `directory`); print one
    JSON row per program; flush the cache at the end."""
    import janus
    from janus import events
    from janus.cache.config import settings
    from tests.fuzz import generator, runner

    counter = _Counter()
    events.subscribe("generated", counter.generated)
    events.subscribe("graph_run", counter.graph_run)
    settings.max_entries = max(settings.max_entries, 4 * len(seeds) + 64)
    previous = signal.signal(signal.SIGALRM, runner._alarm)
    with runner.fuzz_settings():
        settings.enabled = True   # fuzz_settings turns the cache off: this mode is about it
        for seed in seeds:
            program = generator.generate(seed, n_calls)
            path = program_path(directory, seed)
            calls = warm_order(seed, program.calls) if phase == "warm" else program.calls
            try:
                row = run_program(path, program.source, calls, timeout, counter)
            except Exception as exc:  # noqa: BLE001 - a harness error is reported
                row = {"calls": 0, "kind": "harness", "call": None, "warm": False,
                       "detail": f"{type(exc).__name__}: {exc}"[:300], "graph_calls": 0,
                       "generations": 0, "profile_calls": 0, "loaded": 0, "loaded_calls": 0}
            row.update(seed=seed, phase=phase)
            print("ROW " + json.dumps(row), flush=True)
        janus.cache.flush()
    signal.signal(signal.SIGALRM, previous)


def _worker_env(cache_dir: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    env["JANUS_CACHE_DIR"] = cache_dir
    for name in ("JANUS_CACHE", "JANUS_WARM_START", "JANUS_LOGS"):
        env.pop(name, None)
    return env


def _spawn(directory, cache_dir, seeds, n_calls, timeout, phase, deadline) -> list:
    argv = [sys.executable, "-m", "tests.fuzz.warm", "--worker", phase, "--dir", directory,
            "--seeds", ",".join(map(str, seeds)), "--timeout", str(timeout)]
    if n_calls is not None:
        argv += ["--calls", str(n_calls)]
    done = subprocess.run(argv, env=_worker_env(cache_dir), cwd=ROOT, capture_output=True,
                          text=True, timeout=deadline)
    rows = [json.loads(line[4:]) for line in done.stdout.splitlines() if line.startswith("ROW ")]
    seen = {r["seed"] for r in rows}
    for seed in seeds:   # a crashed worker: the programs it did not finish
        if seed not in seen:
            rows.append({"seed": seed, "phase": phase, "calls": 0, "kind": "harness",
                         "call": None, "warm": False, "graph_calls": 0, "generations": 0,
                         "profile_calls": 0, "loaded": 0, "loaded_calls": 0,
                         "detail": f"worker exited {done.returncode}: {done.stderr[-300:]}"})
    return rows


def run_batch(seeds: list, n_calls=None, timeout: int = 60, keep: str | None = None) -> dict:
    """Cold then warm process over `seeds`: {"cold": rows, "warm": rows} (rows by seed)."""
    from tests.fuzz import generator

    directory = tempfile.mkdtemp(prefix="janus-fuzz-warm-", dir=keep)
    try:
        cache_dir = os.path.join(directory, "cache")
        for seed in seeds:
            with open(program_path(directory, seed), "w") as f:
                f.write(generator.generate(seed, n_calls).source)
        budget = 120 + timeout * len(seeds)
        cold = _spawn(directory, cache_dir, seeds, n_calls, timeout, "cold", budget)
        warm = _spawn(directory, cache_dir, seeds, n_calls, timeout, "warm", budget)
        return {"cold": sorted(cold, key=lambda r: r["seed"]),
                "warm": sorted(warm, key=lambda r: r["seed"])}
    finally:
        if keep is None:
            shutil.rmtree(directory, ignore_errors=True)


def divergences(batch: dict) -> list:
    """[(class, row)]: cold divergences as `cold:<kind>`; warm ones of programs that did
    not diverge cold (a cold divergence cut the recording short) as `warm:<kind>`."""
    cold = {r["seed"]: r for r in batch["cold"]}
    found = []
    for r in batch["cold"]:
        if r["kind"]:
            found.append((f"cold:{r['kind']}", r))
    for r in batch["warm"]:
        c = cold.get(r["seed"])
        if r["kind"] and not (c and c["kind"]):
            found.append((f"warm:{r['kind']}", r))
    return found


def totals(batch: dict) -> dict:
    warm = batch["warm"]
    return {"programs": len(warm), "calls": sum(r["calls"] for r in warm),
            "graph_calls": sum(r["graph_calls"] for r in warm),
            "warm_started": sum(1 for r in warm if r["warm"]),
            "loaded": sum(r["loaded"] for r in warm),
            "loaded_calls": sum(r["loaded_calls"] for r in warm),
            "generations": sum(r["generations"] for r in warm),
            "profile_calls": sum(r["profile_calls"] for r in warm)}


def campaign(first: int, n: int, batch: int, n_calls, timeout: int) -> int:
    """The long warm mode: batches of `batch` programs; prints progress and a summary."""
    start = time.time()
    total = collections.Counter()
    by_class = collections.defaultdict(list)
    for lo in range(first, first + n, batch):
        seeds = list(range(lo, min(lo + batch, first + n)))
        result = run_batch(seeds, n_calls, timeout)
        total.update(totals(result))
        for kind, row in divergences(result):
            by_class[_signature(kind, row)].append(row)
        print(f"[{time.time() - start:6.0f}s] {total['programs']}/{n} programs, "
              f"{total['calls']} warm calls, {total['graph_calls']} as graphs, "
              f"{total['loaded']} graphs loaded from the cache "
              f"({total['loaded_calls']} calls), {total['warm_started']} warm starts, "
              f"{sum(len(v) for v in by_class.values())} diverged", flush=True)
    print(f"\n{dict(total)}")
    print(f"{len(by_class)} classes:")
    for signature, rows in sorted(by_class.items(), key=lambda kv: -len(kv[1])):
        seeds = ", ".join(f"{r['seed']}@{r['call']}" for r in rows[:8])
        print(f"  {len(rows):5d}  {signature}  (seed@call {seeds})\n         {rows[0]['detail'][:300]}")
    return 1 if by_class else 0


def _signature(kind: str, row: dict) -> str:
    from tests.fuzz.runner import Divergence
    phase, _, k = kind.partition(":")
    return f"{phase}:" + Divergence(k, row["call"] or 0, row["detail"]).signature()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz.warm", description=__doc__)
    parser.add_argument("--worker", choices=("cold", "warm"))
    parser.add_argument("--dir")
    parser.add_argument("--seeds", default="")
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=40)
    parser.add_argument("--calls", type=int, default=None)
    parser.add_argument("--timeout", type=int, default=60)
    args, _ = parser.parse_known_args(argv)
    if args.worker:
        worker(args.dir, [int(s) for s in args.seeds.split(",") if s], args.calls,
               args.timeout, args.worker)
        return 0
    return campaign(args.seed, args.n, args.batch, args.calls, args.timeout)


if __name__ == "__main__":
    sys.exit(main())
