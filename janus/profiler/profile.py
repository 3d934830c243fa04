"""What the profiler records: per program site, and per call the argument signature."""
from __future__ import annotations

import collections
import dataclasses
import itertools

import tensorflow as tf

from janus.tensors import is_tensor


_MAX_DEPTH = 32
_PLAIN_KEYS = frozenset({str, int, float, bool, bytes, type(None)})


def _dtype_name(dtype) -> str:
    """A TF dtype's name; a Keras variable's dtype is its name already."""
    return dtype if isinstance(dtype, str) else dtype.name


def describe_value(value, max_items: int = 64, _path: tuple = ()):
    """A small, comparable description of a value: type, dtype/shape, Python value, length
    (a container holding itself, or nested deeper than `_MAX_DEPTH`: described there by
    its type only)."""
    if isinstance(value, tf.Variable) or is_tensor(value) and hasattr(value, "assign"):
        return ("variable", _dtype_name(value.dtype), tuple(value.shape))  # (Keras' too)
    if is_tensor(value):
        return ("tensor", _dtype_name(value.dtype), tuple(value.shape))
    if value is None or isinstance(value, (bool, int, float, str)):
        return (type(value).__name__, value)
    if isinstance(value, (list, tuple, dict)):
        if id(value) in _path or len(_path) >= _MAX_DEPTH:
            return ("nested", type(value).__qualname__)
        path = _path + (id(value),)
        if isinstance(value, dict):  # (its items, not looked up: a key of the program's
            items = tuple(itertools.islice(value.items(), max_items))  # class hashes: F420)
            keys = tuple(k if type(k) in _PLAIN_KEYS else describe_value(k, max_items, path)
                         for k, _ in items)
            return ("dict", keys, tuple(describe_value(v, max_items, path) for _, v in items))
        items = tuple(describe_value(v, max_items, path) for v in value[:max_items])
        return (type(value).__name__, len(value), items)
    return ("object", type(value).__qualname__)


@dataclasses.dataclass
class SiteProfile:
    """Observations at one site over the profiled calls."""

    hits: int = 0
    tensor_tests: int = 0
    outcomes: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    trip_counts: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    iterable_kinds: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    callees: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    sequence: list = dataclasses.field(default_factory=list)  # outcomes in the last call
    sequences: set = dataclasses.field(default_factory=set)   # distinct per-call outcome sequences
    loop_exit: bool = False  # the `if t: break` that is a loop's only way out (exits.py)
    while_test: bool = False  # the test of a `while` (without exit tests): generalized at once
    # when Python-valued here but tensor-valued in a trace (Tracer.note_exit)

    @property
    def stable_outcome(self):
        """The only branch outcome seen, or None if both were."""
        return next(iter(self.outcomes)) if len(self.outcomes) == 1 else None


class Profile:
    """All the profiler learned about one jitted function (and the functions it calls)."""

    def __init__(self, max_values: int = 8):
        self.max_values = max_values
        self.calls = 0
        self.signatures: list = []  # describe_value(args) per profiled call (bounded)
        self.sites: dict[tuple[str, int], SiteProfile] = {}
        self.recursive: dict[str, int] = {}  # recursive function -> index of its node argument
        self.cases: dict[str, list] = {}     # recursive function -> [recursion.cases.Case]
        self.unbatchable: dict[str, str] = {}  # recursive function -> why it is inlined instead
        # functions a profiled call saw calling themselves on a node (recursive or not), or
        # whose call a trace asked to rerun profiled to see it (recursion/self_calls.py)
        self.self_calls: set[str] = set()
        # (class name, attribute) -> {"reads": n, "writes": n, "types": [type names]}
        self.attributes: dict[tuple[str, str], dict] = {}
        # a tf.distribute strategy spanning several workers that the function called
        # (its calls then agree across workers: janus/fallback/agreement.py)
        self.collective_strategy = None
        # site key -> [why a graph refuses what ran there, last call seen, calls seen in,
        # (function, filename, line)]
        self.refusals: dict[tuple, list] = {}
        # ((function, filename, line), what) of the library calls the last profiled call
        # made that changed the program's state while another thread ran Python
        # (profiler/thread_writes.py): a trace now could not tell its changes from it
        self.thread_writes: list = []

    def record_attribute(self, obj, name: str, value, write: bool) -> None:
        key = (type(obj).__qualname__, name)
        entry = self.attributes.get(key)
        if entry is None:
            if len(self.attributes) >= 64 * self.max_values:
                return
            entry = self.attributes[key] = {"reads": 0, "writes": 0, "types": []}
        entry["writes" if write else "reads"] += 1
        kind = type(value).__name__
        if kind not in entry["types"] and len(entry["types"]) < self.max_values:
            entry["types"].append(kind)

    def record_refusal(self, key: tuple, reason: str, where: tuple) -> None:
        """A profiled call did something at `key` a graph refuses (graphgen/refusals.py)."""
        entry = self.refusals.get(key)
        if entry is None:
            if len(self.refusals) >= 4 * self.max_values:
                return
            entry = self.refusals[key] = [reason, -1, 0, where]
        if entry[1] != self.calls:
            entry[1] = self.calls
            entry[2] += 1

    def certain_refusal(self):
        """(why, (function, filename, line)) when every profiled call did something a
        graph refuses at the same site, else None: a trace cannot succeed, janus does
        not attempt it."""
        for reason, _, calls, where in self.refusals.values():
            if self.calls and calls >= self.calls:
                return reason, where
        return None

    def add_case(self, function: str, case) -> None:
        cases = self.cases.setdefault(function, [])
        if case not in cases and len(cases) < 4 * self.max_values:
            cases.append(case)

    def site(self, function_key: str, site_id: int) -> SiteProfile:
        key = (function_key, site_id)
        record = self.sites.get(key)
        if record is None:
            record = self.sites[key] = SiteProfile()
        return record

    def record_call(self, args: tuple, kwargs: dict) -> None:
        self.calls += 1
        if len(self.signatures) < self.max_values:
            self.signatures.append(describe_value((args, kwargs)))

    def _bounded_add(self, counter: collections.Counter, key) -> None:
        if key in counter or len(counter) < self.max_values:
            counter[key] += 1

    def summary(self) -> str:
        lines = [f"profiled calls: {self.calls}"]
        for (fn, site_id), rec in sorted(self.sites.items()):
            facts = []
            if rec.outcomes:
                facts.append(f"outcomes={dict(rec.outcomes)}")
            if rec.tensor_tests:
                facts.append(f"tensor-valued={rec.tensor_tests}")
            if rec.trip_counts:
                facts.append(f"trips={dict(rec.trip_counts)}")
            if rec.callees:
                facts.append(f"callees={dict(rec.callees)}")
            lines.append(f"  {fn}#{site_id}: hits={rec.hits} " + " ".join(facts))
        for (cls, name), entry in sorted(self.attributes.items()):
            lines.append(f"  {cls}.{name}: read {entry['reads']}, written {entry['writes']}, "
                         f"as {'/'.join(entry['types'])}")
        return "\n".join(lines)
