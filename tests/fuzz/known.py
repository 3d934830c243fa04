"""Seeds of the quick mode that diverge because of an open finding (see
/work/notes/fuzz-findings.md and tests/fuzz/regressions/): seed -> finding."""
QUICK: dict[int, str] = {}
