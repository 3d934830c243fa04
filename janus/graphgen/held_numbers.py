"""Numbers that change between calls, read by the program's code library code runs
unconverted: fed to the graph through a stand-in the trace puts where that code reads.

graphgen/unconverted_reads.py guards what such code reads by value (`HP.alpha == 0.2`).
An experiment annealing it (`HP.alpha = 0.01 * i` before each step) failed that guard on
every call: a graph per value until the specialization limit (9x plain, F295). When the
guard failed, the ladder (janus/ladder.py) feeds the number's role (`plan.scalars`, as
for converted code); the held read then becomes a fed scalar:

    class HP: alpha = 0.5            while the trace runs, `HP.alpha` holds a HeldScalar
    def act(x): return x * HP.alpha  (the fed float64 placeholder, a Python float to the
    Dense(8, activation=act)         code that reads it: `x * HP.alpha` is `x * cast(fed)`);
                                     restored when the trace ends: the graph guards its
                                     type only and takes its value on each call

Code that needs the number itself (`tf.nn.leaky_relu(x, alpha=HP.alpha)`: an op's
attribute, `float()`, `if`, `max`) fails the trace: a FedScalarMisuse (a library's own
TypeError there is taken as one), so the role is kept (`plan.kept`) and the held read is
refused once traces saw `VALUES_BEFORE_REFUSAL` values of it (the function splits at that
call, which runs in Python: unconverted_reads), not regenerated per value to the limit.
Only a global, a class's or a plain record's attribute, or a closure cell is fed (a
holder janus can set and put back); elsewhere a number that changes between calls is
refused.
"""
from __future__ import annotations

import contextlib
import numbers
import operator
import threading
import types
import weakref

from janus.errors import ConversionError, cause_of
from janus.graphgen.values import FedScalarMisuse, SymbolicScalar


class HeldScalar(SymbolicScalar):
    """A fed Python number as code janus does not convert reads it: a `numbers.Real`,
    so TensorFlow's `float(v)` of an op's attribute meets its misuse, not a TypeError.

    It stands where the program's state is for the trace's length: another thread that
    reads it meanwhile (a data loader, a logger reading the same setting) gets the real
    number's answer for every operation (`HP.alpha * 2`, `float(HP.alpha)`, `f"{...}"`);
    only its type tells (`type(HP.alpha) is float` is False there)."""

    def __init__(self, tensor, kind: type, role, bound, real):
        super().__init__(tensor, kind, role, bound)
        self.real, self.thread = real, threading.get_ident()


_BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
           "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
           "pow": operator.pow}
_COMPARE = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
            "gt": operator.gt, "ge": operator.ge}
_UNARY = {"neg": operator.neg, "hash": hash, "bool": bool, "index": operator.index,
          "int": int, "float": float, "repr": repr, "str": str}


def _answering_other_threads(name: str, real_op):
    traced = getattr(SymbolicScalar, name)

    def method(self, *args):
        if threading.get_ident() != self.thread:
            return real_op(self.real, *args)
        return traced(self, *args)
    method.__name__ = name
    return method


def _reflected(op):
    return lambda real, other: op(other, real)


for _name, _op in _BINARY.items():
    setattr(HeldScalar, f"__{_name}__", _answering_other_threads(f"__{_name}__", _op))
    setattr(HeldScalar, f"__r{_name}__",
            _answering_other_threads(f"__r{_name}__", _reflected(_op)))
for _name, _op in {**_COMPARE, **_UNARY}.items():
    setattr(HeldScalar, f"__{_name}__", _answering_other_threads(f"__{_name}__", _op))
HeldScalar.__round__ = _answering_other_threads("__round__", round)
HeldScalar.__format__ = _answering_other_threads("__format__", format)
numbers.Real.register(HeldScalar)


class Holder:
    """Where a held number is read: a namespace or instance dict's key, a class's
    attribute, or a closure cell; `put` a value there, `restore` what it held."""

    def __init__(self, place, key=None):
        self.place, self.key = place, key
        self.old = self._get()

    def _get(self):
        if isinstance(self.place, types.CellType):
            return self.place.cell_contents
        if isinstance(self.place, type):
            return vars(self.place)[self.key]
        return self.place[self.key]

    def put(self, value) -> None:
        if isinstance(self.place, types.CellType):
            self.place.cell_contents = value
        elif isinstance(self.place, type):
            type.__setattr__(self.place, self.key, value)
        else:
            self.place[self.key] = value

    def restore(self, stand_in) -> None:
        """Put the old value back, unless another thread wrote there meanwhile (its
        write stays, as it would without janus)."""
        try:
            if self._get() is stand_in:
                self.put(self.old)
        except KeyError:  # (deleted meanwhile: stays deleted)
            pass


def feed(tracer, fed: list) -> None:
    """Put a HeldScalar for each (source, holder) of `fed` where the held code reads it
    (the tracer imports the number: its input, and a guard on its type)."""
    installed = tracer.held_numbers
    for source, holder in fed:
        if any(h.place is holder.place and h.key == holder.key for h, _, _ in installed):
            continue  # (read again in the same trace: the stand-in is in place)
        scalar = tracer.import_value(holder.old, source)
        if not isinstance(scalar, SymbolicScalar):
            continue  # (not fed after all: guarded by value by the import)
        stand_in = HeldScalar(scalar.tensor, scalar.kind, scalar.role, scalar.bound, holder.old)
        installed.append((holder, source.role, stand_in))
        holder.put(stand_in)


_UNFED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# the profile of the jitted function janus generates graphs of (one per `janus.jit`) ->
# roles of held numbers feeding failed for


def _owner(tracer):
    """What janus learns of one jitted function is kept with (its profile)."""
    return getattr(tracer, "profile", None)


def unfed(tracer, role: str) -> bool:
    """Feeding the held number of `role` failed in a trace of this function before (a
    plan janus went back from since: the read is not fed again, and is refused once
    `changing` saw enough values)."""
    return role in _UNFED.get(_owner(tracer) or _Nothing, ())


class _Nothing:
    """(a key no function is)"""


_VALUES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# the jitted function's profile -> role -> the values its traces saw, once known
# to change (fed, or feeding it failed)
VALUES_BEFORE_REFUSAL = 3
"""Values of a held number janus cannot feed traced (a graph each) before its read is
refused: a number changed once or twice (an epoch's anneal) keeps graphs; one changing
on every call runs that call in Python after three."""


def changing(tracer, role: str, value) -> bool:
    """Note `value` of the held number of `role` (known to change, not fed): whether
    traces saw `VALUES_BEFORE_REFUSAL` values of it."""
    try:
        seen = _VALUES.setdefault(_owner(tracer), {}).setdefault(role, set())
    except TypeError:
        return True  # (nowhere to count: refused at once, never a graph per value)
    seen.add((type(value), value))
    return len(seen) >= VALUES_BEFORE_REFUSAL


@contextlib.contextmanager
def installed(tracer):
    """The trace's extent: its stand-ins put back when it ends; a library's error while
    they were in place is taken as the stand-in's misuse (its role kept guarded: `unfed`,
    and so refused by unconverted_reads), unless janus's own."""
    try:
        yield
    except Exception as exc:
        held = tracer.held_numbers
        if held:
            roles = [role for _, role, _ in held]
            misuse = cause_of(exc, FedScalarMisuse)  # (a library may raise another in its place)
            role = misuse.role if misuse is not None and misuse.role in roles else \
                roles[0] if misuse is None and not isinstance(exc, ConversionError) else None
            unfound, misuse = misuse is None, None  # (`exc` itself, maybe: its traceback
            # holds this frame, a cycle, F441)
            if role is not None:
                _note_unfed(tracer, role)
            if role is not None and unfound:
                raise FedScalarMisuse(f"code janus does not convert failed with a number "
                                      f"it feeds ({type(exc).__name__})", role) from exc
        raise
    finally:
        held, tracer.held_numbers = tracer.held_numbers, []
        for holder, _, stand_in in reversed(held):
            holder.restore(stand_in)


def _note_unfed(tracer, role: str) -> None:
    try:
        _UNFED.setdefault(_owner(tracer), set()).add(role)
    except TypeError:  # (no function, or one without weak references: the plan's `kept`)
        pass



