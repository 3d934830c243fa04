"""Fuzz cases as standalone files: the program, then its call sequence and what it showed.

    <the program source: a module with class State and def f(s, x, xs, n, flag)>
    # ---- janus fuzz case
    FINDING = "F2"
    KIND = "missing-raise"
    XFAIL = "F2: ..."        # or None once janus is fixed
    CALLS = [{...}, ...]
    if __name__ == "__main__": ...

`python path/to/case.py` (from the repository root) runs it plainly and under janus
and prints the first divergence. The fuzzer runs only the part above the marker.
"""
from __future__ import annotations

import ast
import pprint

MARKER = "# ---- janus fuzz case"

_MAIN = '''
if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
'''


def write(path: str, source: str, calls: list, *, finding: str, kind: str,
          xfail: str | None, note: str = "") -> None:
    meta = [MARKER]
    meta += [f"# {line}" for line in note.splitlines()]
    meta += [f"FINDING = {finding!r}", f"KIND = {kind!r}", f"XFAIL = {xfail!r}",
             "CALLS = " + pprint.pformat(calls, width=96, sort_dicts=False)]
    with open(path, "w") as f:
        f.write(source.rstrip("\n") + "\n\n\n" + "\n".join(meta) + "\n" + _MAIN)


def read(path: str) -> tuple[str, dict]:
    """(program source, {FINDING, KIND, XFAIL, CALLS, SLOW}) of a case file."""
    with open(path) as f:
        text = f.read()
    source, _, tail = text.partition(MARKER)
    meta = {}
    for node in ast.parse(tail).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            meta[node.targets[0].id] = ast.literal_eval(node.value)
    return source, meta


def main(path: str) -> None:
    from tests.fuzz import runner

    source, meta = read(path)
    result = runner.run(source, meta["CALLS"])
    print(f"{meta.get('FINDING')}: {result.calls} calls, janus stats {result.stats}")
    print("divergence:", result.divergence or "none (plain and janus agree)")
    if result.ill_conditioned:
        print("a float difference not counted (the numeric exception):", result.ill_conditioned)
