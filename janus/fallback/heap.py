"""Deferred heap updates: the ledger a trace writes to, and the write-back after a run.

While a graph is traced, writes to objects and lists that live on the Python
heap go to local copies recorded here, never to the heap itself. The trace ends
with a `WriteBack`: the effects in program order (attribute writes, list
contents, prints), with tensor values as graph outputs. It is applied only after
the graph ran to completion, so a failed guard leaves the heap untouched.
"""
from __future__ import annotations

import dataclasses
import re
import sys

import tensorflow as tf

from janus.errors import ConversionError
from janus.fallback import made_objects
from janus.graphgen import formatted_text, keys
from janus.graphgen.host_arrays import HostArray
from janus.graphgen.host_scalars import HostScalar
from janus.graphgen.keyed_writes import WriteOnlyDict
from janus.graphgen.rounded import RoundedLater
from janus.graphgen.merge_paths import chosen_input
from janus.graphgen.sources import Source
from janus.graphgen.sources import evaluate as _evaluate
from janus.graphgen.sources import cell_of, namespace
from janus.graphgen.values import DynamicList, SymbolicScalar
from janus.tensors import is_tensor


def evaluate(source: Source, args: tuple, kwargs: dict, globals_: dict, cells: tuple):
    """The value at `source` for this call (`graphgen.sources.evaluate`: a getattr/getitem
    walk, no per-call namespace or `eval`)."""
    return _evaluate(source, args, kwargs, globals_, cells)


MARKER = re.compile("\x00janus(\\d+)([rsf])(.*?)\x00")
"""Stands in a string for a tensor formatted during a trace: index, conversion, spec."""


class Outputs:
    """Symbolic tensors a trace hands out of the graph, deduplicated."""

    def __init__(self):
        self.tensors: list = []
        self._index: dict[int, int] = {}

    def add(self, tensor) -> int:
        index = self._index.get(id(tensor))
        if index is None:
            index = self._index[id(tensor)] = len(self.tensors)
            self.tensors.append(tensor)
        return index


COMPOSITES = (tf.RaggedTensor, tf.SparseTensor, tf.IndexedSlices)
"""Tensors made of tensors: rebuilt from their parts (each a graph output, a constant...)."""


def skeleton(value, outputs: Outputs, tracer):
    """Describe `value` so it can be rebuilt from the graph's outputs after a run."""
    if isinstance(value, RoundedLater):  # (graphgen/rounded.py)
        return ("round", skeleton(value.value, outputs, tracer), value.digits)
    if isinstance(value, SymbolicScalar):
        return ("scalar", outputs.add(value.tensor), value.kind)
    if isinstance(value, HostScalar):  # the numpy scalar `.numpy()` gives
        return ("numpy scalar", outputs.add(value.tensor), value.kind)
    if isinstance(value, tf.Variable):
        return ("const", value)
    if isinstance(value, COMPOSITES):  # (a RaggedTensor's `numpy` is no sign it is eager)
        parts = tf.nest.flatten(value, expand_composites=True)
        if all(hasattr(t, "numpy") for t in parts):
            return ("const", value)
        return ("composite", tf.type_spec_from_value(value),
                [skeleton(t, outputs, tracer) for t in parts])
    if is_tensor(value):
        if hasattr(value, "numpy"):  # an eager tensor captured at trace time
            return ("const", value)
        source = tracer.tensor_inputs.get(id(value))
        if source is not None:  # `acc = x; return acc`: Python hands back x itself (a
            return ("source", source)  # tape watching it must see the same tensor)
        choice = chosen_input(value, lambda t: tracer.tensor_inputs.get(id(t)))
        if choice is not None:  # (`b = tf.cond(p, lambda: x, ...)`: x itself when p held)
            return ("either", outputs.add(value), outputs.add(choice[0]), tuple(choice[1]))
        return ("out", outputs.add(value))
    if isinstance(value, DynamicList):
        if value.kind is not None:  # Python numbers
            return ("numbers", outputs.add(value.stacked), value.kind)
        return ("unstack", outputs.add(value.stacked))
    if isinstance(value, HostArray) and tracer.source_of(value) is None:  # a derived array
        return ("ndarray", outputs.add(value.tensor))
    if isinstance(value, str):
        if formatted_text.holds_marker(value):  # (asked without FormattedText's refusing `in`)
            value = formatted_text.plain(value)
            slots = []
            for match in MARKER.finditer(value):
                item = tracer.formatted[int(match.group(1))]
                kind = getattr(item, "kind", None)
                slots.append((int(match.group(1)),
                              (outputs.add(getattr(item, "tensor", item)), kind)))
            return ("format", value, slots)
        return ("const", value)
    if value is None or isinstance(value, (bool, int, float, complex, bytes)):
        return ("const", value)
    source = tracer.source_of(value)
    if source is not None:
        return ("source", source)
    if type(value) in (list, tuple):
        return (type(value).__name__, [skeleton(v, outputs, tracer) for v in value])
    if is_namedtuple(value):  # (`Losses(data, reg, total)` returned: made anew per run)
        return ("namedtuple", type(value), [skeleton(v, outputs, tracer) for v in value])
    if type(value) is dict:
        for key in value:  # (a key formatted from a fed number: graphgen/keys.py)
            keys.check(key, tracer)
        return ("dict", [(k, skeleton(v, outputs, tracer)) for k, v in value.items()])
    if tracer.is_static(value) and not _holds_graph_tensor(value):
        return made_objects.skeleton(value, tracer)  # (made while tracing: F150)
    raise ConversionError(f"a new {type(value).__name__} object made inside the function "
                          "escapes it (returned or stored on the heap)")


def is_namedtuple(value) -> bool:
    """A `collections.namedtuple` (or `typing.NamedTuple`) instance holding only its fields."""
    kind = type(value)
    return isinstance(value, tuple) and kind is not tuple and \
        callable(getattr(kind, "_make", None)) and isinstance(getattr(kind, "_fields", None),
                                                               tuple) and \
        not getattr(value, "__dict__", None)


def _holds_graph_tensor(value, depth: int = 2) -> bool:
    """Whether a library object holds a tensor of the graph being traced (a
    `tf.TensorArray` written in it, say: fuzz v15): handed back as it is, it would carry
    that tensor out of its graph."""
    if isinstance(value, tf.TensorArray):
        return True
    if depth == 0 or isinstance(value, (tf.Module, tf.Variable, type)):
        return False
    try:
        attributes = list(vars(value).values())
    except TypeError:
        return False
    return any(is_tensor(v) and not hasattr(v, "numpy") or
               type(v).__module__.startswith("tensorflow") and _holds_graph_tensor(v, depth - 1)
               for v in attributes)


def rebuild(skel, results: list, env: tuple, copies: dict | None = None):
    """The value `skel` describes after a run (`results`: the graph's outputs; `copies`:
    the run's copies of objects the trace made, fallback/made_objects.py)."""
    kind = skel[0]
    if kind == "const":
        return skel[1]
    if kind == "fresh":
        return made_objects.fresh(skel[1], copies)
    if kind == "out":
        return results[skel[1]]
    if kind in ("scalar", "numpy scalar"):
        return skel[2](results[skel[1]].numpy())
    if kind == "unstack":
        return list(tf.unstack(results[skel[1]]))
    if kind == "numbers":
        return [skel[2](v) for v in results[skel[1]].numpy().tolist()]
    if kind == "ndarray":
        return results[skel[1]].numpy()
    if kind == "source":
        return evaluate(skel[1], *env)
    if kind == "either":  # (graphgen/merge_paths.py: the input it is on the path taken)
        taken = int(results[skel[2]].numpy())  # (-1: a new tensor; a loaded graph's
        return evaluate(skel[3][taken], *env) if 0 <= taken < len(skel[3]) else \
            results[skel[1]]                    # index is bounded, not trusted)
    if kind == "composite":
        return tf.nest.pack_sequence_as(skel[1], [rebuild(s, results, env, copies)
                                                  for s in skel[2]], expand_composites=True)
    if kind == "list":
        return [rebuild(s, results, env, copies) for s in skel[1]]
    if kind == "tuple":
        return tuple(rebuild(s, results, env, copies) for s in skel[1])
    if kind == "namedtuple":
        return skel[1]._make(rebuild(s, results, env, copies) for s in skel[2])
    if kind == "dict":
        return {k: rebuild(s, results, env, copies) for k, s in skel[1]}
    if kind == "round":
        return round(rebuild(skel[1], results, env, copies), skel[2])
    if kind == "format":
        text, slots = skel[1], dict(skel[2])

        def render(match):
            index, kind = slots[int(match.group(1))]
            value = results[index] if kind is None else kind(results[index].numpy())
            conv, spec = match.group(2), match.group(3)
            value = repr(value) if conv == "r" else str(value) if conv == "s" else value
            return format(value, spec)
        return MARKER.sub(render, text)
    raise ValueError(kind)


@dataclasses.dataclass
class Effect:
    kind: str  # setattr | delattr | contents | extend | setitems | setglobal | setcell |
    # print | draws | names
    source: Source | None
    name: str = ""
    payload: object = None  # skeleton(s)

    def describe(self) -> str:
        if self.kind == "setattr":
            return f"{self.source}.{self.name} = <result>"
        if self.kind == "delattr":
            return f"del {self.source}.{self.name}"
        if self.kind == "contents":
            return f"{self.source}[:] = <result>"
        if self.kind == "extend":
            return f"{self.source}.extend(<result>)"
        if self.kind in ("setglobal", "setcell"):  # (transform/global_stores.py)
            return f"{self.source} = <result>"
        if self.kind == "setitems":  # (graphgen/keyed_writes.py)
            return f"{self.source}[<key>] = <result>  # each write, in order"
        if self.kind == "names":  # (graphgen/host_state.py)
            return f"Keras names numbered: {self.payload}"
        if self.kind == "draws":  # (graphgen/host_draws.py)
            count = self.payload[1] if self.payload[0] == "const" else "<count>"
            return f"{self.source}.{self.name}({count})  # the graph's draws"
        return "print(...)"


class HeapLedger:
    """Local copies of heap state during one trace, in program order."""

    def __init__(self):
        self.attrs: dict[tuple[int, str], tuple[object, Source, object]] = {}
        self.copies: dict[int, tuple[object, Source]] = {}  # id(original) -> (copy, source)
        self.dirty: dict[int, Source] = {}  # id(copy) -> source
        # (id(module namespace), name) -> (source, value): one global however it is reached
        self.globals: dict[tuple[int, str], tuple[Source, object]] = {}
        self.cells: dict[int, tuple[Source, object]] = {}  # id(cell) -> (source, value)
        self.log: list[tuple] = []

    def mark(self) -> int:
        return len(self.log)

    def set_attr(self, obj, source: Source, name: str, value) -> None:
        self.attrs[(id(obj), name)] = (obj, source, value)
        self.log.append(("attr", id(obj), name))

    def del_attr(self, obj, source: Source, name: str) -> None:
        self.attrs[(id(obj), name)] = (obj, source, _DELETED)
        self.log.append(("attr", id(obj), name))

    def set_global(self, module: dict, name: str, source: Source, value) -> None:
        """`X = value` of a global the function declares (transform/global_stores.py), in
        `module` (the namespace: a callee of that module reads it back, whatever its
        source's spelling, `G[...]` or `MOD[...][...]`)."""
        key = (id(module), name)
        self.globals[key] = (source, value)
        self.log.append(("global", key))

    def set_cell(self, cell, source: Source, value) -> None:
        """`x = value` of a variable the function declares nonlocal (its closure's cell)."""
        self.cells[id(cell)] = (source, value)
        self.log.append(("cell", id(cell)))

    def get_cell(self, cell):
        entry = self.cells.get(id(cell))
        return _MISSING if entry is None else entry[1]

    def get_global(self, module: dict, name: str):
        entry = self.globals.get((id(module), name))
        return _MISSING if entry is None else entry[1]

    def deleted(self, obj, name: str) -> bool:
        """Whether the call deleted `obj.name` (and did not set it again)."""
        entry = self.attrs.get((id(obj), name))
        return entry is not None and entry[2] is _DELETED

    def get_attr(self, obj, name: str):
        entry = self.attrs.get((id(obj), name))
        if entry is None:
            return _MISSING
        if entry[2] is _DELETED:
            raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
        return entry[2]

    def copy_of(self, original, source: Source, make_copy):
        entry = self.copies.get(id(original))
        if entry is None:
            entry = self.copies[id(original)] = (make_copy(original), source)
        return entry[0]

    def touched(self, copy, source: Source) -> None:
        self.dirty[id(copy)] = source
        self.log.append(("contents", id(copy)))

    def print(self, args: tuple, kwargs: dict, how: str = "") -> None:
        """A print, deferred: Python's (`how` ""), or `tf.print` run eagerly ("tf")."""
        self.log.append(("print", args, kwargs, how))

    def checkpoint(self) -> tuple:
        """What `rollback` needs to forget every effect recorded from now on (the copies'
        contents included): a block traced to be thrown away (graphgen/bool_values.py)."""
        contents = {}
        for copy, _ in self.copies.values():
            if isinstance(copy, WriteOnlyDict):
                contents[id(copy)] = list(copy.writes)
                continue
            items = getattr(copy, "items", None)
            contents[id(copy)] = (list(items), list(copy.calls)) if isinstance(items, list) \
                else dict(copy) if isinstance(copy, dict) else list(copy) \
                if isinstance(copy, list) else None
        return len(self.log), dict(self.attrs), dict(self.copies), dict(self.dirty), contents, \
            dict(self.globals), dict(self.cells)

    def rollback(self, point: tuple) -> bool:
        """Back to `checkpoint()`'s state; False (nothing done) if a copy cannot be."""
        mark, attrs, copies, dirty, contents, globals_, cells = point
        if any(contents[id(c)] is None for c, _ in copies.values() if id(c) in self.dirty):
            return False
        del self.log[mark:]
        self.attrs, self.copies, self.dirty, self.globals = attrs, copies, dirty, globals_
        self.cells = cells
        for copy, _ in copies.values():
            saved = contents[id(copy)]
            if isinstance(copy, WriteOnlyDict):
                copy.writes[:] = saved
            elif isinstance(getattr(copy, "items", None), list):  # (an AppendOnlyList)
                copy.items[:], copy.calls[:] = saved
            elif isinstance(copy, dict):
                copy.clear()
                copy.update(saved)
            elif isinstance(copy, list):
                copy[:] = saved
        return True

    def finish(self, outputs: Outputs, tracer) -> list[Effect]:
        """Effects in program order; a location written twice keeps its last write."""
        last = {}
        for position, entry in enumerate(self.log):
            if entry[0] != "print":
                last[entry[:3] if entry[0] == "attr" else entry[:2]] = position
        copies = {id(c): c for c, _ in self.copies.values()}
        effects = []
        for position, entry in enumerate(self.log):
            if entry[0] == "print":
                effects.append(Effect("print", None, entry[3], payload=(
                    skeleton(entry[1], outputs, tracer), skeleton(entry[2], outputs, tracer))))
            elif last.get(entry[:3] if entry[0] == "attr" else entry[:2]) != position:
                continue
            elif entry[0] == "global":
                source, value = self.globals[entry[1]]
                effects.append(Effect("setglobal", source, entry[1][1],
                                      skeleton(value, outputs, tracer)))
            elif entry[0] == "cell":
                source, value = self.cells[entry[1]]
                effects.append(Effect("setcell", source, payload=skeleton(value, outputs,
                                                                          tracer)))
            elif entry[0] == "attr":
                obj, source, value = self.attrs[(entry[1], entry[2])]
                if value is _DELETED:
                    effects.append(Effect("delattr", source, entry[2]))
                else:
                    effects.append(Effect("setattr", source, entry[2],
                                          skeleton(value, outputs, tracer)))
            else:
                copy = copies[entry[1]]
                if isinstance(copy, WriteOnlyDict):
                    effects.append(Effect("setitems", self.dirty[entry[1]], payload=skeleton(
                        [tuple(w) for w in copy.writes], outputs, tracer)))
                    continue
                if hasattr(copy, "items") and isinstance(copy.items, list):  # AppendOnlyList
                    effects.append(Effect("extend", self.dirty[entry[1]], " ".join(copy.calls),
                                          payload=skeleton(list(copy.items), outputs, tracer)))
                    continue
                contents = dict(copy) if isinstance(copy, dict) else list(copy)
                effects.append(Effect("contents", self.dirty[entry[1]],
                                      payload=skeleton(contents, outputs, tracer)))
        return effects


_MISSING = object()
_DELETED = object()
MISSING = _MISSING
DELETED = _DELETED


def write_back(effects: list[Effect], result, results: list, env: tuple):
    """Write a successful run's effects back to the Python heap, in program order, and
    rebuild its return value (the skeleton `result`).

    Every path in them (an effect's target, a heap object a payload or the result
    refers to: `G_DICT['l']`, `s.d`) names an object of the heap as it was before the
    call, which is what the trace read; all are resolved before the first write, so an
    earlier effect (a dict cleared and refilled, an attribute rebound, a list
    reordered) cannot redirect a later one or the result.

    A KeyboardInterrupt arriving during the write-back is held until it is complete
    (the graph already updated the variables): all of the call's effects or none."""
    interrupted = None
    while True:
        try:  # (resolving writes nothing: it can start over)
            copies: dict = {}  # (one copy per object the trace made, for the whole run)
            steps = [_resolve(effect, results, env, copies) for effect in effects]
            value = rebuild(result, results, env, copies)
            break
        except KeyboardInterrupt as exc:
            interrupted = exc
    for step in steps:
        try:
            _write(*step)
        except KeyboardInterrupt as exc:
            interrupted = exc
            if step[0] in ("setattr", "contents", "setitems", "setglobal", "setcell"):
                # (idempotent: write it again)
                _write(*step)
    if interrupted is not None:
        try:
            raise interrupted
        finally:
            interrupted = None  # (its traceback holds this frame: a cycle, F441)
    return value


_STREAMS = {"<sys.stdout>": "stdout", "<sys.stderr>": "stderr"}


def named_streams(kwargs: dict) -> dict:
    """`tf.print`'s keywords with `sys.stdout`/`sys.stderr` by name (TF maps the stream
    object of its call to the process's stream: the write-back names the same)."""
    stream = kwargs.get("output_stream")
    for name, attr in _STREAMS.items():
        if stream is getattr(sys, attr):
            return {**kwargs, "output_stream": name}
    return kwargs


WRITERS: dict = {}
"""kind -> writer(payload) of the effects a lower layer does not know how to make (their
payload is plain data: "names", graphgen/host_state.py)."""


def _resolve(effect: Effect, results: list, env: tuple, copies: dict) -> tuple:
    if effect.kind in WRITERS:
        return (effect.kind, None, effect.name, effect.payload)
    if effect.kind == "print":
        args_skel, kwargs_skel = effect.payload
        return ("print", None, effect.name, (rebuild(args_skel, results, env, copies),
                                             rebuild(kwargs_skel, results, env, copies)))
    target = namespace(effect.source, env[2]) if effect.kind == "setglobal" else \
        cell_of(effect.source, env[3]) if effect.kind == "setcell" else \
        evaluate(effect.source, *env)
    payload = None if effect.kind == "delattr" else \
        rebuild(effect.payload, results, env, copies)
    return (effect.kind, target, effect.name, payload)


def _write(kind: str, target, name: str, payload) -> None:
    if kind in WRITERS:
        WRITERS[kind](payload)
    elif kind == "print" and name == "tf":  # (`tf.print`: TF's own formatting and stream)
        kwargs = dict(payload[1])
        if kwargs.get("output_stream") in _STREAMS:
            kwargs["output_stream"] = getattr(sys, _STREAMS[kwargs["output_stream"]])
        tf.print(*payload[0], **kwargs)
    elif kind == "print":
        print(*payload[0], **payload[1])
    elif kind == "setattr":
        setattr(target, name, payload)
    elif kind == "delattr":  # (absent after the call: it may have been set in it first)
        try:
            delattr(target, name)
        except AttributeError:
            pass
    elif kind == "extend":
        _append_again(target, name, payload)
    elif kind == "setitems":
        for key, value in payload:
            target[key] = value
    elif kind == "setglobal":  # (target: the module's namespace)
        target[name] = payload
    elif kind == "setcell":  # (target: the closure's cell)
        target.cell_contents = payload
    elif kind == "draws":  # the uniforms a graph used, drawn again (graphgen/host_draws.py)
        getattr(target, name)(payload)
    elif isinstance(target, dict):
        target.clear()
        target.update(payload)
    else:
        target[:] = payload


def _append_again(target: list, calls: str, values: list) -> None:
    """Add `values` to `target` by the calls the function made (`calls`: "a" an append,
    "e<n>" an extend, "+<n>" a `+=`): a list's subclass may tell them apart (Keras's
    TrackedList wraps a dict in `extend`, not in `append`)."""
    if type(target) is list or not calls:
        target.extend(values)
        return
    at = 0
    for call in calls.split():
        if call == "a":
            target.append(values[at])
            at += 1
            continue
        part = values[at:at + int(call[1:])]
        at += len(part)
        if call[0] == "e":
            target.extend(part)
        else:
            target.__iadd__(part)
