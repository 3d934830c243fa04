"""A function's calls of itself on a node: which argument is the node, whether the rest
are passed on unchanged (batched, every invocation runs with its root call's other
arguments), and recursion the profile has not seen yet, whatever trees the profiled
calls happened to get.

The profiler learns that a function recurses (`Profile.recursive`, its batched SubGraph)
when a profiled invocation calls itself on a node it reached through its own node
argument. Profiled calls on leaves only never recurse; a trace that meets the function
calling itself on a node then asks for the call to be rerun profiled (UnlearnedRecursion,
once per function) instead of inlining the recursion into a graph per tree shape:

    profiled on enc(leaf), enc(leaf)        nothing recursed: no SubGraph learned
    trace of enc(I(L, L)) calls enc(L)      UnlearnedRecursion: the call runs profiled,
                                            which learns enc's recursion and cases
    next call of any tree                   one graph, the SubGraph for every shape
"""
from __future__ import annotations

import tensorflow as tf

from janus.errors import Unprofiled
from janus.tensors import is_tensor


class UnlearnedRecursion(Unprofiled):
    """A trace met a function calling itself on a node where no profiled call did: the
    call runs profiled so its recursion is learned (not a failed generation).
    `key`: ("recursion", the function's key)."""


def node_argument(args: tuple):
    """Index of the first argument that is a plain Python object (a tree node, say)."""
    for index, value in enumerate(args):
        if value is None or isinstance(value, (bool, int, float, str, list, tuple, dict)) or \
                is_tensor(value) or isinstance(value, (tf.Variable, tf.Module)):
            continue
        if callable(value):
            continue
        return index
    return None


def passed_on(args: tuple, node_index: int, bound_self=None) -> tuple:
    """What a call of a recursive function passes besides its node: its bound `self`,
    then its other positional arguments."""
    return (bound_self,) + tuple(args[:node_index]) + tuple(args[node_index + 1:])


def same_passed_on(passed: tuple, other: tuple) -> bool:
    """Whether two calls pass the very same objects besides their nodes (`enc(node.left,
    scale)` does; `enc(node.left, depth + 1)` does not: each level would need its own
    value, which a batched run, all invocations with their root's, does not give)."""
    return len(passed) == len(other) and all(a is b for a, b in zip(passed, other))


def check_unseen(profile, caller, callee, args: tuple) -> None:
    """Raise UnlearnedRecursion when a trace's call of `callee` from `caller` (converted
    functions) is a function calling itself on a node where no profiled call did (nor
    was a rerun asked for: `Profile.self_calls`)."""
    key = callee.key
    if caller is not callee and caller.key != key or key in profile.self_calls or \
            key in profile.unbatchable or node_argument(args) is None:
        return
    error = UnlearnedRecursion(
        "it calls itself on a node, which no profiled call did: the call runs profiled "
        "to learn its recursion", function=callee.qualname, filename=callee.source.filename,
        lineno=callee.source.first_line, hint="the next graph runs it batched")
    error.key = ("recursion", key)
    raise error
