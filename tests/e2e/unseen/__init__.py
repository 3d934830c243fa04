"""Short TF2 training/inference scripts written the way a researcher would, never with
janus in mind (session 38). Each module defines `make_state()`, `step(state, ...)`,
`calls()` (the arguments of each call), `GRAPHS` (whether janus should run graphs:
False with the reason where the program's host work keeps it split) and, optionally,
`MIN_GRAPH_CALLS`; tests/e2e/test_unseen_programs.py runs each plainly and under
`janus.jit` and compares them after every call."""
