"""Split a test run into shards by file: `JANUS_TEST_SHARD=i/n` keeps the files of shard i
of n (`scripts/test.sh` runs the shards as separate pytest processes, one per core: a
process of its own, not a worker thread, so no test sees another Python thread).

Files go whole to a shard (module fixtures and the fuzzer's totals stay in one process),
the heaviest first to the lightest shard. A file's weight is its number of tests, a
generated fuzz program counting as `FUZZ_WEIGHT` (each runs a program over many calls)."""
from __future__ import annotations

import os

FUZZ_WEIGHT = 8  # (session 35: at 4 the fuzzer's shard ran 9:54 and the other 6:11; at 6, 9:21 and 6:15)


def parse(value: str) -> tuple[int, int]:
    """`"i/n"` -> (i, n), with 0 <= i < n."""
    index, _, count = value.partition("/")
    i, n = int(index), int(count)
    if not 0 <= i < n:
        raise ValueError(f"JANUS_TEST_SHARD={value!r}: want i/n with 0 <= i < n")
    return i, n


def _weight(path: str, tests: int) -> int:
    return tests * (FUZZ_WEIGHT if f"{os.sep}fuzz{os.sep}" in path else 1)


def assign(counts: dict[str, int], n: int) -> dict[str, int]:
    """file -> shard, the heaviest file first to the lightest shard (ties: by name)."""
    loads = [0] * n
    shard_of = {}
    for path in sorted(counts, key=lambda p: (-_weight(p, counts[p]), p)):
        target = min(range(n), key=lambda s: (loads[s], s))
        shard_of[path] = target
        loads[target] += _weight(path, counts[path])
    return shard_of


def select(config, items: list) -> None:
    """Deselect the items of other shards (a pytest_collection_modifyitems hook's body)."""
    value = os.environ.get("JANUS_TEST_SHARD")
    if not value:
        return
    i, n = parse(value)
    counts: dict[str, int] = {}
    for item in items:
        counts[str(item.path)] = counts.get(str(item.path), 0) + 1
    shard_of = assign(counts, n)
    kept = [item for item in items if shard_of[str(item.path)] == i]
    dropped = [item for item in items if shard_of[str(item.path)] != i]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
