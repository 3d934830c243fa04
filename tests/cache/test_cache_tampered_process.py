"""The bar of issue 13, across processes: after every recorded expression in a cache
directory was prefixed with code (and the records sealed again, as only their owner
could), a later process runs none of it and returns plain Python's results; every
path janus created has no group/other permission bits."""
from __future__ import annotations

import json
import os
import stat
import sys

import numpy as np
import pytest

from janus.cache import record as rec
from tests.cache.helpers import STEP_PROGRAM, env_for, python_script, run_many

PROGRAM = "import json, sys\n" + STEP_PROGRAM + '''

warm = janus.cache.warm_start(step) if sys.argv[1] == "warm" else None
out = {"warm": warm, "results": [], "eager": []}
for fn, key in ((step, "results"), (step.fn, "eager")):
    model = Model()
    for n in (2, 3, 3, 3, 4):
        xs = [tf.ones([1, 2]) * (i + 1) for i in range(n)]
        out[key].append([float(fn(model, xs, {"k": 3.0})), model.last.numpy().tolist()])
out["stats"] = janus.stats(step).as_dict()
janus.cache.flush()
print(json.dumps(out))
'''
EXPRESSION = ("args[", "kwargs[", "G[", "MOD[", "C[", "CELL[")


def _tamper(value, code):
    """Every recorded source (structured or text) prefixed with code."""
    if isinstance(value, dict):
        if set(value) == {"root", "steps"}:
            return f"{code} or args[0]"
        return {k: _tamper(v, code) for k, v in value.items()}
    if isinstance(value, list):
        return [_tamper(v, code) for v in value]
    if isinstance(value, str) and value.startswith(EXPRESSION):
        return f"{code} or {value}"
    return value


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tampered")
    cache = tmp / "cache"
    marker = tmp / "PWNED_x"
    script = python_script(tmp, "program.py", PROGRAM)
    [cold] = run_many([([sys.executable, script, "cold"], env_for(cache), None)])
    assert cold.returncode == 0, str(cold)
    tampered = 0
    code = f"__import__('os').system('touch {marker}')"
    for path in cache.glob("*/*.json"):
        record = rec.read_json(str(path))
        changed = _tamper(record, code)
        if changed != record:
            tampered += 1
            rec.write_json(str(path), changed)   # sealed again, with this user's key
    assert tampered >= 2   # warm.json and the specialization record at least
    [warm] = run_many([([sys.executable, script, "warm"], env_for(cache), None)])
    assert warm.returncode == 0, str(warm)
    return cache, marker, json.loads(cold.stdout.splitlines()[-1]), \
        json.loads(warm.stdout.splitlines()[-1]), warm.stderr


def test_a_tampered_cache_executes_nothing_and_the_process_equals_plain_python(runs):
    _, marker, cold, warm, stderr = runs
    assert not marker.exists()
    for run in (cold, warm):
        for (got, got_last), (want, want_last) in zip(run["results"], run["eager"]):
            assert got == pytest.approx(want, rel=1e-6)
            np.testing.assert_allclose(got_last, want_last, rtol=1e-6)
    assert warm["stats"]["generations"] >= 1     # regenerated, not loaded
    assert "CacheWarning" in stderr and "ignoring" in stderr


def test_every_cache_path_is_private(runs):
    cache = runs[0]
    paths = [cache] + [os.path.join(d, n) for d, dirs, names in os.walk(cache)
                       for n in dirs + names]
    assert len(paths) >= 6
    assert {str(p): oct(stat.S_IMODE(os.lstat(p).st_mode)) for p in paths
            if os.lstat(p).st_mode & 0o077} == {}
