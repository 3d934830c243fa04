"""`janus cache ...` driven as a console script in subprocesses, against a cache
directory written by a real program run under janus (also in a subprocess).

Every `janus` process imports TensorFlow (~3 s), so the module writes the cache
once and runs all commands in one parallel batch; tests then check what was shown."""
from __future__ import annotations

import glob
import json
import os
import shutil
import sys

import pytest

from janus.cache.store import CacheStore
from tests.cache.helpers import Result, env_for, janus_command, python_script, run_many


def run_main(argv) -> Result:
    """janus.cli.main in this process, with its output captured."""
    import contextlib
    import io
    from janus.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    return Result(["janus.cli.main"] + argv, code, out.getvalue(), err.getvalue())


def assert_decision_shown(cache_dir, jitted, name: str, label: str, text: str) -> None:
    """`janus cache show` prints a specialization's decision (`label`: xla, plain) on its
    own page, under its line on the function's page, and in the function's history."""
    import janus
    [sid] = janus.cache.recorder.sids_of(jitted)
    shown = run_main(["--cache-dir", str(cache_dir), "cache", "show", sid])
    assert shown.returncode == 0, shown
    assert f"  {label + ':':<11}{text}" in shown.stdout
    function = run_main(["--cache-dir", str(cache_dir), "cache", "show", name])
    assert function.returncode == 0, function
    assert f"      {label}: {text}" in function.stdout  # under its specialization's line
    assert f"  {label}: {text} [specialization {sid}]" in function.stdout  # the history

PROGRAM = '''
import json
import tensorflow as tf
import janus


class Model:
    def __init__(self):
        self.w = tf.Variable(tf.ones([3, 3]) * 0.1)
        self.last = None

    @janus.jit
    def step(self, x, ys, n):
        h = x
        for y in ys:
            h = tf.matmul(h, self.w) + y
        i = tf.constant(0)
        while i < n:
            h = h * 0.5
            i += 1
        if tf.reduce_sum(h) > 0:
            h = h * 2.0
        self.last = h
        return tf.reduce_sum(h)


@janus.jit
def double(x):
    return x * 2.0


model = Model()
for k in (2, 2, 2, 2, 3, 3, 3):
    model.step(tf.ones([2, 3]), [tf.ones([2, 3])] * k, tf.constant(k))
for _ in range(5):
    double(tf.ones([4]))
def unconverted(v):
    try:  # try/except is not converted: it runs eagerly
        return v + 1
    except ValueError:
        raise


eager = janus.jit(unconverted)
for _ in range(3):
    eager(tf.ones([1]))
janus.cache.flush()
print(json.dumps({"ids": {"Model.step": janus.cache.record_ids(Model.step),
                          "double": janus.cache.record_ids(double), "unconverted": []},
                  "stats": {"Model.step": janus.stats(Model.step).as_dict(),
                            "double": janus.stats(double).as_dict(),
                            "unconverted": janus.stats(eager).as_dict()}}))
'''


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """Populate a cache, make broken copies of it, run every command; returns the results."""
    tmp = tmp_path_factory.mktemp("cli")
    cache = tmp / "cache"
    script = python_script(tmp, "program.py", PROGRAM)
    [populate] = run_many([([sys.executable, script], env_for(cache), None)])
    assert populate.returncode == 0, str(populate)
    run = json.loads(populate.stdout.splitlines()[-1])
    listing = CacheStore(str(cache)).scan()
    assert listing.problems == []
    records = {s.id: s.record for s in listing.specs}
    step_ids = run["ids"]["Model.step"]
    assert len(step_ids) >= 2 and set(step_ids) <= set(records)
    # The graph made once the loop was generalized: it has a while loop and its library.
    looped = next(sid for sid in step_ids if {"While", "StatelessWhile"} &
                  set(records[sid]["op_histogram"]))
    other = next(sid for sid in step_ids if sid != looped)
    copies = {}
    for name in ("corrupt", "clear_one", "clear_all"):
        copies[name] = tmp / name
        shutil.copytree(cache, copies[name])
    # Corrupt copy: a torn specialization record and a graph file edited behind janus's back.
    [torn] = glob.glob(str(copies["corrupt"] / "double-*" / f"{run['ids']['double'][0]}.json"))
    with open(torn, "r+") as f:
        f.truncate(os.path.getsize(torn) // 2)
    [graph] = glob.glob(str(copies["corrupt"] / "Model.step-*" / f"{other}.pbtxt"))
    with open(graph, "a") as f:
        f.write("node { name: 'extra' op: 'NoOp' }\n")
    (tmp / "empty").mkdir()
    out = tmp / "out"
    out.mkdir()
    env = env_for(tmp / "unused")
    janus = janus_command()
    # The console script, in subprocesses (each imports TF: the main commands only) ...
    scripted = {
        "list": ["cache", "list"],
        "show": ["cache", "show", looped],
        "show_unknown": ["cache", "show", "0123456789ab"],
        "export_dot": ["cache", "export", looped, "--format", "dot", str(out / "g.dot")],
        "stats": ["cache", "stats"],
        "corrupt_list": ["cache", "list", "--cache-dir", str(copies["corrupt"])],
    }
    # ... and the same entry point, janus.cli.main, in this process for the rest.
    in_process = {
        "list_json": ["cache", "list", "--json"],
        "show_function": ["cache", "show", "Model.step"],
        "export_pbtxt": ["cache", "export", looped[:6], "--format", "pbtxt", str(out / "g.pbtxt")],
        "export_tb": ["cache", "export", looped, "--format", "tensorboard", str(out / "tb")],
        "export_bad_path": ["cache", "export", looped, "--format", "dot", str(tmp / "no" / "x.dot")],
        "corrupt_export": ["cache", "export", other, "--format", "pbtxt", str(out / "c.pbtxt"),
                           "--cache-dir", str(copies["corrupt"])],
        "clear_one": ["cache", "clear", "--function", "double", "--yes",
                      "--cache-dir", str(copies["clear_one"])],
        "clear_unconfirmed": ["cache", "clear", "--cache-dir", str(copies["clear_all"])],
        "missing_dir": ["--cache-dir", str(tmp / "nope"), "cache", "list"],
        "empty": ["cache", "stats", "--cache-dir", str(tmp / "empty")],
    }

    def argv(args):
        return args if "--cache-dir" in args else ["--cache-dir", str(cache)] + args
    jobs = [(janus + argv(args), env, "") for args in scripted.values()]
    results = dict(zip(scripted, run_many(jobs, parallel=3, timeout=240)))
    for name, args in in_process.items():
        results[name] = run_main(argv(args))
    return {"cache": cache, "run": run, "records": records, "looped": looped, "other": other,
            "out": out, "copies": copies, "results": results}


def ok(cli, name):
    result = cli["results"][name]
    assert result.returncode == 0, str(result)
    return result.stdout


def failed(cli, name):
    result = cli["results"][name]
    assert result.returncode == 2, str(result)
    assert "Traceback" not in result.stderr, str(result)
    return result.stderr


def _counts_line(stats):
    return (f"calls {stats['calls']}: graph {stats['graph_calls']}, profiled "
            f"{stats['profile_calls']}, eager {stats['fallback_calls']}; generations "
            f"{stats['generations']}; guard failures {sum(stats['guard_failures'].values())}; "
            "1 process(es)")


def test_list_shows_functions_specializations_and_counts(cli):
    text = ok(cli, "list")
    run = cli["run"]
    n_specs = sum(len(v) for v in run["ids"].values())
    assert f"3 function(s), {n_specs} specialization(s)" in text
    assert "Model.step  (__main__, " in text and "double  (__main__, " in text
    for name, stats in run["stats"].items():
        assert _counts_line(stats) in text, name
    for name, ids in run["ids"].items():
        for sid in ids:
            row = next(line.split() for line in text.splitlines() if line.strip().startswith(sid))
            record = cli["records"][sid]
            assert int(row[2]) == len(record["guards"])
            assert int(row[4]) == sum(record["op_histogram"].values())
    assert "unconverted  (__main__, " in text and "(no specializations)" in text
    assert "list args[2] of varying length: tf.while_loop" in text   # plans


def test_list_json_is_machine_readable(cli):
    rows = {r["qualname"]: r for r in json.loads(ok(cli, "list_json"))}
    run = cli["run"]
    assert set(rows) == {"Model.step", "double", "unconverted"}
    for name, stats in run["stats"].items():
        row = rows[name]
        assert [s["id"] for s in row["specializations"]] == run["ids"][name]
        for counter in ("calls", "graph_calls", "profile_calls", "fallback_calls", "generations",
                        "guard_failures", "fallback_reasons"):
            assert row["counters"][counter] == stats[counter], (name, counter)
        assert sum(s["graph_runs"] for s in row["specializations"]) == stats["graph_calls"]
    assert rows["unconverted"]["counters"]["fallback_reasons"] == {"unsupported construct": 3}


def test_show_explains_one_specialization(cli):
    text = ok(cli, "show")
    sid = cli["looped"]
    record = cli["records"][sid]
    assert text.startswith(f"specialization {sid} of Model.step")
    assert "versions:  tensorflow 2." in text
    # every guard, with what it expects; the user's source line for in-graph guards
    for guard in record["guards"]:
        assert f"{guard['text']}\n       expected: {guard['expected']}" in text
    assert "args[0].w is <ResourceVariable>\n       expected: the same ResourceVariable" in text
    for guard in record["in_graph_guards"]:
        assert guard["text"] in text
    if any("reduce_sum(h) > 0" in g["text"] for g in record["in_graph_guards"]):
        assert "|     if tf.reduce_sum(h) > 0:" in text
    assert "args[0].last = <result>" in text                       # deferred heap write
    assert "MatMul" in text and "op histogram (" in text
    assert "While) -> body: while_body" in text                     # the function library
    assert "function while_body_" in text
    assert "graph runs " in text and "generated 1 time(s)" in text
    stats = cli["run"]["stats"]["Model.step"]
    for guard, n in stats["guard_failures"].items():               # the function's failures
        assert f"guard failures: {n} x {guard}" in text
    assert "failure history (last " in text and "guard failed: len(args[2]) == 2" in text
    assert "events (last " in text and "generalized: list args[2] of varying length" in text
    assert "def step(self, x, ys, n):" in text                       # the source
    assert "janus__.for_stmt(" in text or "janus__.while_stmt(" in text  # the generated source


def test_show_takes_a_function_name(cli):
    text = ok(cli, "show_function")
    assert text.startswith("function Model.step")
    ids = cli["run"]["ids"]["Model.step"]
    assert f"specializations ({len(ids)}):" in text
    assert all(sid in text for sid in ids)


def test_unknown_ids_empty_caches_and_bad_paths_exit_2_with_a_message(cli):
    assert "unknown id '0123456789ab'" in failed(cli, "show_unknown")
    assert "`janus cache list` shows the ids" in failed(cli, "show_unknown")
    assert "the directory" in failed(cli, "export_bad_path") and "does not exist" in \
        failed(cli, "export_bad_path")
    assert "no janus cache at" in failed(cli, "missing_dir")
    assert "is empty" in failed(cli, "empty")


def test_export_pbtxt_is_the_recorded_graph(cli):
    assert "GraphDef text format" in ok(cli, "export_pbtxt")
    sid = cli["looped"]
    [recorded] = glob.glob(str(cli["cache"] / "Model.step-*" / f"{sid}.pbtxt"))
    text = (cli["out"] / "g.pbtxt").read_text()
    assert text == open(recorded).read()
    from google.protobuf import text_format
    import tensorflow as tf
    graph_def = text_format.Parse(text, tf.compat.v1.GraphDef())
    ops = {n.op for n in graph_def.node} | {n.op for f in graph_def.library.function
                                            for n in f.node_def}
    assert set(cli["records"][sid]["op_histogram"]) == ops
    assert any(f.signature.name.startswith("while_body") for f in graph_def.library.function)


def test_export_dot_draws_the_graph_and_its_function_library(cli):
    assert "Graphviz dot" in ok(cli, "export_dot")
    dot = (cli["out"] / "g.dot").read_text()
    assert dot.startswith('digraph "Model.step ')
    assert '\\nMatMul"' in dot
    assert 'subgraph "cluster_while_body_' in dot
    assert "lhead=" in dot and "->" in dot
    if shutil.which("dot"):
        import subprocess
        subprocess.run(["dot", "-Tsvg", str(cli["out"] / "g.dot"), "-o",
                        str(cli["out"] / "g.svg")], check=True)


def test_export_tensorboard_writes_a_graph_event(cli):
    assert "tensorboard --logdir" in ok(cli, "export_tb")
    [events] = glob.glob(str(cli["out"] / "tb" / "events.out.tfevents.*"))
    import tensorflow as tf
    from tensorflow.core.util import event_pb2
    graphs = []
    for raw in tf.data.TFRecordDataset(events):
        event = event_pb2.Event.FromString(raw.numpy())
        if event.graph_def:
            graphs.append(tf.compat.v1.GraphDef.FromString(event.graph_def))
    assert len(graphs) == 1
    assert "MatMul" in {n.op for n in graphs[0].node}


def test_stats_totals(cli):
    text = ok(cli, "stats")
    run = cli["run"]
    total = {k: sum(s[k] for s in run["stats"].values())
             for k in ("calls", "graph_calls", "profile_calls", "fallback_calls", "generations")}
    assert (f"calls {total['calls']}: graph {total['graph_calls']}, profiled "
            f"{total['profile_calls']}, eager {total['fallback_calls']}; generations "
            f"{total['generations']} (0 failed)") in text
    assert "x Model.step: len(args[2]) == 2" in text
    assert "fallbacks (unsupported construct): 3" in text
    assert "most used:" in text


def test_corrupt_entries_are_skipped_with_a_warning(cli):
    result = cli["results"]["corrupt_list"]
    assert result.returncode == 0, str(result)
    assert "janus: warning: skipping a corrupt entry" in result.stderr
    assert "not valid JSON" in result.stderr
    assert all(sid in result.stdout for sid in cli["run"]["ids"]["Model.step"])
    assert cli["run"]["ids"]["double"][0] not in result.stdout
    assert "does not match its record" in failed(cli, "corrupt_export")


def test_clear(cli):
    assert "deleted 1 specialization(s) of 1 function(s)" in ok(cli, "clear_one")
    left = CacheStore(str(cli["copies"]["clear_one"])).scan()
    assert sorted(f.qualname for f in left.functions) == ["Model.step", "unconverted"]
    message = failed(cli, "clear_unconfirmed")   # stdin is not a terminal: no prompt
    n_specs = sum(len(v) for v in cli["run"]["ids"].values())
    assert "pass --yes" in message and f"{n_specs} specialization(s) of 3 function(s)" in message
    assert len(CacheStore(str(cli["copies"]["clear_all"])).scan().specs) == n_specs


@pytest.mark.parametrize("how", ["group-writable", "foreign-owned"])
def test_a_cache_directory_others_may_write_is_refused_with_a_message(tmp_path, monkeypatch,
                                                                      how):
    from janus.cache import files
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    if how == "group-writable":
        os.chmod(root, 0o770)
    else:
        monkeypatch.setattr(files, "uid", lambda: os.getuid() + 1)
    for command in (["list"], ["stats"], ["clear", "--yes"]):
        result = run_main(["cache", *command, "--cache-dir", str(root)])
        assert result.returncode == 2, str(result)
        assert "not using the janus cache" in result.stderr
        assert ("writable by group" if how == "group-writable" else "owned by another user") \
            in result.stderr
