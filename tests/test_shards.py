"""tests/shards.py: the split of a run into per-process shards (scripts/test.sh)."""
import pytest

from tests import shards


def test_every_file_goes_to_exactly_one_shard_and_loads_are_balanced():
    counts = {f"tests/graphgen/test_{k}.py": k + 1 for k in range(40)}
    counts["tests/fuzz/test_fuzz_quick.py"] = 238
    shard_of = shards.assign(counts, 2)
    assert set(shard_of) == set(counts) and set(shard_of.values()) == {0, 1}
    loads = [sum(shards._weight(p, c) for p, c in counts.items() if shard_of[p] == s)
             for s in (0, 1)]
    heaviest = max(shards._weight(p, c) for p, c in counts.items())
    assert abs(loads[0] - loads[1]) <= heaviest  # (greedy: within one file)
    assert shards.assign(counts, 2) == shard_of  # (the same split in every process)


@pytest.mark.parametrize("bad", ["2/2", "-1/2", "1", "a/b"])
def test_a_bad_shard_is_refused(bad):
    with pytest.raises(ValueError):
        shards.parse(bad)
