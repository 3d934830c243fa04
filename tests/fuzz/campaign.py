"""The long mode (`python -m tests.fuzz --n 10000 [--seed S] [--jobs 2] [--out DIR]`;
`--warm [--batch B]` runs the warm mode instead: tests/fuzz/warm.py).

Generates programs seed S..S+n-1, runs each plainly and under janus, prints progress
and a summary (programs, calls, calls run as graphs, divergences by class), then
minimizes the first program of each divergence class and writes it as a standalone
repro (`python DIR/<class>.py`).
"""
from __future__ import annotations

import argparse
import collections
import multiprocessing
import os
import re
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def _init_worker():
    from tests.fuzz import runner  # noqa: F401 - TensorFlow imported once per worker


def run_seed(task: tuple[int, int, int | None]) -> dict:
    """Generate and run one program; a plain-data summary of what happened."""
    seed, timeout, n_calls = task
    from tests.fuzz import generator, runner

    program = generator.generate(seed, n_calls)
    row = {"seed": seed, "n_calls": n_calls, "rules": program.rules, "calls": 0, "graph_calls": 0,
           "plain_calls": 0,
           "ill_conditioned": "",
           "kind": None, "signature": None, "detail": "", "call": None, "eager": ""}
    try:
        result = runner.run(program.source, program.calls, timeout=timeout)
    except Exception as exc:  # noqa: BLE001 - a harness error is reported, not fatal
        row.update(kind="harness", signature=f"harness: {type(exc).__name__}",
                   detail=str(exc)[:300])
        return row
    row.update(calls=result.stats["calls"], graph_calls=result.stats["graph_calls"],
               plain_calls=result.stats.get("plain_calls", 0),
               eager=result.eager_reason, ill_conditioned=result.ill_conditioned)
    if result.divergence:
        d = result.divergence
        row.update(kind=d.kind, signature=d.signature(), detail=d.detail[:500], call=d.call)
    return row


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:60]


def _minimize_and_write(row: dict, out: str, budget: int) -> str:
    from tests.fuzz import cases, generator, minimize, runner

    program = generator.generate(row["seed"], row["n_calls"])
    calls = program.calls[:row["call"] + 1]
    source, calls = minimize.minimize(program.source, calls, row["kind"], budget=budget)
    result = runner.run(source, calls)
    d = result.divergence
    note = (f"seed {row['seed']} (generator v{generator.GENERATOR_VERSION}), minimized\n"
            f"original: {row['detail']}\n"
            f"minimized: {d.kind if d else 'no divergence'}: {d.detail if d else ''}")
    path = os.path.join(out, f"{_slug(row['kind'])}_seed{row['seed']}.py")
    cases.write(path, source, calls, finding="?", kind=row["kind"],
                xfail=None, note=note)
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--n", type=int, default=1000, help="programs to generate")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per program")
    parser.add_argument("--out", default="fuzz-out", help="directory for minimized repros")
    parser.add_argument("--no-minimize", action="store_true")
    parser.add_argument("--budget", type=int, default=300, help="runs per minimization")
    parser.add_argument("--calls", type=int, default=None,
                        help="calls per program (default: 9-13, drawn per seed)")
    parser.add_argument("--quick-known", action="store_true",
                        help="run the quick mode's seeds; print the known-divergence table")
    parser.add_argument("--warm", action="store_true",
                        help="warm mode: a second process runs the graphs the first recorded "
                             "(tests/fuzz/warm.py)")
    parser.add_argument("--batch", type=int, default=40, help="programs per cache (--warm)")
    parser.add_argument("--plain", action="store_true",
                        help="plain mode: graphs lose their graph-or-plain trial, calls run "
                             "plainly (runner._plain_mode); use with --calls 30")
    parser.add_argument("--outer-tape", action="store_true",
                        help="outer-tape mode: a quarter of the programs make every other "
                             "call under a caller's GradientTape (runner.outer_tape)")
    args = parser.parse_args(argv)
    if args.outer_tape:
        os.environ["JANUS_FUZZ_OUTER_TAPE"] = "1"  # (read in each worker: runner.outer_tape)
    if args.plain:
        os.environ["JANUS_FUZZ_PLAIN"] = "1"  # (read in each worker: runner.fuzz_settings)
    if args.warm:
        from tests.fuzz import warm
        return warm.campaign(args.seed, args.n, args.batch, args.calls, args.timeout)
    if args.quick_known:
        from tests.fuzz.test_fuzz_quick import QUICK_CALLS, QUICK_N
        args.seed, args.n, args.calls, args.no_minimize = 0, QUICK_N, QUICK_CALLS, True

    tasks = [(s, args.timeout, args.calls) for s in range(args.seed, args.seed + args.n)]
    start = time.time()
    rows: list[dict] = []
    if args.jobs > 1:
        pool = multiprocessing.get_context("spawn").Pool(args.jobs, _init_worker,
                                                          maxtasksperchild=200)
        results = pool.imap_unordered(run_seed, tasks, chunksize=4)
    else:
        pool = None
        _init_worker()
        results = map(run_seed, tasks)
    last = start
    for row in results:
        rows.append(row)
        if row["kind"]:  # said at once: a long run stopped early still names its seeds
            print(f"  diverged: seed {row['seed']}: {row['signature']}", flush=True)
        if time.time() - last > 20 or len(rows) == len(tasks):
            last = time.time()
            _progress(rows, len(tasks), start)
    if pool is not None:
        pool.close()
        pool.join()
    by_class = _summary(rows, start)
    if args.quick_known:
        _print_known(rows)
    if not args.no_minimize and by_class:
        os.makedirs(args.out, exist_ok=True)
        print(f"\nminimizing one program per class into {args.out}/ ...")
        _init_worker()
        for signature, members in by_class.items():
            row = min(members, key=lambda r: r["seed"])
            if row["call"] is None:
                print(f"  {signature}: seed {row['seed']} (not minimized)")
                continue
            print(f"  {signature}: {_minimize_and_write(row, args.out, args.budget)}")
    return 1 if by_class else 0


def _print_known(rows) -> None:
    """The quick mode's table of diverging seeds, to paste into tests/fuzz/known.py."""
    from tests.fuzz.known import classify

    print("\nQUICK: dict[int, str] = {")
    for r in sorted(rows, key=lambda r: r["seed"]):
        if r["kind"]:
            print(f"    {r['seed']}: {classify(r['signature'])!r},  # {r['signature'][:60]}")
    print("}")


def _progress(rows, total, start):
    calls = sum(r["calls"] for r in rows)
    graphs = sum(r["graph_calls"] for r in rows)
    bad = sum(1 for r in rows if r["kind"])
    print(f"[{time.time() - start:6.0f}s] {len(rows)}/{total} programs, {calls} calls, "
          f"{graphs} as graphs ({100 * graphs / max(calls, 1):.0f}%), {bad} diverged",
          flush=True)


def runner_perturb() -> str:
    from tests.fuzz import runner
    return f"{runner.PERTURB:g} (relative)"


def _summary(rows, start) -> dict:
    calls = sum(r["calls"] for r in rows)
    graphs = sum(r["graph_calls"] for r in rows)
    some_graph = sum(1 for r in rows if r["graph_calls"])
    by_class = collections.defaultdict(list)
    for r in rows:
        if r["kind"]:
            by_class[r["signature"]].append(r)
    print(f"\n{len(rows)} programs in {time.time() - start:.0f}s, {calls} calls, {graphs} "
          f"ran as graphs ({100 * graphs / max(calls, 1):.1f}%); {some_graph} programs ran "
          f"at least one graph")
    plain = sum(r.get("plain_calls", 0) for r in rows)
    if plain:
        print(f"{plain} calls ran plainly: trial turns and plain decisions (--plain), in "
              f"{sum(1 for r in rows if r.get('plain_calls'))} programs")
    noisy = [r for r in rows if r.get("ill_conditioned")]
    if noisy:
        print(f"{len(noisy)} programs stopped at a float difference plain Python shows too on "
              f"inputs {runner_perturb()} apart, or that Grappler's float rewrites make "
              f"(ill-conditioned, not counted; seeds "
              f"{', '.join(str(r['seed']) for r in noisy[:6])})")
    print(f"{sum(len(v) for v in by_class.values())} programs diverged, "
          f"{len(by_class)} classes:")
    for signature, members in sorted(by_class.items(), key=lambda kv: -len(kv[1])):
        seeds = ", ".join(str(r["seed"]) for r in members[:6])
        print(f"  {len(members):5d}  {signature}  (seeds {seeds})")
    return dict(by_class)
