"""Rewrites a user's function into a form whose every dynamic operation is a hook.

The converted function calls `janus__.<hook>(...)` for attribute and item access,
calls, branch tests, loops and augmented assignment. The same converted code is
run by two runtimes: the profiler's (plain Python semantics plus recording) and
the graph generator's (building a TensorFlow graph under the profile's
assumptions). See `pipeline.PASSES` for the ordered list of passes.
"""
from janus.transform.pipeline import ConvertedFunction, convert

__all__ = ["ConvertedFunction", "convert"]
