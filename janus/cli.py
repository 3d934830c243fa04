"""The `janus` command: look into the graph cache.

    janus cache list [--json]                 functions, their specializations, counts
    janus cache show ID [--json]              guards, generated source, ops, counters, failures
    janus cache export ID --format pbtxt|dot|tensorboard OUT
    janus cache stats [--json]
    janus cache clear [--function NAME] [--yes]

`--cache-dir DIR` (anywhere on the line) picks another cache than $JANUS_CACHE_DIR /
~/.cache/janus. ID is a specialization id from `janus cache list`, or a unique
prefix of one; `show` also takes a function name. Problems with the cache (unknown
ids, an empty or missing cache, unwritable output paths) exit with status 2 and a
message saying what to do; corrupt entries are skipped with a warning.
"""
from __future__ import annotations

import argparse
import datetime
import fnmatch
import json
import os
import sys

from janus.dot import graph_def_from_text, to_dot
from janus.fallback import split_report

EXIT_USAGE = 2


class CliError(Exception):
    """A problem the user can fix: printed as one message, exit status 2."""


# -- helpers ---------------------------------------------------------------------------

def _when(timestamp) -> str:
    if not timestamp:
        return "never"
    return datetime.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M:%S")


def _seconds(value) -> str:
    value = float(value or 0)
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def _warn(message: str) -> None:
    print(f"janus: warning: {message}", file=sys.stderr)


def _cache_dir(args) -> str:
    if getattr(args, "cache_dir", None):
        return os.path.abspath(os.path.expanduser(args.cache_dir))
    from janus.cache.config import default_directory
    return default_directory()


def _open(args, need_entries: bool = True):
    from janus.cache.store import CacheStore
    root = _cache_dir(args)
    if not os.path.exists(root):
        raise CliError(f"no janus cache at {root}: the directory does not exist "
                       "(run a janus.jit function first, or pass --cache-dir)")
    if not os.path.isdir(root):
        raise CliError(f"{root} is not a directory (pass --cache-dir with a cache directory)")
    store = CacheStore(root)
    from janus.cache.files import UnsafeEntry
    try:
        store.check_root()
    except UnsafeEntry as exc:
        raise CliError(f"not using the janus cache at {root}: {exc} (it must be yours and "
                       "writable only by you: chown it, or chmod go-w)") from None
    listing = store.scan()
    for problem in listing.problems:
        _warn(problem)
    if need_entries and not listing.functions:
        raise CliError(f"the janus cache at {root} is empty: no specializations recorded yet")
    return store, listing


def _find(listing, ident: str, allow_function: bool = False):
    """The SpecEntry with this id / unique id prefix (or, if allowed, a FunctionEntry)."""
    ident = ident.strip()
    specs = listing.specs
    exact = [s for s in specs if s.id == ident or f"{s.function_key}/{s.id}" == ident]
    if exact:
        return exact[0]
    if len(ident) >= 4:
        matches = [s for s in specs if s.id.startswith(ident)]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise CliError(f"the id prefix {ident!r} is ambiguous: "
                           f"{', '.join(s.id for s in matches)}")
    if allow_function:
        functions = _match_functions(listing, ident)
        if len(functions) == 1:
            return functions[0]
    raise CliError(f"unknown id {ident!r}: no specialization in {listing.root} has it "
                   "(`janus cache list` shows the ids)")


def _match_functions(listing, name: str):
    out = []
    for f in listing.functions:
        ident = f.identity
        full = f"{ident.get('module', '?')}.{f.qualname}"
        if name in (f.qualname, full, f.key) or fnmatch.fnmatchcase(f.qualname, name) \
                or fnmatch.fnmatchcase(full, name):
            out.append(f)
    return out


def _spec_row(spec, function=None) -> dict:
    from janus.cache.store import staleness
    r, c = spec.record, spec.counters
    return {"id": spec.id, "stale": staleness(function.index if function else None, r), "function": r["function"]["qualname"],
            "module": r["function"]["module"], "plan": r.get("plan", []),
            "guards": len(r.get("guards", [])), "in_graph_guards": len(r.get("in_graph_guards", [])),
            "ops": sum(r.get("op_histogram", {}).values()),
            "library_functions": len(r.get("structure", {}).get("functions", [])),
            "graph_runs": c.get("graph_runs", 0), "time_graph": c.get("time_graph", 0.0),
            "generations": c.get("generations", 0), "generation_time": c.get("generation_time", 0.0),
            "guard_failures": sum(c.get("guard_failures", {}).values()),
            "created": r.get("created"), "last_used": c.get("last_used") or None,
            "source_hash": r["function"].get("source_hash"), "versions": r.get("versions", {}),
            "xla": c.get("xla", ""), "plain": c.get("plain", "")}


def _function_row(f) -> dict:
    c = f.counters
    ident = f.identity
    return {"key": f.key, "qualname": f.qualname, "module": ident.get("module"),
            "filename": ident.get("filename"), "first_line": ident.get("first_line"),
            "source_hash": ident.get("source_hash"), "processes": (f.index or {}).get("processes", 0),
            "counters": c, "gave_up": (f.index or {}).get("gave_up"),
            "segments": (f.index or {}).get("segments"),
            "evicted": (f.index or {}).get("evicted", 0),
            "specializations": [_spec_row(s, f) for s in f.specs]}


# -- commands --------------------------------------------------------------------------

def cmd_list(args) -> int:
    store, listing = _open(args)
    rows = [_function_row(f) for f in listing.functions]
    if args.json:
        print(json.dumps(rows, indent=1, default=str))
        return 0
    n_specs = sum(len(r["specializations"]) for r in rows)
    print(f"janus cache at {listing.root}: {len(rows)} function(s), {n_specs} specialization(s)")
    for row in rows:
        c = row["counters"]
        print()
        print(f"{row['qualname']}  ({row['module']}, {row['filename']}:{row['first_line']})")
        plain = f", plain {c['plain_calls']}" if c.get("plain_calls") else ""
        print(f"  calls {c.get('calls', 0)}: graph {c.get('graph_calls', 0)}{plain}, profiled "
              f"{c.get('profile_calls', 0)}, eager {c.get('fallback_calls', 0)}; generations "
              f"{c.get('generations', 0)}; guard failures {sum(c.get('guard_failures', {}).values())}"
              f"; {row['processes']} process(es)")
        if row["gave_up"]:
            print(f"  gave up: {row['gave_up']}")
        if row["segments"]:
            print(f"  {split_report.headline(row['segments'], c)}")
        if not row["specializations"]:
            print("  (no specializations)")
            continue
        print(f"  {'ID':<12}  {'RUNS':>6}  {'GUARDS':>6}  {'IN-GRAPH':>8}  {'OPS':>5}  {'GEN':>3}  "
              f"{'FAILS':>5}  {'GRAPH TIME':>10}  {'LAST USED':<19}  PLAN")
        for s in row["specializations"]:
            print(f"  {s['id']:<12}  {s['graph_runs']:>6}  {s['guards']:>6}  {s['in_graph_guards']:>8}"
                  f"  {s['ops']:>5}  {s['generations']:>3}  {s['guard_failures']:>5}  "
                  f"{_seconds(s['time_graph']):>10}  {_when(s['last_used']):<19}  "
                  f"{'; '.join(s['plan'])}{'  (' + s['stale'] + ')' if s['stale'] else ''}"
                  f"{'  [xla ' + s['xla'].split(' (')[0] + ']' if s['xla'] else ''}"
                  f"{'  [runs plain]' if s['plain'].startswith('plain') else ''}")
    return 0


def _source_line(record: dict, where: str) -> str | None:
    """The user's source line for a `file:line` location, from the recorded source."""
    source = record.get("source") or {}
    if not where or ":" not in where:
        return None
    filename, _, line = where.rpartition(":")
    if not line.isdigit() or (filename and source.get("filename") and filename != source["filename"]):
        return None
    lines = source.get("text", "").splitlines()
    index = int(line) - source.get("first_line", 1)
    if 0 <= index < len(lines):
        return f"{int(line):>5} | {lines[index].rstrip()}"
    return None


def _show_function(store, listing, f) -> int:
    row = _function_row(f)
    c = row["counters"]
    print(f"function {row['qualname']}  ({row['module']}, {row['filename']}:{row['first_line']})")
    print(f"  source hash {row['source_hash']}; {row['processes']} process(es) recorded it")
    _print_function_counters(c, f.index or {})
    if row["segments"]:
        print(f"  {split_report.headline(row['segments'], c)}")
        for line in split_report.lines(row["segments"]):
            print(f"  {line}")
    print(f"specializations ({len(f.specs)}):")
    for s in row["specializations"]:
        print(f"  {s['id']}  runs {s['graph_runs']}, {s['guards']} guards, {s['ops']} ops, "
              f"plan: {'; '.join(s['plan'])}")
        if s["plain"]:
            print(f"      plain: {s['plain']}")
        if s["xla"]:
            print(f"      xla: {s['xla']}")
    _print_history(f.index or {})
    return 0


def _print_function_counters(c: dict, index: dict) -> None:
    plain = f", plain {c['plain_calls']}" if c.get("plain_calls") else ""
    print(f"  calls {c.get('calls', 0)}: graph {c.get('graph_calls', 0)}{plain}, profiled "
          f"{c.get('profile_calls', 0)}, eager (fallback) {c.get('fallback_calls', 0)}")
    print(f"  generations {c.get('generations', 0)}, generation failures "
          f"{c.get('generation_failures', 0)}")
    print(f"  time: profiling {_seconds(c.get('time_profiling'))}, generating "
          f"{_seconds(c.get('time_generating'))}, in graph {_seconds(c.get('time_graph'))}, "
          f"in fallback {_seconds(c.get('time_fallback'))}, guards {_seconds(c.get('time_guards'))}")
    for guard, n in sorted(c.get("guard_failures", {}).items(), key=lambda kv: -kv[1]):
        print(f"  guard failures: {n} x {guard}")
    for reason, n in sorted(c.get("fallback_reasons", {}).items(), key=lambda kv: -kv[1]):
        print(f"  fallbacks: {n} x {reason}")
    for category, reason in sorted(index.get("last_fallback_reasons", {}).items()):
        print(f"  last fallback ({category}): {reason}")
    if index.get("gave_up"):
        print(f"  gave up: {index['gave_up']}")


def _print_history(index: dict) -> None:
    failures = index.get("failures", [])
    events = index.get("events", [])
    if failures:
        print(f"failure history (last {len(failures)}):")
        for note in failures:
            spec = f" [specialization {note['spec']}]" if note.get("spec") else ""
            print(f"  {_when(note.get('time'))}  guard failed: {note.get('guard')} "
                  f"(actual: {note.get('actual')}){spec}")
    if events:
        print(f"events (last {len(events)}):")
        for note in events:
            spec = f" [specialization {note['spec']}]" if note.get("spec") else ""
            print(f"  {_when(note.get('time'))}  {note.get('event', '?').replace('_', ' ')}: "
                  f"{note.get('reason', '')}{spec}")


def cmd_show(args) -> int:
    store, listing = _open(args)
    found = _find(listing, args.id, allow_function=True)
    if not hasattr(found, "record"):
        if args.json:
            print(json.dumps(_function_row(found), indent=1, default=str))
            return 0
        return _show_function(store, listing, found)
    spec = found
    function = next(f for f in listing.functions if f.key == spec.function_key)
    r, c = spec.record, spec.counters
    if args.json:
        print(json.dumps({"record": r, "counters": c, "function": _function_row(function)},
                         indent=1, default=str))
        return 0
    fn = r["function"]
    v = r.get("versions", {})
    print(f"specialization {spec.id} of {fn['qualname']}")
    print(f"  function:  {fn['qualname']}  (module {fn['module']}, {fn['filename']}:{fn['first_line']})")
    print(f"  source:    sha256 {fn['source_hash']}")
    print(f"  versions:  tensorflow {v.get('tensorflow')}, janus {v.get('janus')} "
          f"(build {v.get('janus_build')}), python {v.get('python')}")
    print(f"  created:   {_when(r.get('created'))}; last used {_when(c.get('last_used'))}")
    print(f"  plan:      {'; '.join(r.get('plan', []))}")
    plain = c.get("plain") or "not measured (small graphs only: janus.config.plain_trial; " \
        "graphgen/plain_trial.py)"
    print(f"  plain:     {plain}")
    print(f"  xla:       {c.get('xla') or 'not decided (janus.config.xla; graphgen/xla.py)'}")
    stale = _spec_row(spec, function)["stale"]
    if stale:
        print(f"  note:      {stale}; kept for inspection until evicted")
    print(f"  graph:     {spec.graph_path} ({_size(r.get('graph_bytes', 0))})")
    guards = r.get("guards", [])
    print()
    print(f"guards ({len(guards)} host-side, checked before the graph runs):")
    for i, g in enumerate(guards, 1):
        print(f"  {i:>3}. {g['text']}")
        print(f"       expected: {g['expected']}")
        line = _source_line(r, g.get("where", ""))
        if line:
            print(f"       {line.strip()}")
        elif g.get("where"):
            print(f"       at {g['where']}")
    in_graph = r.get("in_graph_guards", [])
    print(f"in-graph guards ({len(in_graph)}, assertions inside the graph):")
    for i, g in enumerate(in_graph, 1):
        print(f"  {i:>3}. {g['text']}")
        line = _source_line(r, g.get("where", ""))
        if line:
            print(f"       {line.strip()}")
    effects = r.get("effects", [])
    print(f"heap writes deferred until the graph succeeded ({len(effects)}):")
    for e in effects:
        print(f"       {e}")
    inputs = r.get("inputs", [])
    print(f"graph inputs ({len(inputs)}):")
    for i in inputs:
        shape = ", ".join("?" if d is None else str(d) for d in i["shape"])
        stacked = " (stacked list)" if i["kind"] == "stack" else ""
        print(f"       {i['source']}: {i['dtype']}[{shape}]{stacked}")
    hist = r.get("op_histogram", {})
    print()
    print(f"op histogram ({sum(hist.values())} ops, {len(hist)} types):")
    items = sorted(hist.items(), key=lambda kv: (-kv[1], kv[0]))
    for k in range(0, len(items), 3):
        print("  " + "".join(f"{op:<26}{n:>6}    " for op, n in items[k:k + 3]).rstrip())
    structure = r.get("structure", {})
    functions = structure.get("functions", [])
    calls = structure.get("calls", [])
    print(f"structure: {structure.get('nodes', 0)} nodes in the main graph, "
          f"{len(functions)} library function(s)")
    for call in calls:
        callees = ", ".join(f"{x['attr']}: {x['function']}" for x in call["callees"]) or "-"
        print(f"  {call['graph']}/{call['node']} ({call['op']}) -> {callees}")
    for f in functions:
        print(f"  function {f['name']}: {f['nodes']} nodes, {f['inputs']} inputs, "
              f"{f['outputs']} outputs")
    subgraphs = r.get("subgraphs", [])
    if subgraphs:
        print(f"recursion as SubGraph/InvokeOp ({len(subgraphs)}):")
        for sub in subgraphs:
            for line in sub.get("text", "").splitlines():
                print(f"  {line}")
    print()
    print("counters of this specialization (summed over processes):")
    print(f"  graph runs {c.get('graph_runs', 0)}, time in graph {_seconds(c.get('time_graph'))}; "
          f"generated {c.get('generations', 0)} time(s) in {_seconds(c.get('generation_time'))}")
    for guard, n in sorted(c.get("guard_failures", {}).items(), key=lambda kv: -kv[1]):
        print(f"  guard failures: {n} x {guard}")
    print(f"counters of {fn['qualname']} (all its specializations, "
          f"{(function.index or {}).get('processes', 0)} process(es)):")
    _print_function_counters(function.counters, function.index or {})
    _print_history(function.index or {})
    source = r.get("source")
    if source:
        print()
        print(f"source ({source['filename']}:{source['first_line']}):")
        for n, line in enumerate(source["text"].splitlines(), source["first_line"]):
            print(f"  {n:>5} | {line}")
    print()
    print("generated source (ast.unparse):")
    for line in r.get("generated_source", "").strip("\n").splitlines():
        print(f"  {line}")
    return 0


def _check_output(path: str, directory: bool = False) -> str:
    path = os.path.abspath(os.path.expanduser(path))
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        raise CliError(f"cannot write {path}: the directory {parent} does not exist")
    if not directory and os.path.isdir(path):
        raise CliError(f"cannot write {path}: it is a directory (give a file name)")
    if directory and os.path.exists(path) and not os.path.isdir(path):
        raise CliError(f"cannot write a TensorBoard log directory at {path}: it is a file")
    if not os.access(parent, os.W_OK):
        raise CliError(f"cannot write {path}: {parent} is not writable")
    return path


def _write(out: str, text: str) -> None:
    try:
        with open(out, "w") as f:
            f.write(text)
    except OSError as exc:   # (`/proc/version`: the write or the close fails, unnamed)
        raise CliError(f"cannot write {out}: {exc.strerror or exc}") from None


def cmd_export(args) -> int:
    store, listing = _open(args)
    spec = _find(listing, args.id)
    from janus.cache.record import CorruptEntry
    try:
        text = store.read_graph(spec)
    except CorruptEntry as exc:
        raise CliError(f"cannot export {spec.id}: {exc} (janus rewrites the entry the next "
                       "time a program records this specialization; `janus cache clear "
                       f"--function {spec.record['function']['qualname']}` removes it)") from None
    title = f"{spec.record['function']['qualname']} {spec.id}"
    if args.format == "pbtxt":
        out = _check_output(args.out)
        _write(out, text)
        print(f"wrote {out}: GraphDef text format ({_size(len(text))}), "
              f"{sum(spec.record.get('op_histogram', {}).values())} ops")
    elif args.format == "dot":
        out = _check_output(args.out)
        dot = to_dot(graph_def_from_text(text), title)
        _write(out, dot)
        print(f"wrote {out}: Graphviz dot ({_size(len(dot))}); render with: dot -Tsvg {out} -o graph.svg")
    else:
        out = _check_output(args.out, directory=True)
        os.makedirs(out, exist_ok=True)
        graph_def = graph_def_from_text(text)
        import tensorflow as tf
        writer = tf.summary.create_file_writer(out, filename_suffix=f".janus-{spec.id}")
        with writer.as_default():
            tf.summary.graph(graph_def)
        writer.flush()
        writer.close()
        print(f"wrote a TensorBoard log to {out}; view it with: tensorboard --logdir {out}  "
              "(Graphs tab)")
    return 0


def cmd_stats(args) -> int:
    store, listing = _open(args)
    from janus.cache.config import settings
    totals = {"calls": 0, "graph_calls": 0, "profile_calls": 0, "fallback_calls": 0,
              "generations": 0, "generation_failures": 0, "time_graph": 0.0,
              "time_generating": 0.0, "time_profiling": 0.0, "time_fallback": 0.0}
    guard_failures, fallback_reasons = {}, {}
    for f in listing.functions:
        c = f.counters
        for key in totals:
            totals[key] += c.get(key, 0)
        for k, n in c.get("guard_failures", {}).items():
            guard_failures[f"{f.qualname}: {k}"] = guard_failures.get(f"{f.qualname}: {k}", 0) + n
        for k, n in c.get("fallback_reasons", {}).items():
            fallback_reasons[k] = fallback_reasons.get(k, 0) + n
    specs = listing.specs
    stats = {
        "directory": listing.root, "functions": len(listing.functions), "specializations": len(specs),
        "bytes": store.size(), "limits": {"per_function": settings.max_entries_per_function,
                                         "total": settings.max_entries},
        "evicted": sum((f.index or {}).get("evicted", 0) for f in listing.functions),
        "processes": sum((f.index or {}).get("processes", 0) for f in listing.functions),
        "gave_up": sorted(f.qualname for f in listing.functions if (f.index or {}).get("gave_up")),
        "totals": totals, "guard_failures": guard_failures, "fallback_reasons": fallback_reasons,
        "problems": listing.problems,
        "most_used": [_spec_row(s) for s in sorted(specs, key=lambda s: -s.counters.get("graph_runs", 0))[:5]],
    }
    if args.json:
        print(json.dumps(stats, indent=1, default=str))
        return 0
    t = totals
    print(f"janus cache at {listing.root}")
    print(f"  {stats['functions']} function(s), {stats['specializations']} specialization(s), "
          f"{_size(stats['bytes'])} on disk (limits: {settings.max_entries_per_function} per "
          f"function, {settings.max_entries} total; {stats['evicted']} evicted so far)")
    print(f"  calls {t['calls']}: graph {t['graph_calls']}, profiled {t['profile_calls']}, eager "
          f"{t['fallback_calls']}; generations {t['generations']} ({t['generation_failures']} failed)")
    print(f"  time: in graph {_seconds(t['time_graph'])}, generating {_seconds(t['time_generating'])}"
          f", profiling {_seconds(t['time_profiling'])}, in fallback {_seconds(t['time_fallback'])}")
    if guard_failures:
        print(f"  guard failures: {sum(guard_failures.values())}; most frequent:")
        for k, n in sorted(guard_failures.items(), key=lambda kv: -kv[1])[:5]:
            print(f"    {n:>5} x {k}")
    for k, n in sorted(fallback_reasons.items(), key=lambda kv: -kv[1]):
        print(f"  fallbacks ({k}): {n}")
    if stats["gave_up"]:
        print(f"  given up on: {', '.join(stats['gave_up'])}")
    if stats["most_used"]:
        print("  most used:")
        for s in stats["most_used"]:
            print(f"    {s['id']}  {s['function']}: {s['graph_runs']} runs, {_seconds(s['time_graph'])}")
    if listing.problems:
        print(f"  {len(listing.problems)} unreadable entr(y/ies) skipped (see warnings above)")
    return 0


def cmd_clear(args) -> int:
    store, listing = _open(args, need_entries=False)
    if args.function:
        functions = _match_functions(listing, args.function)
        if not functions:
            raise CliError(f"no function named {args.function!r} in the janus cache at "
                           f"{listing.root} (`janus cache list` shows them)")
        keys = [f.key for f in functions]
    else:
        functions, keys = listing.functions, None
    if not functions:
        print(f"the janus cache at {listing.root} is already empty")
        return 0
    n_specs = sum(len(f.specs) for f in functions)
    what = (f"{n_specs} specialization(s) of {len(functions)} function(s) "
            f"({', '.join(f.qualname for f in functions[:5])}{', ...' if len(functions) > 5 else ''})")
    if not args.yes:
        if not sys.stdin.isatty():
            raise CliError(f"this would delete {what} from {listing.root}; "
                           "pass --yes to confirm")
        answer = input(f"Delete {what} from {listing.root}? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("nothing deleted")
            return 1
    removed_functions, removed_specs = store.clear(keys)
    print(f"deleted {removed_specs} specialization(s) of {removed_functions} function(s) "
          f"from {listing.root}")
    return 0


# -- entry point -----------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--cache-dir", default=argparse.SUPPRESS, metavar="DIR",
                        help="the cache directory (default: $JANUS_CACHE_DIR or ~/.cache/janus)")
    parser = argparse.ArgumentParser(prog="janus", parents=[common],
                                     description="janus: look into the graph cache.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    cache = commands.add_parser("cache", parents=[common], help="the on-disk graph cache",
                                description="the on-disk graph cache")
    sub = cache.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    p = sub.add_parser("list", parents=[common], help="functions and their specializations")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=cmd_list)
    p = sub.add_parser("show", parents=[common], help="everything about one specialization")
    p.add_argument("id", help="a specialization id (or unique prefix), or a function name")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_show)
    p = sub.add_parser("export", parents=[common], help="write a specialization's graph")
    p.add_argument("id")
    p.add_argument("--format", choices=("pbtxt", "dot", "tensorboard"), default="pbtxt")
    p.add_argument("out", help="output file (a log directory for tensorboard)")
    p.set_defaults(run=cmd_export)
    p = sub.add_parser("stats", parents=[common], help="totals over the whole cache")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_stats)
    p = sub.add_parser("clear", parents=[common], help="delete entries")
    p.add_argument("--function", metavar="NAME", help="only this function (qualname or glob)")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask")
    p.set_defaults(run=cmd_clear)
    return parser


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except CliError as exc:
        print(f"janus: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # (`janus cache export ID /proc/x`: the output path's error)
        print(f"janus: error: {exc.strerror or exc}"
              f"{': ' + str(exc.filename) if exc.filename else ''}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `janus cache show X | head`
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
