"""Recursion: a recursive user function becomes one SubGraph; its recursive call sites
are InvokeOps. All invocations of a call (every node of every tree) run batched,
level by level, in one `tf.while_loop` of the caller's graph.

- `cases.py`   what the profiler learns about each invocation: its Case (the
               structural tests it made, its per-node inputs, its children).
- `table.py`   the host side: walk the Python structure into a node table.
- `subgraph.py` the graph side: SubGraph, InvokeOp and their batched execution.
"""
