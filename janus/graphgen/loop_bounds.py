"""Static bounds of the Python ints a bounded loop carries, by induction (F452).

A Python int a loop changes (`self.steps += 1`) is carried as a fed int
(graphgen/loop_heap.py `lift`). Without a static bound of its magnitude every add is
overflow-checked in every iteration (graphgen/exact_numbers.py: `steps + 1 > steps`, and
the check's `and` into the iteration's `ok`). In a loop of known length N the body is
traced assuming |x| <= LIMIT (2**62) on entry, and the assumption is kept by induction:

    for t in range(N):                  body(x: |x| <= LIMIT)   x + 1: no check
        env.steps += 1          ->      x' = x + 1              (verified: x' is x plus
        ...                                                      constants, and |x0| +
        if done: break                                           N * 1 <= LIMIT)
                                        x' = x * k + 1          (not verified: one check
                                                                 |x'| <= LIMIT, for the
                                                                 next iteration)

Verified: every way the body's new value is made (through the exit tests' selects) is
the iteration's incoming value plus int constants (at most D in magnitude, summed along
the way) or a constant plus constants (at most A); then |x_i| <= max(|x0|, A) + i * D
for every iteration i < N. Otherwise the new value is checked to be within LIMIT (a
failed check: the call reruns plainly, the next iteration never runs with it), which is
no more than the add's own check was. After the loop the value has the tighter bound
where verified.
"""
from __future__ import annotations

import tensorflow as tf

from janus.graphgen import checks
from janus.graphgen.values import SymbolicScalar

LIMIT = 2 ** 62  # (graphgen/exact_numbers.py INT_LIMIT: what lift carries at most)
_ADDS = frozenset({"AddV2", "Add"})
_PASS = frozenset({"Identity"})
_SELECTS = frozenset({"SelectV2", "Select"})
_MAX_NODES = 256  # (tensors looked at per value: a longer way is "neither")


def start(first: tf.Tensor, value) -> int | None:
    """The magnitude bound of a carried int's first loop state: its tensor `first` (the
    peeled iteration's value, or its value at an exit test) made of constants, or a fed
    int's `value` with a bound; None for anything else."""
    if not first.dtype.is_integer:
        return None
    made = _made(first, None, {})
    if made is not None and made[1] < LIMIT:
        return made[1]
    if isinstance(value, SymbolicScalar) and value.kind is int and value.bound is not None \
            and value.bound < LIMIT and first is value.tensor:
        return value.bound
    return None


class CarriedInts:
    """The carried ints of one loop of `length` iterations being built (an int; else no
    bounds): loop state index -> magnitude bound of the first state (`start`)."""

    def __init__(self, starts: dict, length):
        bounded = type(length) is int
        self.starts = {k: s for k, s in starts.items() if s is not None} if bounded else {}
        self.length = length if bounded else 0
        self.after: dict = {}  # index -> bound after the loop

    def entering(self, k: int, value):
        """The loop's incoming value of state `k` as an iteration sees it: bounded by
        LIMIT (the induction's hypothesis)."""
        if k not in self.starts or not isinstance(value, SymbolicScalar):
            return value
        return SymbolicScalar(value.tensor, value.kind, bound=LIMIT)

    def leaving(self, k: int, incoming: tf.Tensor, new: tf.Tensor) -> None:
        """Keep the hypothesis for the next iteration: verified from how the body made
        `new` out of `incoming` (the loop variable's tensor), else checked."""
        if k not in self.starts:
            return
        made = _made(new, incoming, {})
        if made is not None:
            start_bound = max(self.starts[k], made[1])
            bound = start_bound + self.length * made[0]
            if bound <= LIMIT:
                self.after[k] = max(self.after.get(k, 0), bound)
                return
        self.after[k] = LIMIT
        checks.require(tf.logical_and(new >= -LIMIT, new <= LIMIT))

    def after_loop(self, k: int, value):
        """State `k`'s value after the loop, with the bound the iterations kept."""
        if k not in self.after or not isinstance(value, SymbolicScalar):
            return value
        return SymbolicScalar(value.tensor, value.kind, bound=self.after[k])


def _made(t: tf.Tensor, incoming, seen: dict) -> tuple[int, int] | None:
    """(D, A) of how `t` is made: D the largest magnitude of the constants added to
    `incoming` along any way, A the largest magnitude of a constant way (or of a way's
    added constants); None where some way is neither (`seen`: memo by tensor)."""
    key = (t.op.name, t.value_index)
    if key not in seen:
        seen[key] = None  # (a way back to itself, or too deep: neither)
        if len(seen) <= _MAX_NODES:
            seen[key] = _way(t, incoming, seen)
    return seen[key]


def _way(t: tf.Tensor, incoming, seen: dict) -> tuple[int, int] | None:
    if incoming is not None and t.op is incoming.op and t.value_index == incoming.value_index:
        return 0, 0
    op = t.op
    constant = tf.get_static_value(t) if t.dtype.is_integer and t.shape.rank == 0 else None
    if constant is not None:
        return (0, abs(int(constant))) if abs(int(constant)) < LIMIT else None
    if op.type in _PASS:
        return _made(op.inputs[0], incoming, seen)
    if op.type in _SELECTS:
        ways = [_made(x, incoming, seen) for x in op.inputs[1:]]
        if None in ways:
            return None
        return max(w[0] for w in ways), max(w[1] for w in ways)
    if op.type in _ADDS or op.type == "Sub":
        a, b = op.inputs
        for operand, other in ((b, a), (a, b)) if op.type != "Sub" else ((b, a),):
            c = tf.get_static_value(operand) if operand.shape.rank == 0 else None
            if c is None:
                continue
            way = _made(other, incoming, seen)
            if way is None:
                return None
            return way[0] + abs(int(c)), way[1] + abs(int(c))
    return None
