"""Divergences already reported (/work/notes/fuzz-findings.md, tests/fuzz/regressions/).

QUICK: seeds of the quick mode that diverge because of an open finding -> finding id;
`python -m tests.fuzz --quick-known` prints the current table (ids from `classify`;
a "?" needs a look: minimize it, then name the finding here). Generator v2.
"""
from __future__ import annotations

import re

# (pattern on the divergence signature, finding id); first match wins
PATTERNS = [
    (r"duplicate argument", "F1"),
    (r"missing-raise: plain raised ValueError: one item", "F3"),
    (r"^timeout", "F6"),
    (r"UnknownError: Graph execution error", "F7"),
]

# findings whose quick-mode seeds are not run (each would wait for the timeout); their
# regression cases in tests/fuzz/regressions/ still run
NOT_RUN = {"F6"}


def classify(signature: str) -> str:
    for pattern, finding in PATTERNS:
        if re.search(pattern, signature):
            return finding
    return "?"


QUICK: dict[int, str] = {
    1: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    5: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    9: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    11: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    13: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    14: 'F7',  # janus-raised:UnknownError: UnknownError: Graph execution err
    28: 'F4',  # result: result[#]: plain array([ #.#, -#.#,  #.# ,  #.# ], d
    32: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    39: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    44: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    51: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    52: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    63: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    64: 'F1',  # wrong-exception:IndexError->SyntaxError: plain IndexError: o
    68: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    69: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    70: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    73: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    75: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    76: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    85: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    96: 'F4',  # result: result[#]: plain array([ #.# , -#.#,  #.#], dtype=#)
    100: 'F6',  # timeout: call ## ran over #
    101: 'F1',  # wrong-exception:ValueError->SyntaxError: plain ValueError: l
    106: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    109: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    110: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    120: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    126: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    137: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    138: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    142: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    144: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    148: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    154: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    155: 'F7',  # janus-raised:UnknownError: UnknownError: Graph execution err
    156: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    161: 'F6',  # timeout: call ## ran over #
    163: 'F4',  # result: result[#]: plain array([[-#.# , -#.#,  #.# ],
    164: 'F7',  # janus-raised:UnknownError: UnknownError: Graph execution err
    165: 'F4',  # result: result[#]: plain array([-#.#,  #.#,  #.# ], dtype=#)
    169: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    172: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    179: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    182: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    184: 'F6',  # timeout: call ## ran over #
    186: 'F1',  # wrong-exception:ValueError->SyntaxError: plain ValueError: l
    190: 'F4',  # result: result: plain array([#.# , #.#, #.# ], dtype=#), jan
    194: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    199: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
}
