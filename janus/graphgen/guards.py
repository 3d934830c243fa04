"""Assumptions as guards: small records, compiled into one cheap check per graph.

A host-side guard reads a value from its source and compares it with what the
graph was specialized to (type, identity, Python value, length, dtype/shape).
An in-graph guard is an assertion op on a tensor-valued assumption (a branch
taken, a loop's trip count). Each guard describes itself in one readable line.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import numpy as np
import tensorflow as tf
from tensorflow.python.framework.ops import EagerTensor as EAGER_TENSOR  # no tensor at import:
# creating one would initialize TF's devices (tf.config could no longer set them up)

from janus.graphgen import number_lists
from janus.graphgen.sources import Source, arg, environment, holds_enum, same_key, \
    steps_code


@dataclasses.dataclass(frozen=True)
class Guard:
    """One assumption about one value. `kind` picks the check; `expected` is what
    the graph was built for; `where` is the user's line that made the assumption."""

    kind: str  # call | type | id | value | number | len | keys | lacks | tensor |
    #            tensor_list | array | number_list | aliases | keras
    source: Source
    expected: Any
    where: str = ""

    @property
    def key(self) -> tuple:
        return (self.kind, self.source.expr)

    def describe(self) -> str:
        exp = self.expected
        if self.kind == "call":
            text = f"the call passes {exp[0]} positional argument(s)" + (
                f" and keywords {', '.join(sorted(exp[1]))}" if exp[1] else " and no keywords")
        elif self.kind == "type":
            text = f"type({self.source}) is {exp.__qualname__}"
        elif self.kind == "id":
            text = f"{self.source} is <{type(exp).__name__} at {id(exp):#x}>"
        elif self.kind == "value":
            text = f"{self.source} == {exp!r}"
        elif self.kind == "number":
            text = f"type({self.source}) is {'int' if exp is WideInt else exp.__name__}" + \
                (" (fits int32)" if exp is int else
                 " (fits int64, not int32)" if exp is WideInt else "")
        elif self.kind == "len":
            text = f"len({self.source}) == {exp}"
        elif self.kind == "keys":
            text = f"list({self.source}) == {list(exp)!r}"
        elif self.kind == "lacks":
            text = f"none of {', '.join(map(repr, exp))} in {self.source}"
        elif self.kind == "tensor":
            text = f"{self.source} is a {_spec_text(exp)} tensor"
        elif self.kind == "array":
            text = f"{self.source} is a {_spec_text(exp)} numpy array"
        elif self.kind == "keras":
            text = exp.describe()
        elif self.kind == "aliases":
            classes = {}
            for source, cls in exp:
                classes.setdefault(cls, []).append(str(source))
            text = "one object where read so (tensors, written heap objects): " + "; ".join(
                " is ".join(names) for names in classes.values()) + " (and no others alike)"
        elif self.kind == "number_list":
            item = exp[0] if exp[1] is None else f"tuples of {exp[1]} {exp[0]}s"
            text = f"{self.source} is a non-empty list of {item}" + \
                (" (each fits int32)" if exp[0] == "int" else "")
        else:
            text = f"{self.source} is a non-empty list of {_spec_text(exp)} tensors"
        return text + (f"  [{self.where}]" if self.where else "")


@dataclasses.dataclass(frozen=True)
class InGraphGuard:
    """A tensor-valued assumption checked by an assertion op inside the graph."""

    index: int
    site: Any  # janus.transform.sites.Site
    function: str
    expected: Any
    known: bool = False  # the trace knew the outcome: a test on fed numbers (F455)

    @property
    def key(self) -> tuple:
        return ("branch", self.function, self.site.id)

    @property
    def tag(self) -> str:
        return f"janus-guard-{self.index}"

    def describe(self) -> str:
        return (f"{self.site.kind} `{self.site.text}` is {self.expected}"
                f"  [{self.site.filename}:{self.site.lineno}]")


def _same_keys(d, expected: list) -> bool:
    """The dict's keys are `expected`, in order, each of the same type (an IntEnum key is
    not the int it equals; a str-mixin Enum's not the str)."""
    keys = list(d)
    return len(keys) == len(expected) and all(same_key(a, b) for a, b in zip(keys, expected))


def _spec_text(spec: tuple) -> str:
    dtype, shape = spec
    dims = ", ".join("?" if d is None else str(d) for d in shape)
    return f"{dtype}[{dims}]"


def _dims(shape) -> tuple:
    """A shape's dimensions, each an int or None (anything else is refused: these are
    rendered into the guard's code)."""
    if not isinstance(shape, (tuple, list)) or \
            not all(d is None or type(d) is int for d in shape):
        raise ValueError(f"not a tensor shape: {shape!r:.200}")
    return tuple(shape)


def _array_shape(shape: tuple) -> str:
    return "(" + "".join(f"{int(d)}, " for d in _dims(shape)) + ")"


def _shape_test(var: str, shape: tuple) -> str:
    shape = _dims(shape)
    if all(d is not None for d in shape):
        return f"{var}._shape_tuple() == ({''.join(f'{int(d)}, ' for d in shape)})"
    parts = [f"len(s) == {len(shape)}"] + [f"s[{i}] == {int(d)}" for i, d in enumerate(shape)
                                            if d is not None]
    return f"(lambda s: {' and '.join(parts)})({var}._shape_tuple())"


INT32 = (-2 ** 31, 2 ** 31 - 1)
INT64 = (-2 ** 63, 2 ** 63 - 1)


class WideInt:
    """The `number` guard's type of a Python int beyond int32 that fits int64 (a step
    counter, a seed): fed as int64, which TF converts it to as well (F360)."""


def _number_test(var: str, const: str, kind: type) -> str:
    """A Python number fed as a tensor: its type; an int also fits int32, so a list of
    such ints converts to an int32 tensor as plain Python's would (see values.py)."""
    if kind is int:
        return f"type({var}) is int and {INT32[0]} <= {var} <= {INT32[1]}"
    if kind is WideInt:
        return f"type({var}) is int and {INT64[0]} <= {var} <= {INT64[1]} and not " \
               f"{INT32[0]} <= {var} <= {INT32[1]}"
    if kind is float:
        return f"type({var}) is float"
    raise ValueError(f"not a number type: {kind!r:.100}")


class GuardSet:
    """The host-side guards of one specialization, compiled into `check(args, kwargs)`,
    which returns -1 when all hold, else the index of the first guard that fails."""

    def __init__(self, guards: list[Guard], globals_: dict, cells: tuple):
        self.guards = guards
        self.source_code, self.check = self._compile(guards, globals_, cells)

    def __len__(self) -> int:
        return len(self.guards)

    def describe(self) -> list[str]:
        return [g.describe() for g in self.guards]

    @staticmethod
    def _compile(guards, globals_, cells):
        """The check function's code is built from validated source paths and small ints
        only; every expected value reaches it through its environment (`E3`), never as
        text. Guards of one role over the items of a container (`type(args[1][k]) is
        Node` for every k) are one loop (`_role_groups`)."""
        env: dict = {**environment(globals_, cells), "EagerTensor": EAGER_TENSOR}
        lines = ["def check(args, kwargs):", "    g = 0", "    try:"]
        value_of = functools.partial(_value_of, {}, lines)

        for index, guard in enumerate(guards):
            if type(guard.source) is not Source:
                raise TypeError(f"a guard on {guard.source!r:.100}, not on a Source")
        groups = _role_groups(guards)
        done: set = set()
        for index, guard in enumerate(guards):
            if index in done:
                continue
            group = groups.get(index)
            if group is not None:
                _emit_loop(lines, env, guards, group, index)
                done.update(group.members)
                continue
            lines.append(f"        g = {index}")
            if guard.kind == "call":  # (first: the other guards' sources exist)
                env[f"E{index}"] = frozenset(guard.expected[1])
                lines.append(f"        if len(args) != {int(guard.expected[0])} or "
                             f"kwargs.keys() != E{index}: return {index}")
                continue
            if guard.kind == "keras":  # (graphgen/keras_state.py: owners, then the epoch)
                lines.append(f"        if not ({guard.expected.test(index, value_of, env)}):"
                             f" return {index}")
                continue
            if guard.kind == "aliases":
                test = _aliases_test([(value_of(source), cls) for source, cls in guard.expected])
                lines.append(f"        if not ({test}): return {index}")
                continue
            var = value_of(guard.source)
            const = f"E{index}"
            env[const] = guard.expected
            if guard.kind == "value":
                env[f"T{index}"] = type(guard.expected)
            lines.append(f"        if not ({_test(guard, var, const, f'T{index}', f'D{index}', env)}):"
                         f" return {index}")
        lines += ["        pass",  # no guard at all (a segment without inputs)
                  "    except Exception:", "        return g", "    return -1"]
        code = "\n".join(lines)
        exec(compile(code, "<janus guards>", "exec"), env)
        return code, env["check"]


def _value_of(names: dict, lines: list, source: Source) -> str:
    """The variable of the check function holding `source`'s value (`names`: expr ->
    variable), its parent's read once for all (`args[0].model.layers[3].bn1` and
    `...[3].conv1` share `...layers[3]`: a Keras model's `layers` is a property computed
    on each read). (Not a closure calling itself: a cycle, F440.)"""
    name = names.get(source.expr)
    if name is None:
        if source.steps and source.root[0] != "table":
            code = _value_of(names, lines, source.parent()) + source.last_step_code()
        else:
            code = source.code()  # validated parts only
        name = names[source.expr] = f"v{len(names)}"
        lines.append(f"        {name} = {code}")
    return name


def aliases_guard(objects: list[tuple[list[Source], tuple]]) -> Guard | None:
    """The guard that tensors read in a trace are one object exactly where they were
    (`objects`: per tensor object, the sources it was read from and its (dtype, shape)):
    `acc = x` makes both one graph input and a tape over one differentiates the other;
    two different tensors are two inputs. Only reads that could be one object on a
    later call are checked: an object read twice, and objects whose tensor guards could
    both hold for one tensor (`float32[4]` and `int32[]` never do). None if nothing is."""
    kept = [sources for k, (sources, spec) in enumerate(objects)
            if len(sources) > 1 or any(_may_be_one(spec, other) for j, (_, other)
                                       in enumerate(objects) if j != k)]
    if sum(len(sources) for sources in kept) < 2:
        return None
    expected = tuple((source, cls) for cls, sources in enumerate(kept) for source in sources)
    return Guard("aliases", expected[0][0], expected)


def _may_be_one(a: tuple, b: tuple) -> bool:
    """Whether one tensor could satisfy both (dtype, shape) guards (None: any size)."""
    (dtype_a, shape_a), (dtype_b, shape_b) = a, b
    return dtype_a == dtype_b and len(shape_a) == len(shape_b) and \
        all(x is None or y is None or x == y for x, y in zip(shape_a, shape_b))


_PAIRWISE = 4  # up to this many distinct objects: `is not` tests, beyond: one set of ids


def _aliases_test(reads: list) -> str:
    """The test of an aliases guard on guard variables (`[(var, class), ...]`): reads[i]
    is reads[j] exactly when their classes are equal. Each read is its class's first
    read (`v3 is v1`), and the classes' first reads are distinct objects (`v1 is not
    v2`, or `len({id(v1), ...}) == n` for many): inline, no call."""
    firsts: dict[int, str] = {}
    tests = []
    for var, cls in reads:
        if type(cls) is not int or not var.isidentifier():
            raise ValueError(f"not an aliases read: {var!r:.50}, {cls!r:.50}")
        first = firsts.setdefault(cls, var)
        if first != var:
            tests.append(f"{var} is {first}")
    distinct = list(firsts.values())
    if len(distinct) <= _PAIRWISE:
        tests += [f"{a} is not {b}" for i, a in enumerate(distinct) for b in distinct[i + 1:]]
    else:
        tests.append(f"len({{{', '.join(f'id({v})' for v in distinct)}}}) == {len(distinct)}")
    return " and ".join(tests) or "True"


def _test(guard: Guard, var: str, const: str, type_name: str, dtype_name: str,
          env: dict) -> str:
    """The Python test of one guard on the value in `var` (expected value in `const`)."""
    kind = guard.kind
    if kind == "type":
        return f"type({var}) is {const}"
    if kind == "id":
        return f"{var} is {const}"
    if kind == "value":
        test = f"type({var}) is {type_name} and {var} == {const}"
        if _signed_zero(guard.expected):  # (-0.0 == 0.0, but it prints and divides otherwise)
            env["copysign"] = math.copysign
            test += f" and copysign(1.0, {var}) == copysign(1.0, {const})"
        return test
    if kind == "number":
        return _number_test(var, const, guard.expected)
    if kind == "len":
        return f"len({var}) == {const}"
    if kind == "keys":
        # by type too: `Color.RED == 1` (an IntEnum), `Mode.EVAL == "eval"`, `True == 1`
        if any(type(k) is tuple and holds_enum(k) for k in guard.expected):
            env["same_keys"] = _same_keys
            return f"same_keys({var}, {const})"
        env[f"{const}_types"] = [type(k) for k in guard.expected]
        return f"list({var}) == {const} and list(map(type, {var})) == {const}_types"
    if kind == "lacks":  # (attributes' absence, a tuple of names: attribute_dispatch.py)
        return " and ".join(f"{const}[{int(k)}] not in {var}"
                            for k in range(len(guard.expected))) or "True"
    if kind == "tensor":  # (`_datatype_enum()`: ~15x cheaper than comparing DTypes)
        dtype, shape = guard.expected
        env[dtype_name] = tf.as_dtype(dtype).as_datatype_enum
        return (f"type({var}) is EagerTensor and {var}._datatype_enum() == {dtype_name} and "
                + _shape_test(var, shape))
    if kind == "array":  # a numpy array fed to a segment (host_arrays.py)
        dtype, shape = guard.expected
        env[dtype_name] = np.dtype(dtype)
        env["ndarray"] = np.ndarray
        if any(d is None for d in _dims(shape)):  # (dynamic dims: any length there)
            test = " and ".join([f"len(s) == {len(shape)}"] + [
                f"s[{i}] == {int(d)}" for i, d in enumerate(_dims(shape)) if d is not None])
            return (f"type({var}) is ndarray and {var}.dtype == {dtype_name} and "
                    f"(lambda s: {test})({var}.shape)")
        return (f"type({var}) is ndarray and {var}.dtype == {dtype_name} and "
                f"{var}.shape == {_array_shape(shape)}")
    if kind == "number_list":  # (graphgen/number_lists.py)
        env["numbers_fit"] = number_lists.fits
        return f"numbers_fit({var}, {const})"
    if kind == "tensor_list":
        dtype, shape = guard.expected
        env[dtype_name] = tf.as_dtype(dtype).as_datatype_enum
        return (f"type({var}) is list and len({var}) > 0 and all(type(e) is EagerTensor"
                f" and e._datatype_enum() == {dtype_name} and {_shape_test('e', shape)} "
                f"for e in {var})")
    raise ValueError(f"unknown guard kind {kind}")


@dataclasses.dataclass
class _Group:
    """Guards of one kind and role on items of one container, checked in one loop."""

    container: Source
    rest: tuple          # the steps after the item
    members: list        # guard indices, in order
    items: list          # the item index of each member
    whole: bool = False  # members cover items 0..n-1 of a list/tuple of guarded length


_GROUPED = ("type", "id", "value", "number", "tensor")
_MIN_GROUP = 3


def _role_groups(guards: list[Guard]) -> dict:
    """first member index -> _Group, for guards that share kind, role and (except value
    guards) expected value, whose source has one int item step. A group is emitted where
    its first member was, so it is formed only if every guard on a prefix of a member's
    path (`type(args[1][3]) is Node` before `args[1][3].label`) comes before that."""
    by_expr: dict[str, list[int]] = {}
    for index, guard in enumerate(guards):
        by_expr.setdefault(guard.source.expr, []).append(index)
    candidates: dict[tuple, _Group] = {}
    for index, guard in enumerate(guards):
        steps = guard.source.steps
        items = [k for k, (op, key) in enumerate(steps) if op == "item" and type(key) is int]
        if guard.kind not in _GROUPED or len(items) != 1:
            continue
        at = items[0]
        expected = guard.expected if guard.kind != "id" else id(guard.expected)
        key = (guard.kind, guard.source.role,
               None if guard.kind == "value" else (type(expected), expected))
        try:
            hash(key)
        except TypeError:
            continue
        group = candidates.get(key)
        if group is None:
            group = candidates[key] = _Group(Source(guard.source.root, steps[:at]),
                                             steps[at + 1:], [], [])
        group.members.append(index)
        group.items.append(steps[at][1])
    groups = {}
    for group in candidates.values():
        first = group.members[0]
        if len(group.members) < _MIN_GROUP or len(set(group.items)) != len(group.items):
            continue
        if not all(i < first for m in group.members
                   for i in _prefix_guards(guards[m].source, by_expr)):
            continue
        on_container = [guards[i] for i in by_expr.get(group.container.expr, ()) if i < first]
        group.whole = group.items == list(range(len(group.items))) and \
            any(g.kind == "len" and g.expected == len(group.items) for g in on_container) and \
            any(g.kind == "type" and g.expected in (list, tuple) for g in on_container)
        groups[first] = group
    return groups


def _prefix_guards(source: Source, by_expr: dict) -> list[int]:
    """Indices of the guards on strict prefixes of `source`'s path."""
    found = []
    for k in range(len(source.steps)):
        found += by_expr.get(Source(source.root, source.steps[:k]).expr, [])
    return found


def _emit_loop(lines: list, env: dict, guards: list, group: _Group, n: int) -> None:
    """One loop over the group's items: `for k, e in enumerate(args[1]): v = e.label...`,
    returning the index of the member that fails (or raises)."""
    first = guards[group.members[0]]
    env[f"GI{n}"] = tuple(group.members)
    env[f"GE{n}"] = first.expected
    env[f"GT{n}"] = type(first.expected)
    rest = steps_code(group.rest)
    container = group.container.code()
    var = "e" if group.whole and not rest else "v"
    if first.kind == "value":
        env[f"GX{n}"] = tuple(guards[m].expected for m in group.members)
        test = f"type({var}) is type(x) and {var} == x"
        if any(_signed_zero(e) for e in env[f"GX{n}"]):
            env["copysign"] = math.copysign
            test += f" and (x != 0.0 or copysign(1.0, {var}) == copysign(1.0, x))"
    else:
        test = _test(first, var, f"GE{n}", f"GT{n}", f"GD{n}", env)
    lines.append(f"        g = {group.members[0]}")
    if group.whole:
        lines.append(f"        for k, e in enumerate({container}):")
        read = f"e{rest}"
    else:
        env[f"GK{n}"] = tuple(group.items)
        lines.append(f"        c = {container}")
        lines.append(f"        for k, i in enumerate(GK{n}):")
        read = f"c[i]{rest}"
    lines.append(f"            g = GI{n}[k]")
    if first.kind == "value":
        lines.append(f"            x = GX{n}[k]")
    if var == "v":
        lines.append(f"            v = {read}")
    lines.append(f"            if not ({test}): return g")


def _signed_zero(value) -> bool:
    return isinstance(value, (float, np.floating)) and value == 0.0


def call_guard(args: tuple, kwargs: dict) -> Guard:
    """The guard that a call passes as many positional arguments and the same keywords
    as the traced one (`f(*xs)` with one more item, `f(x, y=3.0)` where the trace used
    the default): a graph built without an argument would ignore it."""
    return Guard("call", arg(0), (len(args), tuple(sorted(kwargs))))
