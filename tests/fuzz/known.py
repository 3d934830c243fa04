"""Divergences already reported (/work/notes/fuzz-findings.md, tests/fuzz/regressions/).

QUICK: seeds of the quick mode that diverge because of an open finding -> finding id;
`python -m tests.fuzz --quick-known` prints the current table (ids from `classify`).
"""
from __future__ import annotations

import re

# (pattern on the divergence signature, finding id); first match wins
PATTERNS = [
    (r"duplicate argument", "F1"),
    (r"missing-raise: plain raised ValueError: one item", "F3"),
]


def classify(signature: str) -> str:
    for pattern, finding in PATTERNS:
        if re.search(pattern, signature):
            return finding
    return "?"


QUICK: dict[int, str] = {
    5: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    9: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    11: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    17: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    19: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    30: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    32: 'F1',  # wrong-exception:ValueError->SyntaxError: plain ValueError: o
    44: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    46: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    49: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    51: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    56: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    61: 'F3',  # missing-raise: plain raised ValueError: one item; janus retu
    63: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    65: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    68: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    72: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    76: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    85: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    95: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    97: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    98: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    100: 'F4',  # result: result['?']: plain array([#.#, #.#, #.#, #.#  ], dty
    101: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    107: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    109: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    110: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    113: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    115: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    127: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    128: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    129: 'F1',  # wrong-exception:ValueError->SyntaxError: plain ValueError: t
    133: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    139: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    146: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    159: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    161: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    163: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    167: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    169: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    183: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    185: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    190: 'F4',  # stdout: plain '?'; janus '?'
    194: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
    195: 'F1',  # wrong-exception:ValueError->SyntaxError: plain ValueError: o
    198: 'F4',  # result: result[#]: plain array([[-#.# , -#.#  , -#.#],
    199: 'F1',  # janus-raised:SyntaxError: SyntaxError: duplicate argument '?
}
