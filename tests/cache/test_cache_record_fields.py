"""A sealed record whose nested fields have the wrong types is a corrupt entry
(janus/cache/record.py `check_spec`), not a raw traceback in `janus cache list/show/stats`;
an OS error of the command's own output path is a message (janus/cli.py `main`)."""
import copy

import pytest

from janus import cli
from janus.cache.record import check_spec

GOOD = {"id": "0123456789ab", "versions": {}, "plan": ["feed args[1]"], "guards": [],
        "in_graph_guards": [], "effects": [], "inputs": [], "generated_source": "",
        "op_histogram": {"MatMul": 2}, "structure": {"functions": []}, "graph_file": "0123456789ab.pbtxt",
        "graph_sha256": "0" * 64, "created": 1.0,
        "function": {"key": "k", "qualname": "step", "module": "m", "filename": "f.py",
                     "first_line": 3, "source_hash": "abc"}}


@pytest.mark.parametrize("path, value, words", [
    (("op_histogram",), {"MatMul": "2"}, "op histogram"),
    (("structure",), {"functions": 3}, "structure"),
    (("plan",), [1, 2], "plan"),
    (("created",), "yesterday", "creation time"),
    (("function", "first_line"), "3", "function identity"),
    (("graph_file",), "../../elsewhere.pbtxt", "graph file"),   # (F385: only its own)
])
def test_wrong_nested_types_make_a_corrupt_entry(path, value, words):
    assert check_spec(GOOD, GOOD["id"]) == ""
    record = copy.deepcopy(GOOD)
    target = record
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    assert words in check_spec(record, GOOD["id"])


def test_an_os_error_of_the_output_path_is_a_message(monkeypatch, capsys):
    def export(args):
        raise FileNotFoundError(2, "No such file or directory", "/proc/x/graph.dot")
    monkeypatch.setattr(cli, "_parser", lambda: _Parser(export))
    assert cli.main([]) == 1
    err = capsys.readouterr().err
    assert "janus: error: No such file or directory: /proc/x/graph.dot" in err
    assert "Traceback" not in err


class _Parser:
    def __init__(self, run):
        self.run = run

    def parse_args(self, argv):
        return type("Args", (), {"run": staticmethod(self.run)})()
