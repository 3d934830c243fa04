"""The on-disk record of a specialization, and the file primitives under it.

Every file is written atomically, privately and sealed (files.py). A file that fails
to unseal or parse (a disk error, a hand edit, an older format, another user's file)
is reported as `CorruptEntry` and the caller skips it with one warning.

A record is plain JSON, readable without janus or TensorFlow:
    function: qualname, module, filename, first line, key
    source_hash, versions (tensorflow, janus + build hash, python; TF's numpy settings
        where not the default: numpy_modes.describe)
    plan, guards (kind, source, expected, where, readable text), in-graph guards,
    heap effects, graph inputs, the generated source (ast.unparse), the function's
    source text, the op histogram, the structure of the function library
    (call sites: While/If bodies, PartitionedCall, SubGraph/InvokeOp), and the
    name + sha256 of the graph file (GraphDef as pbtxt, function library included).
"""
from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
import os
import re
import sys
import time

from janus.cache.files import (FORMAT, CorruptEntry, atomic_write, read_bytes, seal,
                               unseal)
from janus.graphgen.sources import Source

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
# Ops that call into another function of the library (or will, once graphgen emits them).
CALL_OPS = ("SubGraph", "InvokeOp", "PartitionedCall", "StatefulPartitionedCall", "While",
            "StatelessWhile", "If", "StatelessIf", "Case", "StatelessCase")
# How a recorded graph input is read (graphgen/specialize._compile_feed): a tensor, a list
# stacked, a recursion's node table, a list's length.
INPUT_KINDS = ("tensor", "stack", "table", "length")


# -- files (see files.py: private, owned, sealed, atomic) -------------------------------

def write_json(path: str, value) -> None:
    atomic_write(path, seal(value))


def read_json(path: str, kind: str | None = None) -> dict:
    """Load a sealed JSON record; CorruptEntry if it is unreadable, torn, modified, not
    ours or of another kind; FileNotFoundError if there is none."""
    try:
        data = read_bytes(path)
    except (FileNotFoundError, NotADirectoryError):
        raise  # no entry (or no usable cache directory): not a corrupt one
    except CorruptEntry:
        raise
    except OSError as exc:
        raise CorruptEntry(f"{path}: unreadable ({exc.strerror or exc})") from None
    value = unseal(data, path)
    if kind is not None and value.get("kind") != kind:
        raise CorruptEntry(f"{path}: expected a {kind} record, found {value.get('kind')!r}")
    return value


_SPEC_FIELDS = {"id": str, "function": dict, "versions": dict, "plan": list, "guards": list,
                "in_graph_guards": list, "effects": list, "inputs": list, "generated_source": str,
                "op_histogram": dict, "structure": dict, "graph_file": str, "graph_sha256": str}
_FUNCTION_FIELDS = ("key", "qualname", "module", "filename", "first_line", "source_hash")


def check_spec(record: dict, sid: str) -> str:
    """What is wrong with a specialization record ('' if nothing)."""
    for name, kind in _SPEC_FIELDS.items():
        if not isinstance(record.get(name), kind):
            return f"field {name!r} missing or not a {kind.__name__}"
    if record["id"] != sid:
        return f"its id {record['id']!r} does not match its file name"
    if record["graph_file"] != f"{sid}.pbtxt":
        return f"its graph file {record['graph_file'][:80]!r} is not {sid}.pbtxt"
    missing = [f for f in _FUNCTION_FIELDS if f not in record["function"]]
    if missing:
        return f"function fields missing: {', '.join(missing)}"
    if not all(isinstance(g, dict) and "text" in g and "expected" in g for g in record["guards"]):
        return "malformed guards"
    return _nested_types(record)


def _nested_types(record: dict) -> str:
    """What is wrong inside the fields readers take apart (`janus cache list/show/stats`
    sums the op counts, joins the plan, counts the library functions)."""
    function = record["function"]
    if not all(isinstance(function[f], int if f == "first_line" else str)
               for f in _FUNCTION_FIELDS):
        return "malformed function identity"
    if not all(isinstance(step, str) for step in record["plan"]):
        return "malformed plan"
    if not all(isinstance(k, str) and type(v) is int for k, v in
               record["op_histogram"].items()):
        return "malformed op histogram"
    functions = record["structure"].get("functions", [])
    if not isinstance(functions, list):
        return "malformed structure"
    created = record.get("created", 0)
    if type(created) not in (int, float):
        return "malformed creation time"
    return ""


def check_index(index: dict) -> str:
    """What is wrong with a function index ('' if nothing)."""
    for name in ("counters", "specializations"):
        if not isinstance(index.get(name), dict):
            return f"field {name!r} missing or not an object"
    if not all(isinstance(v, dict) for v in index["specializations"].values()):
        return "malformed specialization counters"
    if "function" in index and not isinstance(index["function"], dict):
        return "malformed function identity"
    return ""


def sha256(text: str | bytes) -> str:
    if isinstance(text, str):
        text = text.encode("utf-8")
    return hashlib.sha256(text).hexdigest()


# -- versions --------------------------------------------------------------------------

_build_hash: str | None = None


def janus_build_hash() -> str:
    """A hash of janus's own sources: a record made by other janus code is not reused."""
    global _build_hash
    if _build_hash is None:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        paths = []
        for directory, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            paths += [os.path.join(directory, name) for name in files if name.endswith(".py")]
        digest = hashlib.sha256()
        for path in sorted(paths):
            relative = os.path.relpath(path, root)
            if relative in ("cli.py", "logs.py"):
                continue
            digest.update(relative.encode())
            with open(path, "rb") as f:
                digest.update(f.read())
        _build_hash = digest.hexdigest()[:12]
    return _build_hash


def versions() -> dict:
    tf = sys.modules.get("tensorflow")
    janus = sys.modules.get("janus")
    found = {
        "tensorflow": getattr(tf, "__version__", "?"),
        "janus": getattr(janus, "__version__", "?"),
        "janus_build": janus_build_hash(),
        "python": "%d.%d" % sys.version_info[:2],
    }
    numpy_modes = sys.modules.get("janus.numpy_modes")  # (loaded with TensorFlow)
    described = numpy_modes.describe() if numpy_modes is not None else ""
    if described:  # TF's numpy behavior, which graphs traced under it bake in (F411)
        found["tf_numpy"] = described
    return found


# -- identities ------------------------------------------------------------------------

def normalize(text: str) -> str:
    """Readable text without process-local addresses (`<Variable at 0x7f..>` -> `<Variable>`)."""
    return _ADDRESS.sub("", text)


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.]+", "_", text).strip("_")[:40] or "fn"


def function_key(module: str, qualname: str, filename: str) -> str:
    digest = sha256(f"{module}\0{qualname}\0{filename}")[:8]
    return f"{slug(qualname)}-{digest}"


@dataclasses.dataclass(frozen=True)
class FunctionIdentity:
    key: str
    qualname: str
    module: str
    filename: str
    first_line: int
    source_hash: str

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


def identify(jit, converted=None) -> FunctionIdentity:
    fn = getattr(jit, "fn", jit)
    qualname = getattr(jit, "__qualname__", None) or getattr(fn, "__qualname__", repr(fn))
    module = getattr(fn, "__module__", None) or "?"
    code = getattr(fn, "__code__", None)
    filename = getattr(code, "co_filename", "?")
    first_line = getattr(code, "co_firstlineno", 0)
    if converted is not None:
        text = converted.source.text
        first_line = converted.source.first_line
        filename = converted.source.filename or filename
    else:
        text = f"<no source: {filename}:{first_line}>"
    return FunctionIdentity(function_key(module, qualname, filename), qualname, module,
                            filename, first_line, sha256(text)[:16])


# -- a tagged JSON codec for plans and profiles ----------------------------------------
#
# Exactly invertible for plain data (scalars, tuples, lists, sets, dicts, Counters),
# sources (as validated paths), janus's own data objects (rebuilt field by field, no
# constructor runs; only classes of the modules in DATA_MODULES), janus enums, and
# references to classes (looked up by name in modules the program already imported:
# never imported, never called). Anything else (a tensor, a user object) raises
# TypeError: such state is not recorded.

DATA_MODULES = ("janus.profiler.", "janus.graphgen.plan", "janus.recursion.cases",
                "janus.transform.sites")


def _data_class(module: str) -> bool:
    return any(module == m or (m.endswith(".") and module.startswith(m)) for m in DATA_MODULES)


def encode(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, type):
        return {"cls": [value.__module__, value.__qualname__]}
    if type(value) is Source:
        return {"src": value.to_json()}
    if isinstance(value, tuple) and type(value) is tuple:
        return {"t": [encode(v) for v in value]}
    if type(value) is list:
        return [encode(v) for v in value]
    if isinstance(value, (set, frozenset)) and type(value) in (set, frozenset):
        items = [encode(v) for v in value]
        items.sort(key=lambda v: json.dumps(v, sort_keys=True))
        return {"fs" if isinstance(value, frozenset) else "s": items}
    if type(value) is collections.Counter:
        return {"c": [[encode(k), encode(v)] for k, v in value.items()]}
    if type(value) is dict:
        return {"d": [[encode(k), encode(v)] for k, v in value.items()]}
    if type(value) is collections.deque:
        return {"q": [[encode(v) for v in value], value.maxlen]}
    cls = type(value)
    module = getattr(cls, "__module__", "")
    if module.startswith("janus."):
        import enum
        if isinstance(value, enum.Enum):
            return {"enum": [module, cls.__qualname__, value.name]}
        state = getattr(value, "__dict__", None)
        if state is not None and not hasattr(cls, "__slots__") and _data_class(module):
            return {"obj": [module, cls.__qualname__,
                            [[k, encode(v)] for k, v in sorted(state.items())]]}
    raise TypeError(f"cannot record a {cls.__module__}.{cls.__qualname__} in the cache")


def _lookup(module: str, qualname: str):
    """A class by name, from a module the program already imported (nothing is imported)."""
    if type(module) is not str or type(qualname) is not str:
        raise ValueError("not a class reference")
    mod = sys.modules.get(module)
    if mod is None:
        raise ValueError(f"module {module} is not imported")
    obj = mod
    for part in qualname.split("."):
        if part.startswith("__") or part == "<locals>":
            raise ValueError(f"{module}.{qualname} is not a class reference")
        obj = getattr(obj, part)
    if not isinstance(obj, type):
        raise ValueError(f"{module}.{qualname} is not a class")
    return obj


def decode(value):
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) != 1:
        raise ValueError("not a tagged value")
    (tag, items), = value.items()
    if tag == "t":
        return tuple(decode(v) for v in items)
    if tag == "fs":
        return frozenset(decode(v) for v in items)
    if tag == "s":
        return {decode(v) for v in items}
    if tag == "c":
        return collections.Counter({decode(k): decode(v) for k, v in items})
    if tag == "d":
        return {decode(k): decode(v) for k, v in items}
    if tag == "q":
        return collections.deque((decode(v) for v in items[0]), maxlen=items[1])
    if tag == "src":
        return Source.from_json(items)
    if tag == "cls":
        return _lookup(*items)
    if tag == "enum":
        module, qualname, name = items
        if not module.startswith("janus."):
            raise ValueError(f"not a janus enum: {module}.{qualname}")
        return _lookup(module, qualname)[name]
    if tag == "obj":
        module, qualname, fields = items
        if not _data_class(module):
            raise ValueError(f"not a janus data class: {module}.{qualname}")
        cls = _lookup(module, qualname)
        if cls.__module__ != module or hasattr(cls, "__slots__"):
            raise ValueError(f"not a janus data class: {module}.{qualname}")
        obj = cls.__new__(cls)
        for name, field in fields:
            if type(name) is not str or not name.isidentifier() or name.startswith("__"):
                raise ValueError(f"not a field name: {name!r:.100}")
            object.__setattr__(obj, name, decode(field))
        return obj
    raise ValueError(f"unknown tag {tag!r}")


def encode_dataclass(obj) -> dict:
    return {f.name: encode(getattr(obj, f.name)) for f in dataclasses.fields(obj)}


def decode_dataclass(cls, data: dict):
    """`cls` from its encoded fields; a field added since (one with a default) takes its
    default, any other difference is refused."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    missing = [name for name in set(fields) - set(data)
               if fields[name].default is dataclasses.MISSING and
               fields[name].default_factory is dataclasses.MISSING]
    if set(data) - set(fields) or missing:
        raise ValueError(f"{cls.__name__} fields changed: "
                         f"{sorted((set(data) - set(fields)) | set(missing))}")
    return cls(**{k: decode(v) for k, v in data.items()})


# -- what a specialization looks like on disk ------------------------------------------

def _expected_text(kind: str, expected) -> str:
    if kind == "type":
        return f"{getattr(expected, '__module__', '?')}.{getattr(expected, '__qualname__', expected)}"
    if kind in ("tensor", "tensor_list", "array"):
        dtype, shape = expected
        return f"{dtype}[{', '.join('?' if d is None else str(d) for d in shape)}]"
    if kind == "id":
        name = getattr(expected, "name", None) if not isinstance(expected, type(sys)) else None
        kind_name = type(expected).__name__
        if isinstance(expected, type(sys)):
            return f"the module {expected.__name__} (identity)"
        shape = getattr(expected, "shape", None)
        extra = f" {name!r}" if isinstance(name, str) else ""
        extra += f" shape={list(shape)}" if shape is not None and hasattr(shape, "__iter__") else ""
        return f"the same {kind_name}{extra} object (identity, process-local)"
    text = repr(expected)
    return text if len(text) <= 200 else text[:197] + "..."


def guard_record(guard) -> dict:
    return {"kind": guard.kind, "source": str(guard.source),
            "expected": _expected_text(guard.kind, guard.expected),
            "where": guard.where, "text": normalize(guard.describe())}


def in_graph_record(guard) -> dict:
    site = guard.site
    return {"text": guard.describe(), "function": guard.function,
            "site": getattr(site, "text", ""), "kind": getattr(site, "kind", ""),
            "where": f"{getattr(site, 'filename', '?')}:{getattr(site, 'lineno', 0)}",
            "expected": repr(guard.expected)}


def op_histogram(graph_def) -> dict:
    counts = collections.Counter(node.op for node in graph_def.node)
    for fn in graph_def.library.function:
        counts.update(node.op for node in fn.node_def)
    return dict(counts.most_common())


def graph_structure(graph_def) -> dict:
    """The function library as a tree: which node of which graph calls which function."""
    names = {fn.signature.name for fn in graph_def.library.function}
    calls = []

    def scan(owner: str, nodes):
        for node in nodes:
            callees = []
            if node.op in names:
                callees.append(("op", node.op))
            for attr_name, attr in sorted(node.attr.items()):
                if attr.HasField("func") and attr.func.name:
                    callees.append((attr_name, attr.func.name))
                elif attr.HasField("list"):
                    callees += [(attr_name, f.name) for f in attr.list.func if f.name]
            if callees or node.op in CALL_OPS:
                calls.append({"graph": owner, "node": node.name, "op": node.op,
                              "callees": [{"attr": a, "function": f} for a, f in callees]})

    scan("<main>", graph_def.node)
    functions = []
    for fn in graph_def.library.function:
        scan(fn.signature.name, fn.node_def)
        functions.append({"name": fn.signature.name, "nodes": len(fn.node_def),
                          "inputs": len(fn.signature.input_arg),
                          "outputs": len(fn.signature.output_arg)})
    return {"nodes": len(graph_def.node), "functions": functions, "calls": calls}


def graph_text(graph_def) -> str:
    from google.protobuf import text_format
    return text_format.MessageToString(graph_def)


def subgraph_record(subgraph) -> dict:
    """A recursive function run as a SubGraph: its cases and InvokeOps, readable."""
    cases = list(getattr(subgraph, "cases", ()))
    ops = list(getattr(subgraph, "invoke_ops", ()))
    return {"function": str(getattr(subgraph, "function", "?")),
            "node_index": getattr(subgraph, "node_index", None),
            "cases": [c.describe() if hasattr(c, "describe") else repr(c) for c in cases],
            "invoke_ops": [o.describe() if hasattr(o, "describe") else repr(o) for o in ops],
            "text": subgraph.describe() if hasattr(subgraph, "describe") else repr(subgraph)}


def spec_content_id(identity: FunctionIdentity, vers: dict, plan_data, guards: list,
                    in_graph: list, inputs: list, subgraphs: list = ()) -> str:
    """Same function + source + versions + plan + guards (addresses aside) = same id."""
    blob = json.dumps([identity.key, identity.source_hash, vers, plan_data,
                       [g["text"] for g in guards], [g["text"] for g in in_graph], inputs,
                       [normalize(s["text"]) for s in subgraphs]],
                      sort_keys=True)
    return sha256(blob)[:12]


def _spec_parts(jit, spec):
    converted = getattr(spec, "converted", None)
    identity = identify(jit, converted)
    vers = versions()
    guards = [guard_record(g) for g in spec.guards.guards]
    in_graph = [in_graph_record(g) for g in spec.in_graph]
    inputs = []
    for source, kind, (dtype, shape) in spec.inputs:
        inputs.append({"source": str(source), "kind": kind, "dtype": str(dtype),
                       "shape": [None if d is None else int(d) for d in shape]})
    try:
        plan_data = encode_dataclass(spec.plan)
    except TypeError:
        plan_data = None
    subgraphs = [subgraph_record(s) for s in getattr(spec, "subgraphs", ()) or ()]
    sid = spec_content_id(identity, vers, plan_data, guards, in_graph, inputs, subgraphs)
    return converted, identity, vers, guards, in_graph, inputs, plan_data, subgraphs, sid


def spec_id(jit, spec) -> str:
    """The record id `build_spec_record` gives `spec` (without rendering its graph)."""
    return _spec_parts(jit, spec)[-1]


def build_spec_record(jit, spec) -> tuple[dict, str]:
    """(record, graph pbtxt) for a Specialization. Reads only immutable parts of `spec`."""
    converted, identity, vers, guards, in_graph, inputs, plan_data, subgraphs, sid = \
        _spec_parts(jit, spec)
    graph_def = spec.concrete.graph.as_graph_def()
    text = graph_text(graph_def)
    source = getattr(converted, "source", None)
    record = {
        "format": FORMAT, "kind": "specialization", "id": sid,
        "function": identity.as_dict(), "versions": vers,
        "created": time.time(),
        "plan": list(spec.plan.describe()), "plan_data": plan_data,
        "guards": guards, "in_graph_guards": in_graph,
        "effects": [normalize(e.describe()) for e in spec.effects],
        "inputs": inputs,
        "generated_source": getattr(converted, "code", "") or "",
        "source": {"text": source.text, "first_line": source.first_line,
                   "filename": source.filename} if source is not None else None,
        "op_histogram": op_histogram(graph_def),
        "structure": graph_structure(graph_def),
        "subgraphs": subgraphs,
        "generation_time": float(spec.generation_time),
        "graph_file": f"{sid}.pbtxt", "graph_sha256": sha256(text),
        "graph_bytes": len(text.encode("utf-8")),
    }
    return record, text
