"""Two processes writing and evicting in one cache directory at once: the index and the
records stay consistent (`janus cache stats` reports no missing record), and every
process still equals plain Python."""
from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from janus.cache.store import CacheStore
from tests.cache.helpers import env_for, janus_command, python_script, run_many

FUNCTIONS = 12
PROGRAM = '''
import json, sys
import tensorflow as tf
import janus

janus.cache.settings.flush_interval = 0.002      # flush (and evict) all the time
janus.cache.settings.max_entries_per_function = 1
janus.cache.settings.max_entries = 3
''' + "".join(f'''
@janus.jit(profile_calls=1)
def f{i}(x):
    return tf.reduce_sum(x * {i + 1}.0)
''' for i in range(FUNCTIONS)) + f'''
functions = [{", ".join(f"f{i}" for i in range(FUNCTIONS))}]
''' + '''
if sys.argv[1] == "reversed":   # the other process evicts what this one just made
    functions.reverse()
results, eager = [], []
for step, f in enumerate(functions):   # new functions, new graphs: evictions all along
    for rank in (1, 2, 1, 2):
        x = tf.ones([2] * rank) * step
        results.append(float(f(x)))
        eager.append(float(f.fn(x)))
    janus.cache.flush()
print(json.dumps({"results": results, "eager": eager}))
'''


@pytest.fixture(scope="module")
def busy_cache(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("concurrency")
    cache = tmp / "cache"
    script = python_script(tmp, "busy.py", PROGRAM)
    env = dict(env_for(cache), JANUS_WARM_START="record")
    runs = run_many([([sys.executable, script, order], env, None)
                     for order in ("forward", "reversed")], parallel=2)
    for r in runs:
        assert r.returncode == 0, str(r)
    stats = run_many([(janus_command() + ["cache", "stats", "--json", "--cache-dir", str(cache)],
                       env, None)])[0]
    return cache, runs, stats


def test_stats_after_concurrent_writers_and_evictors_reports_no_missing_record(busy_cache):
    cache, runs, stats = busy_cache
    assert stats.returncode == 0, str(stats)
    assert "missing" not in stats.stderr, str(stats)
    report = json.loads(stats.stdout)
    assert report["problems"] == []
    assert report["evicted"] > 0          # the bounds were hit: eviction did run
    assert report["specializations"] <= 3


def test_index_names_exactly_the_records_on_disk(busy_cache):
    cache, _, _ = busy_cache
    listing = CacheStore(str(cache)).scan()
    assert listing.problems == []
    for function in listing.functions:
        named = set((function.index or {}).get("specializations", {}))
        assert named == {s.id for s in function.specs}, function.key


def test_every_process_equals_plain_python(busy_cache):
    _, runs, _ = busy_cache
    for r in runs:
        out = json.loads(r.stdout.splitlines()[-1])
        np.testing.assert_allclose(out["results"], out["eager"], rtol=1e-6)


def test_an_evictor_between_a_write_and_its_index_entry_leaves_no_missing_record(
        cache_dir, monkeypatch):
    """The interleaving behind "specialization ... is in the index but its record is
    missing": another process evicts everything right after this one wrote a record and
    before its index names it. Writing and naming are one step under the lock now, so the
    evictor waits for it (another CacheStore's flock is another process's lock)."""
    import threading

    import tensorflow as tf

    import janus

    other = CacheStore(str(cache_dir))
    evicted, threads = [], []
    write_spec = CacheStore.write_spec

    def write_while_another_process_evicts(self, record, graph_text):
        written = write_spec(self, record, graph_text)
        thread = threading.Thread(target=lambda: evicted.extend(other.evict(0, 0)))
        thread.start()
        thread.join(timeout=1.0)   # old code: it ran right away; now it waits for us
        threads.append(thread)
        return written

    @janus.jit(profile_calls=1)
    def double(x):
        return x * 2.0

    for _ in range(3):
        np.testing.assert_allclose(double(tf.ones([2])).numpy(), [2.0, 2.0])
    janus.cache.flush()   # the function has an index and one record
    monkeypatch.setattr(CacheStore, "write_spec", write_while_another_process_evicts)
    for _ in range(2):    # a new rank: a second specialization, written while B evicts
        np.testing.assert_allclose(double(tf.ones([2, 2])).numpy(), 2 * np.ones([2, 2]))
    janus.cache.flush()
    for thread in threads:
        thread.join(timeout=30)
    assert threads and evicted   # the evictor did run, and evicted
    listing = CacheStore(str(cache_dir)).scan()
    assert not [p for p in listing.problems if "missing" in p], listing.problems
    for function in listing.functions:
        assert set((function.index or {}).get("specializations", {})) == \
            {s.id for s in function.specs}
