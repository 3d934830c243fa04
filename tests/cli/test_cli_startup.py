"""`janus --help` and the commands that only read the cache start without TensorFlow
(F387): `import janus` does not import it (the recorder and warm start load with the jit
API: janus/cache/__init__.py), so `janus cache list` answers in a fraction of a second
instead of the 5-10 s TensorFlow takes to import. Each command runs in a fresh
subprocess that then reports whether `tensorflow` is in `sys.modules`."""
from __future__ import annotations

import json
import shutil
import sys

import pytest

from tests.cache.helpers import STEP_PROGRAM, env_for, python_script, run_many

POPULATE = STEP_PROGRAM + '''
import json
m = Model()
for i in range(6):
    step(m, [tf.ones([1, 2]) * i, tf.ones([1, 2])], {"k": 2.0})
janus.cache.flush()
print(json.dumps({"ids": janus.cache.record_ids(step), "graph_calls": janus.stats(step).graph_calls}))
'''

# Runs janus.cli.main(argv) and prints, last, whether TensorFlow was imported.
COMMAND = '''
import json, sys
from janus.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "tensorflow": "tensorflow" in sys.modules}))
'''


@pytest.fixture(scope="module")
def caches(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("startup")
    cache = tmp / "cache"
    script = python_script(tmp, "populate.py", POPULATE)
    [populated] = run_many([([sys.executable, script], env_for(cache), None)])
    assert populated.returncode == 0, str(populated)
    run = json.loads(populated.stdout.splitlines()[-1])
    assert run["ids"] and run["graph_calls"] > 0, run
    (tmp / "empty").mkdir(mode=0o700)
    shutil.copytree(cache, tmp / "to_clear")
    return {"tmp": tmp, "cache": cache, "empty": tmp / "empty", "id": run["ids"][0]}


def test_reading_commands_do_not_import_tensorflow(caches):
    tmp, cache, sid = caches["tmp"], caches["cache"], caches["id"]
    command = python_script(tmp, "command.py", COMMAND)
    commands = {
        "help": ["--help"],
        "cache_help": ["cache", "--help"],
        "list_empty": ["cache", "list", "--cache-dir", str(caches["empty"])],
        "list": ["cache", "list", "--cache-dir", str(cache)],
        "list_json": ["cache", "list", "--json", "--cache-dir", str(cache)],
        "show": ["cache", "show", sid, "--cache-dir", str(cache)],
        "show_function": ["cache", "show", "step", "--cache-dir", str(cache)],
        "stats": ["cache", "stats", "--cache-dir", str(cache)],
        "export_pbtxt": ["cache", "export", sid, "--format", "pbtxt", str(tmp / "g.pbtxt"),
                         "--cache-dir", str(cache)],
        "clear": ["cache", "clear", "--yes", "--cache-dir", str(tmp / "to_clear")],
    }
    env = env_for(tmp / "unused")
    results = run_many([([sys.executable, command] + argv, env, "")
                        for argv in commands.values()], parallel=2, timeout=240)
    for name, result in zip(commands, results):
        assert result.returncode == 0, str(result)
        assert "Traceback" not in result.stderr, str(result)
        report = json.loads(result.stdout.splitlines()[-1])
        assert report["code"] in (0, 2, None), (name, str(result))   # (empty cache: 2)
        assert report["tensorflow"] is False, f"{name} imported TensorFlow\n{result}"


def test_import_janus_does_not_import_tensorflow_until_jit_is_used(tmp_path):
    probe = python_script(tmp_path, "probe.py", '''
        import json, sys
        import janus, janus.cache
        before = "tensorflow" in sys.modules
        janus.cache.flush(); janus.cache.directory(); janus.cache.store().scan()
        flushed = "tensorflow" in sys.modules
        janus.jit
        print(json.dumps([before, flushed, "tensorflow" in sys.modules,
                          type(janus.cache.recorder).__name__]))
    ''')
    [result] = run_many([([sys.executable, probe], env_for(tmp_path / "cache"), None)])
    assert result.returncode == 0, str(result)
    assert json.loads(result.stdout.splitlines()[-1]) == [False, False, True, "Recorder"]
