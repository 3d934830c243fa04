"""Divergences already reported (tests/fuzz/FINDINGS.md, tests/fuzz/regressions/).

QUICK: seeds of the quick mode that diverge because of an open finding -> finding id;
`python -m tests.fuzz --quick-known` prints the current table (ids from `classify`;
a "?" needs a look: minimize it, then name the finding here). Generator v4.
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


QUICK: dict[int, str] = {}

PLAIN: dict[int, str] = {}
# (v84 reshuffled plain seed 470020's program: no CPROP, it passes with the session-34
# baseline janus too; v83's "global property's getter read once more than plain" is
# not fixed, only no longer drawn)
"""Plain mode's seeds (test_fuzz_quick.PLAIN_SEEDS) that diverge because of an open
finding: strict xfails, as QUICK's."""
