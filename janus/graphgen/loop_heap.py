"""Heap attributes a generalized loop writes, carried through its `tf.while_loop`.

    for t in range(n):                       i, stop, steps, state = 1, ..., <after iteration 0>
        obs, done = env.step(a)      ->      while i < n and not stop:
        if done:                                 (the body reads and writes env.steps and
            break                                 env.state through the ledger: loop state)
                                             env.steps, env.state = steps, state  (deferred)

A trace defers every heap write to the ledger (fallback/heap.py) and writes it back
once the graph ran. A loop body traced once stands for every iteration, so a write in
it is not one write but a value that changes per iteration: the attributes the loop's
peeled first iteration wrote become loop state, each iteration reading the previous
one's value and writing the next, and the last iteration's (at its exit test, where it
stopped there) is the one deferred write after the loop. Only attribute writes of
objects janus locates on the heap are carried, each of a value a loop can carry (a
tensor, a fed number or numpy scalar, a fed array); prints, deletions and in-place
changes of lists and dicts still keep the loop specialized. A Python number the loop
changes (`self.steps += 1`) is carried as a fed number from its value after the first
iteration (`lift`).
"""
from __future__ import annotations

import tensorflow as tf

from janus.errors import ConversionError
from janus.fallback.heap import DELETED, HeapLedger
from janus.graphgen.values import MixedBool, SymbolicScalar
from janus.transform.runtime import UNDEFINED

_NUMBERS = (bool, int, float)


def lift(value, before):
    """A Python number that changes from one iteration to the next (or is first bound in
    the loop) as a fed number of its type (its value now: the loop's first state); other
    values as they are."""
    if type(value) in _NUMBERS and (before is UNDEFINED or type(before) is type(value) and
                                    value != before):
        if type(value) is int and not -2 ** 62 < value < 2 ** 62:
            raise ConversionError("a loop changes a Python int beyond what a graph computes "
                                  "exactly")
        return SymbolicScalar(tf.constant(value, SymbolicScalar._dtype(type(value))),
                              type(value))
    return value


def lift_to(value, template):
    """`value` (a Python number at an exit test) in the kind `template` is carried as."""
    if isinstance(template, SymbolicScalar) and type(value) is template.kind:
        return SymbolicScalar(tf.constant(value, template.tensor.dtype), template.kind)
    return value


def carried_as(value, template):
    """An iteration's `value` in the kind `template` (the value after the loop's first
    iteration) is carried as. A bool of either type (MixedBool: a numpy or a Python bool)
    is carried as one only where the first iteration made one: else its type would come
    out of the loop as the first iteration's."""
    if isinstance(value, MixedBool) and not isinstance(template, MixedBool):
        raise ConversionError("a loop makes a bool of either type (numpy or Python) of a "
                              "value its first iteration left of one type")
    return lift_to(value, template)


class CarriedAttributes:
    """The attributes a loop's first iteration wrote (in the ledger since `mark`)."""

    def __init__(self, ledger: HeapLedger, mark: int, what: str):
        self.ledger, self.what = ledger, what
        self.keys = written(ledger, mark, what)
        self.slots = [(ledger.attrs[k][0], ledger.attrs[k][1], k[1]) for k in self.keys]

    @property
    def names(self) -> list[str]:
        return [f"{source}.{name}" for _, source, name in self.slots]

    def values(self) -> tuple:
        return tuple(self.ledger.attrs[(id(obj), name)][2] for obj, _, name in self.slots)

    def set(self, values) -> None:
        for (obj, source, name), value in zip(self.slots, values):
            self.ledger.set_attr(obj, source, name, value)

    def at(self, snapshot: dict, before: tuple) -> tuple:
        """The attributes' values in a ledger `snapshot` (an exit test's), `before`'s where
        the iteration had not written them yet."""
        return tuple(snapshot[key][2] if key in snapshot else old
                     for key, old in zip(self.keys, before))

    def check_body(self, mark: int) -> None:
        """The loop body (traced once) wrote no other heap location than these."""
        if not set(written(self.ledger, mark, self.what)) <= set(self.keys):
            raise ConversionError(f"{self.what} writes a heap attribute its first "
                                  "iteration did not")


def written(ledger: HeapLedger, mark: int, what: str) -> list[tuple]:
    keys: dict = {}
    for entry in ledger.log[mark:]:
        if entry[0] != "attr" or ledger.attrs[entry[1:3]][2] is DELETED:
            raise ConversionError(f"print or heap side effects other than attribute writes "
                                  f"inside {what} are not generalized")
        keys[entry[1:3]] = None
    return list(keys)
