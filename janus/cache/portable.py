"""A recorded graph a later process can run without tracing it again.

A specialization is *portable* when everything its graph was built from can be found
again, by its source, in the new process and shown to be the same: variables (rebound by
their source, same dtype and shape: the graph reads and updates the new ones), modules,
library functions and classes (by name, same TensorFlow version), Keras objects (same
class and `get_config()`), and every user function traced into it (same source text).
Anything else (in-graph guards, recursion tables, other objects, captured constants)
makes it not portable: the later process generates its graph as usual.
"""
from __future__ import annotations

import base64
import dataclasses
import hashlib
import enum
import inspect
import json
import logging
import re
import sys

import tensorflow as tf
from tensorflow.python.eager import record
from tensorflow.python.framework.ops import EagerTensor
from tensorflow.python.ops.resource_variable_ops import variable_accessed

from janus.cache.record import INPUT_KINDS
from janus.cache.store import warn_once
from janus.graphgen import keras_records
from janus.graphgen.guards import Guard, GuardSet, WideInt
from janus.graphgen.sources import SourceError, UnresolvedKey, evaluate, from_record, \
    is_name, key_from_json, key_to_json

FORMAT = 2
_GUARD_KINDS = ("call", "type", "id", "value", "number", "len", "keys", "lacks", "tensor",
                "tensor_list", "aliases", "keras")
_NUMBERS = {"int": int, "float": float, "WideInt": WideInt}
_EFFECT_KINDS = ("setattr", "delattr", "contents", "extend", "setitems")
_APPENDS = re.compile(r"((a|[e+][0-9]{1,9})( (a|[e+][0-9]{1,9}))*)?")
_VALUE_TYPES = (bool, int, float, str, type(None))
log = logging.getLogger("janus.cache")


class NotPortable(Exception):
    pass


class Malformed(ValueError):
    """A recorded graph that does not follow the format (a tampered or foreign record)."""


def _require(condition, what: str) -> None:
    if not condition:
        raise Malformed(what)


def _source_hash(fn) -> str:
    return hashlib.sha256(inspect.getsource(fn).encode()).hexdigest()[:16]


def _qualified(obj) -> str:
    """`module:qualname`, as `_resolve` finds it again (a lambda's or a local's qualname,
    `<lambda>`, `f.<locals>.g`, names nothing another process can find)."""
    qualname = getattr(obj, "__qualname__", "")
    if not all(is_name(part) for part in qualname.split(".")):
        raise NotPortable(f"{obj.__module__}:{qualname} has no name another process finds")
    return f"{obj.__module__}:{qualname}"


def _resolve(path: str):
    """`module:qualname` in a module the program already imported (nothing is imported)."""
    _require(type(path) is str, "a name")
    module, _, qualname = path.partition(":")
    obj = sys.modules.get(module)
    if obj is None:
        raise LookupError(f"module {module} is not imported")
    for part in qualname.split("."):
        _require(is_name(part), f"a name: {path!r:.100}")
        obj = getattr(obj, part)
    return obj


def _tf_variable(var):
    import keras
    return var.value if isinstance(var, keras.Variable) else var


def _handle(var):
    return _tf_variable(var).handle


def _describe_identity(value) -> dict:
    import keras
    if isinstance(value, (tf.Variable, keras.Variable)):
        return {"variable": [value.dtype.name if hasattr(value.dtype, "name") else str(value.dtype),
                             list(value.shape)]}
    if inspect.ismodule(value):
        return {"module": value.__name__}
    if inspect.isfunction(value) or inspect.isclass(value) or inspect.isbuiltin(value):
        entry = {"named": _qualified(value)}
        if inspect.isfunction(value) and not value.__module__.startswith(("tensorflow", "keras")):
            entry["source"] = _source_hash(value)
        return entry
    if isinstance(value, (keras.layers.Layer, keras.optimizers.Optimizer)):
        return {"keras": _qualified(type(value)),
                "config": _unnamed(json.loads(json.dumps(value.get_config(), sort_keys=True)))}
    if not type(value).__module__.split(".")[0] in ("tensorflow", "keras", "numpy", "builtins"):
        # an instance of a user class (a tf.Module model, say): what the graph read from
        # it has guards of its own, and its methods' sources are compared
        return {"instance": _qualified(type(value))}
    raise NotPortable(f"a {type(value).__name__} object")


def _unnamed(config):
    """A Keras config without its `name`s: Keras numbers them per process in order of
    creation (`sgd`, `sgd_1`, ...), so the same model made after another one in a later
    process has other names; they name variables, and a graph finds its variables by
    source, not by name (everything else of the config is compared)."""
    if isinstance(config, dict):
        return {k: _unnamed(v) for k, v in config.items() if k != "name"}
    if isinstance(config, list):
        return [_unnamed(v) for v in config]
    return config


def _case(case) -> list:
    """A recursion Case as JSON (classes by qualified name)."""
    tests = [[path, {"type": _qualified(e[1])} if isinstance(e, tuple) else e]
             for path, e in case.tests]
    inputs = [[path, kind.__name__] for path, kind in case.inputs]
    return [tests, inputs, list(case.children), case.result]


def _uncase(data):
    from janus.recursion.cases import Case

    tests, inputs, children, result = data

    def path(p):
        _require(type(p) is str and all(is_name(x) and not x.startswith("__")
                                        for x in p.split(".")), "an attribute path")
        return p

    def expected(e):
        if isinstance(e, dict):
            _require(set(e) == {"type"}, "a type test")
            cls = _resolve(e["type"])
            _require(isinstance(cls, type), "a class")
            return ("type", cls)
        _require(type(e) in (bool, str, type(None)), "a structural value")
        return e

    return Case(tuple((path(p), expected(e)) for p, e in tests),
                tuple((path(p), {"int": int, "float": float}[k]) for p, k in inputs),
                tuple(path(p) for p in children), _spec(result))


def _spec(s):
    """A recursion Case's result spec from JSON."""
    if isinstance(s, list) and len(s) == 2 and isinstance(s[0], str):
        _require(isinstance(s[1], list) and
                 all(d is None or type(d) is int for d in s[1]), "a shape")
        return (s[0], tuple(s[1]))
    _require(isinstance(s, list), "a result spec")
    return tuple(_spec(x) for x in s)


def _key(key):
    """A dict key as JSON: a Python value exactly (JSON would write an IntEnum member as
    its int, a str-mixin one as its text, an np.float64 as a float: F427), an Enum member
    by name (sources.key_to_json); NotPortable otherwise."""
    if type(key) in _VALUE_TYPES:
        return key
    if isinstance(key, enum.Enum):
        return key_to_json(key)   # (SourceError: a local class's, a combined Flag)
    raise NotPortable(f"a {type(key).__name__} key")


def _unkey(data):
    """A dict key `_key` wrote."""
    if isinstance(data, dict):
        key = key_from_json(data)
        _require(isinstance(key, enum.Enum), "an Enum member")
        return key
    _require(type(data) in _VALUE_TYPES, "a dict key")
    return data


def _skeleton(skel):
    """A result/effect skeleton as JSON, or NotPortable."""
    kind = skel[0]
    if kind == "const":
        if type(skel[1]) in _VALUE_TYPES:  # (exactly: np.float64 is a float, F38)
            return ["const", skel[1]]
        if isinstance(skel[1], enum.Enum):  # (a key written: `counts[Color.RED] = n`)
            return ["const", _key(skel[1])]
        raise NotPortable(f"a constant {type(skel[1]).__name__} in the results")
    if kind in ("out", "unstack"):
        return [kind, skel[1]]
    if kind in ("scalar", "numbers"):
        return [kind, skel[1], skel[2].__name__]
    if kind == "source":
        return ["source", skel[1].to_json()]
    if kind == "either":  # (graphgen/merge_paths.py)
        return ["either", skel[1], skel[2], [source.to_json() for source in skel[3]]]
    if kind in ("list", "tuple"):
        return [kind, [_skeleton(s) for s in skel[1]]]
    if kind == "dict":
        return ["dict", [[_key(k), _skeleton(s)] for k, s in skel[1]]]
    raise NotPortable(f"a {kind} in the results")


def _hashable_key(skel) -> bool:
    """Whether a skeleton rebuilds into a dict key (a number, text, a tuple of them)."""
    return skel[0] in ("const", "scalar") or \
        skel[0] == "tuple" and all(_hashable_key(part) for part in skel[1])


def _unskeleton(data):
    _require(isinstance(data, list) and len(data) in (2, 3, 4), "a result skeleton")
    kind = data[0]
    if kind == "either":
        _require(len(data) == 4 and type(data[1]) is int and type(data[2]) is int and
                 isinstance(data[3], list) and data[3], "two output indices and sources")
        return ("either", data[1], data[2], tuple(from_record(s) for s in data[3]))
    _require(len(data) in (2, 3), "a result skeleton")
    if kind == "const":
        _require(len(data) == 2, "a constant")
        return ("const", _unkey(data[1]))
    if kind in ("out", "unstack"):
        _require(type(data[1]) is int and len(data) == 2, "an output index")
        return (kind, data[1])
    if kind in ("scalar", "numbers"):
        _require(type(data[1]) is int and len(data) == 3 and
                 data[2] in ("int", "float", "bool"), "an output index and a number type")
        return (kind, data[1], {"int": int, "float": float, "bool": bool}[data[2]])
    if kind == "source":
        return ("source", from_record(data[1]))
    if kind in ("list", "tuple"):
        return (kind, [_unskeleton(s) for s in data[1]])
    if kind == "dict":
        _require(isinstance(data[1], list) and
                 all(isinstance(e, list) and len(e) == 2 for e in data[1]), "dict items")
        return ("dict", [(_unkey(k), _unskeleton(s)) for k, s in data[1]])
    raise Malformed(f"a {kind!r:.50} in the results")


def export(spec) -> dict | None:
    """The portable description of `spec`, or None (and why is not an error)."""
    if spec.portable is not None:  # itself loaded from a record
        return spec.portable
    try:
        data = _export(spec)
        _parse(json.loads(json.dumps(data)))   # what a later process would refuse: not written
        return data
    except (NotPortable, TypeError, ValueError, OSError, AttributeError, KeyError):
        return None


def _variable_handles(obj, source, handles: dict) -> None:
    """The variables of a Keras layer or optimizer at `source`, found by position."""
    import keras
    if isinstance(obj, (keras.layers.Layer, keras.optimizers.Optimizer)):
        for k, var in enumerate(obj.variables):
            handles.setdefault(id(_handle(var)), source.attr("variables").item(k))


def _export(spec) -> dict:
    if spec.trial is not None:
        raise NotPortable("an XLA trial under way")
    if getattr(spec, "random_states", ()):  # (found again only by tracing: F43)
        raise NotPortable("the graph draws from a tf.random.Generator")
    if getattr(spec, "draws", None):  # (the RNG's state is the process's)
        raise NotPortable("the graph draws from a numpy RNG")
    guards, handles = [], {}
    for guard in spec.guards.guards:
        expected = guard.expected
        if guard.kind == "id":
            expected = _describe_identity(expected)
            if "variable" in expected:
                handles[id(_handle(guard.expected))] = guard.source
        elif guard.kind == "type":
            expected = _qualified(expected)
        elif guard.kind == "number":
            expected = expected.__name__
        elif guard.kind == "keys":
            expected = [_key(k) for k in expected]
        elif guard.kind in ("tensor", "tensor_list", "call"):
            expected = [expected[0], list(expected[1])]
        elif guard.kind == "array":
            raise NotPortable("a numpy array fed to a graph segment")
        elif guard.kind == "number_list":
            raise NotPortable("a list of Python numbers fed to the graph")
        elif guard.kind == "value" and isinstance(expected, enum.Enum):
            expected = _key(expected)   # (`Color.RED`, read from its class: by name)
        elif guard.kind == "value" and type(expected) not in _VALUE_TYPES:
            # (JSON would bring an np.float64 back as a float, a guard on another type: F38)
            raise NotPortable(f"a guard on a {type(expected).__name__} value")
        elif guard.kind == "aliases":
            if any(source.is_process_local for source, _ in expected):
                raise NotPortable("a closure cell of another function")
            expected = [[source.to_json(), cls] for source, cls in expected]
        elif guard.kind == "keras":  # (graphgen/keras_state.py)
            for source, owner in expected.owners:
                _variable_handles(owner, source, handles)
            expected = keras_records.export(expected)
            if expected is None:
                raise NotPortable("reads Keras state of an object janus cannot locate")
        if guard.source.is_process_local:
            raise NotPortable("a closure cell of another function")
        guards.append([guard.kind, guard.source.to_json(), expected, guard.where])
    for guard in spec.guards.guards:  # variables inside guarded Keras objects (optimizer state)
        if guard.kind == "id":
            _variable_handles(guard.expected, guard.source, handles)
    captures = []
    for tensor in spec.concrete.captured_inputs:
        source = handles.get(id(tensor))
        if source is None:
            raise NotPortable("the graph captures a value janus cannot find again")
        captures.append(source.to_json())
    graph = spec.concrete.graph
    graph_def = graph.as_graph_def()
    check_ops(graph_def)
    effects = []
    for effect in spec.effects:
        if effect.kind == "print":
            raise NotPortable("prints")
        if effect.kind not in _EFFECT_KINDS:  # (a closure's cell, the graph's draws...)
            raise NotPortable(f"an effect of kind {effect.kind}")
        effects.append([effect.kind, effect.source.to_json(), effect.name,
                        _skeleton(effect.payload) if effect.payload is not None else None])
    functions = {}
    for converted in getattr(spec, "functions", ()):
        original = converted.original
        if "<locals>" in original.__qualname__:
            raise NotPortable("a nested function")
        functions[_qualified(original)] = _source_hash(original)
    return {
        "format": FORMAT,
        "guards": guards,
        "inputs": [[s.to_json(), kind, dtype, list(shape)]
                   for s, kind, (dtype, shape) in spec.inputs],
        "captures": captures,
        "input_names": [t.name for t in graph.inputs],
        "output_names": [t.name for t in graph.outputs],
        "visible_outputs": spec.visible_outputs,  # (then dead ends: gradient_exact)
        "control_outputs": [op.name for op in graph.control_outputs],
        "in_graph": [[g.index, g.function, g.expected, dataclasses.asdict(g.site)]
                     for g in spec.in_graph],
        "tables": [[function, [r.to_json() for r in roots], [_case(c) for c in cases]]
                   for function, (roots, cases) in spec.tables.items()],
        "subgraphs": [[g.function, g.node_index] for g in spec.subgraphs],
        "result": _skeleton(spec.result),
        "effects": effects,
        "functions": functions,
        "graph": base64.b64encode(graph_def.SerializeToString()).decode("ascii"),
    }


# Ops that reach outside the graph (files, Python callbacks, debug dumps, summaries). A
# recorded graph holding one is not reused, however it is sealed: it is generated again
# from the user's own code instead. (Defense in depth: the seal already keeps out graphs
# this user's janus did not write.)
_OUTSIDE_OPS = frozenset({
    "PyFunc", "PyFuncStateless", "EagerPyFunc", "ReadFile", "WriteFile", "MatchingFiles",
    "ImmutableConst", "MergeV2Checkpoints", "ShardedFilename", "ShardedFilespec",
    "TFRecordDataset", "TFRecordDatasetV2", "TextLineDataset", "FixedLengthRecordDataset",
    "FixedLengthRecordDatasetV2", "LoadDataset", "SnapshotDataset", "SnapshotDatasetV2",
    "CacheDataset", "CacheDatasetV2", "ExperimentalSqlDataset", "SqlDataset"})
_OUTSIDE_PREFIXES = ("Save", "Restore", "Write", "Debug", "CreateSummary", "ImportEvent",
                     "FlushSummary", "CloseSummary")


def check_ops(graph_def) -> None:
    """NotPortable if the graph (or a function of its library) has an op of _OUTSIDE_OPS or
    prints to anything but the standard streams."""
    nodes = list(graph_def.node)
    for fn in graph_def.library.function:
        nodes += list(fn.node_def)
    for node in nodes:
        if node.op in _OUTSIDE_OPS or node.op.startswith(_OUTSIDE_PREFIXES):
            raise NotPortable(f"the graph has a {node.op} op")
        if node.op == "PrintV2" and "output_stream" in node.attr and \
                node.attr["output_stream"].s.decode("utf-8", "replace") not in \
                ("stderr", "stdout", "log(info)", "log(warning)", "log(error)"):
            raise NotPortable("the graph prints to a file")


class _ImportedGraph:
    """A recorded graph imported into this process, with its variables rebound."""

    def __init__(self, data: dict, handles: list, specs: list, variables: list = ()):
        graph_def = tf.compat.v1.GraphDef.FromString(base64.b64decode(data["graph"]))
        check_ops(graph_def)
        names, outputs = data["input_names"], data["output_names"]

        def importer(*tensors):
            return tf.graph_util.import_graph_def(
                graph_def, input_map=dict(zip(names, tensors)), return_elements=outputs, name="")

        wrapped = tf.compat.v1.wrap_function(importer, specs)
        fetches = [wrapped.graph.get_tensor_by_name(n) for n in outputs] + \
            [wrapped.graph.get_operation_by_name(n) for n in data["control_outputs"]]
        self.function = wrapped.prune(feeds=list(wrapped.graph.inputs), fetches=fetches)
        self.graph = self.function.graph
        self.handles = handles
        self.variables = [_tf_variable(v) for v in variables]  # behind `handles`, in order
        self.count = len(outputs)

    def flat_parts(self):
        """(function, arguments after the inputs, {id(handle): variable}): what an XLA
        variant of this graph needs (graphgen/xla.py)."""
        return self.function, list(self.handles), \
            {id(h): v for h, v in zip(self.handles, self.variables)}

    def __call__(self, *inputs):
        # the feed hands over tensors of the traced dtypes and shapes (graphgen/calls.py):
        # called flat, as a graph of this process is (no per-input conversion or binding;
        # the structured signature would never bind, and TF formats every input into that
        # error before trying the flat one: 65 ms per call for a tree batch's node table)
        inputs = [x if type(x) is EagerTensor else tf.convert_to_tensor(x) for x in inputs]
        if record.could_possibly_record():
            # its variables are inputs here, not the graph's own: a gradient tape learns
            # they were read only if told, as a traced graph tells it (F53: a warm graph
            # under a tape gave None gradients)
            for variable in self.variables:
                variable_accessed(variable)
        return list(self.function._call_flat(  # noqa: SLF001
            [*inputs, *self.handles], self.function.captured_inputs)[:self.count])


def _parse(data: dict) -> dict:
    """Every part of a recorded graph, validated (Malformed/SourceError otherwise) before
    anything of it touches this process's heap. Sources become validated paths."""
    _require(isinstance(data, dict) and data.get("format") == FORMAT, "a recorded graph")
    functions = data["functions"]
    _require(isinstance(functions, dict) and
             all(type(d) is str for d in functions.values()), "function hashes")
    guards = []
    for kind, source, expected, where in data["guards"]:
        _require(kind in _GUARD_KINDS and type(where) is str, "a guard")
        if kind == "call":
            _require(isinstance(expected, list) and len(expected) == 2 and
                     type(expected[0]) is int and expected[0] >= 0 and
                     isinstance(expected[1], list) and
                     all(type(k) is str for k in expected[1]), "a call's arguments")
            expected = (expected[0], tuple(expected[1]))
        elif kind == "value":
            expected = _unkey(expected)
        elif kind == "len":
            _require(type(expected) is int, "a length")
        elif kind == "keys":
            _require(isinstance(expected, list), "dict keys")
            expected = [_unkey(k) for k in expected]
        elif kind == "type":
            _require(type(expected) is str, "a class name")
        elif kind == "lacks":
            _require(isinstance(expected, list) and all(type(n) is str for n in expected),
                     "attribute names")
            expected = tuple(expected)
        elif kind == "number":
            _require(expected in _NUMBERS, "a number type")
            expected = _NUMBERS[expected]
        elif kind == "id":
            _require(isinstance(expected, dict), "an identity")
        elif kind == "keras":
            _require(isinstance(expected, dict) and
                     {"owners", "reads"} <= set(expected) <=
                     {"owners", "reads", "settings", "containers"} and
                     isinstance(expected["reads"], list) and all(
                         isinstance(r, list) and len(r) == 3 and type(r[0]) is int and
                         0 <= r[0] < len(expected["owners"]) and keras_records.is_what(r[1])
                         for r in expected["reads"]) and
                     isinstance(expected.get("settings", []), list) and
                     all(keras_records.is_setting(r) for r in expected.get("settings", [])) and
                     isinstance(expected.get("containers", []), list) and
                     all(keras_records.is_container(r) for r in expected.get("containers", [])),
                     "Keras reads")
            expected = ([from_record(o) for o in expected["owners"]], expected["reads"],
                        expected.get("settings", []), expected.get("containers", []))
        elif kind == "aliases":
            _require(isinstance(expected, list) and len(expected) >= 2 and
                     all(isinstance(e, list) and len(e) == 2 and type(e[1]) is int and
                         0 <= e[1] < len(expected) for e in expected), "tensor aliases")
            expected = tuple((from_record(e[0]), e[1]) for e in expected)
        else:
            _require(isinstance(expected, list) and len(expected) == 2 and
                     type(expected[0]) is str and isinstance(expected[1], list) and
                     all(d is None or type(d) is int for d in expected[1]), "a tensor spec")
            expected = (expected[0], tuple(expected[1]))
        guards.append((kind, from_record(source), expected, where))
    inputs = []
    for source, kind, dtype, shape in data["inputs"]:
        _require(kind in INPUT_KINDS and type(dtype) is str and
                 isinstance(shape, list) and all(d is None or type(d) is int for d in shape),
                 "a graph input")
        inputs.append((from_record(source), kind, (dtype, tuple(shape))))
    captures = [from_record(c) for c in data["captures"]]
    for name in ("input_names", "output_names", "control_outputs"):
        _require(isinstance(data[name], list) and all(type(n) is str for n in data[name]),
                 name)
    _require(type(data["graph"]) is str, "a graph")
    visible = data.get("visible_outputs")
    _require(visible is None or type(visible) is int and
             0 <= visible <= len(data["output_names"]), "the count of visible outputs")
    from janus.transform.sites import Site
    in_graph = []
    for index, function, expected, site in data.get("in_graph", []):
        _require(type(index) is int and type(function) is str and isinstance(site, dict) and
                 set(site) == {f.name for f in dataclasses.fields(Site)}, "an in-graph guard")
        in_graph.append((index, function, expected, Site(**site)))
    tables = {}
    for function, roots, cases in data.get("tables", []):
        _require(type(function) is str, "a table")
        tables[function] = (tuple(from_record(r) for r in roots),
                            tuple(_uncase(c) for c in cases))
    node_index = dict(data.get("subgraphs", []))
    _require(all(type(k) is str and type(v) is int for k, v in node_index.items()), "subgraphs")
    effects = []
    for kind, source, name, payload in data["effects"]:
        _require(kind in _EFFECT_KINDS and type(name) is str, "an effect")
        if kind in ("setattr", "delattr"):
            _require(is_name(name) and not name.startswith("__"), "an attribute name")
        if kind == "extend":
            _require(_APPENDS.fullmatch(name) is not None, "the calls of an append")
        payload = _unskeleton(payload) if payload else None
        if kind == "setitems":
            _require(payload is not None and payload[0] == "list" and
                     all(w[0] == "tuple" and len(w[1]) == 2 and _hashable_key(w[1][0])
                         for w in payload[1]), "keyed writes")
        effects.append((kind, from_record(source), name, payload))
    return {"functions": functions, "guards": guards, "inputs": inputs, "captures": captures,
            "in_graph": in_graph, "tables": tables, "node_index": node_index,
            "effects": effects, "result": _unskeleton(data["result"]), "visible": visible}


def load(data: dict, args: tuple, kwargs: dict, env: tuple, spec_id: int, plan, converted):
    """A Specialization from a recorded graph, checked against this call; None if it
    does not fit (then janus generates one as usual). A record that does not parse is
    one warning, then the same."""
    from janus.fallback.heap import Effect
    from janus.graphgen.guards import InGraphGuard
    from janus.graphgen.specialize import Specialization, _compile_feed
    from janus.recursion.subgraph import SubGraph

    try:
        parsed = _parse(data)
    except UnresolvedKey as exc:  # (an Enum key of a module not imported: not malformed)
        log.debug("janus cache: a recorded graph not used: %s", exc)
        return None
    except (Malformed, SourceError, KeyError, TypeError, ValueError, LookupError) as exc:
        warn_once(f"janus cache: ignoring a malformed recorded graph "
                  f"({type(exc).__name__}: {str(exc)[:200]}); generating it instead")
        return None
    try:
        for path, digest in parsed["functions"].items():
            if _source_hash(_resolve(path)) != digest:
                return None
        guards = []
        for kind, source, expected, where in parsed["guards"]:
            if kind == "id":
                value = evaluate(source, *env)
                if _describe_identity(value) != expected:
                    return None
                expected = value
            elif kind == "type":
                expected = _resolve(expected)
                if not isinstance(expected, type):
                    return None
            elif kind == "keras":
                owners = [(owner, evaluate(owner, *env)) for owner in expected[0]]
                expected = keras_records.reload(owners, *expected[1:])
                if expected is None:
                    return None
            guards.append(Guard(kind, source, expected, where))
        guard_set = GuardSet(guards, env[2], env[3])
        if guard_set.check(args, kwargs) != -1:
            return None
        inputs = parsed["inputs"]
        variables = [evaluate(source, *env) for source in parsed["captures"]]
        handles = [_handle(v) for v in variables]
        specs = [tf.TensorSpec(shape, dtype) for _, _, (dtype, shape) in inputs] + \
            [tf.TensorSpec([], tf.resource) for _ in handles]
        graph = _ImportedGraph(data, handles, specs, variables)
    except Exception:  # noqa: BLE001 - anything off: generate instead
        return None
    in_graph = [InGraphGuard(index, site, function, expected)
                for index, function, expected, site in parsed["in_graph"]]
    tables = parsed["tables"]
    try:
        subgraphs = tuple(SubGraph(fn, parsed["node_index"][fn], cases)
                          for fn, (_, cases) in tables.items())
        feed = _compile_feed(inputs, env[2], env[3], tables, guards)
        feed(args, kwargs)  # the node tables of this call must build (known node structures)
    except Exception:  # noqa: BLE001 - a structure the recorded graph does not cover
        return None
    effects = [Effect(kind, source, name, payload)
               for kind, source, name, payload in parsed["effects"]]
    return Specialization(
        id=spec_id, plan=plan, guards=guard_set, in_graph=in_graph, inputs=inputs, concrete=graph,
        feed=feed, result=parsed["result"], effects=effects, generation_time=0.0,
        converted=converted, portable=data, subgraphs=subgraphs, tables=tables,
        visible_outputs=parsed["visible"])
