"""A process forked after TensorFlow ran cannot run TensorFlow's graphs: every jitted
function runs plainly there (F374).

    with multiprocessing.get_context("fork").Pool(2) as pool:   # TF ran in the parent
        pool.map(work, items)          # work calls a jitted step: plain Python in the child

TensorFlow's runtime threads (the pools a graph function's ops run on) are not copied
by `fork`: in the child a `ConcreteFunction` call waits for them forever, while eager
ops (run on the calling thread) still work. So in such a child janus neither traces
(a trace may call graph functions) nor runs a graph, for the functions jitted before
the fork and those made after it; the cache recorder writes nothing from it
(cache/recorder.py: the parent's counters are the parent's). A child forked before
TensorFlow initialized its runtime runs graphs as any process (and a process that never
imported TensorFlow did not run it: this module does not import it, so `janus cache ...`
starts without TensorFlow).
"""
from __future__ import annotations

import os
import sys

REASON = ("forked after TensorFlow ran: TF's graphs cannot run in this process (use the "
          "'spawn' start method for graphs)")

forked_after_tensorflow = False
"""Set in a child `fork`ed after TensorFlow initialized its runtime (read on each call)."""


def _tensorflow_ran() -> bool:
    """Whether TensorFlow's eager context (its runtime) was initialized."""
    context = sys.modules.get("tensorflow.python.eager.context")
    eager = context.context_safe() if context is not None else None
    return eager is not None and getattr(eager, "_initialized", False)


def _after_fork_in_child() -> None:
    global forked_after_tensorflow
    if _tensorflow_ran():
        forked_after_tensorflow = True


if hasattr(os, "register_at_fork"):  # (registered before the cache recorder's: it reads the
    os.register_at_fork(after_in_child=_after_fork_in_child)  # flag: imported first)
