"""The instructions of the program's code that library code runs unconverted, read once.

Two analyses look at such code without converting it: graphgen/held_code.py (the
program's functions Keras holds and calls from its own code: an activation, a
schedule's `__call__`) and graphgen/unconverted_reads.py (the function behind
`@tf.custom_gradient`, a Keras Loss's `call`). Both read a function's bytecode and that
of the code nested in it (a lambda, a comprehension), in one order:

    def act(x):                          ("LOAD_GLOBAL", "tf", None, None, <act>)
        return tf.tanh(x / T["t"])       ("LOAD_ATTR", "tanh", "LOAD_GLOBAL", "tf", <act>)
                                         ...
                                         (then the code nested in it, each after its
                                         parent, in the order of its constants)

`instructions(code)` is cached per code object: a guard or a refusal asks again on
every trace of a call that holds the same function. The cache is keyed by the code
object's identity, not its value: two programs' functions of the same text (the same
`__call__` of a schedule class, at the same lines of two files) have code objects that
compare equal, and the analyses compare the code objects of the instructions with `is`
(fuzz v79 seed 167: the second program's `self._peak` read went unseen, F376).
"""
from __future__ import annotations

import dis
import functools
import types


def cached_by_identity(maxsize: int):
    """`functools.lru_cache` for functions of a code object (and hashable arguments after
    it), keyed by the code object's identity (the cache holds it, so its id stays its own)."""
    def decorate(fn):
        cache: dict = {}

        @functools.wraps(fn)
        def cached(code: types.CodeType, *args):
            key = (id(code), *args)
            entry = cache.get(key)
            if entry is not None and entry[0] is code:
                return entry[1]
            result = fn(code, *args)
            if len(cache) >= maxsize:
                cache.pop(next(iter(cache)))
            cache[key] = (code, result)
            return result

        cached.cache_clear = cache.clear
        return cached
    return decorate


@cached_by_identity(maxsize=512)
def instructions(code: types.CodeType) -> tuple:
    """(opname, argval, the previous instruction's opname and argval in the same code
    object (None at its start), the code object) of `code` and the code nested in it."""
    found = []
    _read(code, found)
    return tuple(found)


def _read(code: types.CodeType, found: list) -> None:
    previous = (None, None)
    for ins in dis.get_instructions(code):
        found.append((ins.opname, ins.argval, *previous, code))
        previous = (ins.opname, ins.argval)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _read(const, found)
