"""Where a value came from, relative to a call: `args[0].state`, `G['W']`, ...

A source is a small grammar, not text: a *root* and a tuple of *steps*.

    root   ("arg", 0)                 args[0]            an argument of the call
           ("kwarg", "lr")            kwargs['lr']       a keyword argument
           ("global", "W")            G['W']             a global of the jitted function
           ("module", "m.rnn", "tf")  MOD['m.rnn']['tf'] a global of another (imported) module
           ("closure", 1)             C[1].cell_contents a closure cell of the jitted function
           ("cell", 4242)             CELL[4242].cell_contents  a cell registered by this process
           ("table", "fn", "roots")   <table fn roots>   a node-table input (fed, never read)
    steps  ("attr", "state")          .state             an identifier, never a keyword
           ("item", 0)                [0]                int, str, bool, None, finite float,
                                                         bytes, an Enum member, or tuples
                                                         of those

Sources are immutable, hashable and compare by `expr`, the familiar text, which is
rendered from the validated parts (so it is also valid Python for generated guards
and feeds; `code()` re-checks the parts before any text reaches generated code).
`evaluate()` walks the path with getattr/getitem: nothing is ever `eval`-ed.

Records on disk carry sources as `to_json()` data; `from_record()` reads that or, for
older text records, parses the text strictly (only name/attribute/subscript/constant
chains over the known roots). A source read from disk names modules only by name: they
are looked up among modules the program already imported, never imported.

An Enum member key (`by_split[Split.TRAIN]`) is the member itself, compared by Python's
own hash and == when the path is walked (so `d[1]` and `d[Color.RED]` of an IntEnum are
one entry, as in Python). Generated code reads it from the process-wide table KEY
(`[KEY['Split.TRAIN']]`); a record names it by module, qualname and member name
(`enum_key`), found again only in modules the program already imported.
"""
from __future__ import annotations

import ast
import enum
import functools
import keyword
import math
import sys
import types
import unicodedata

from janus.errors import ConversionError

_KEY_SCALARS = (int, str, bool, type(None), bytes)


class SourceError(ValueError):
    """A path that is not in the grammar (a malformed or tampered record, say)."""


class UnnamedKey(ConversionError, SourceError):
    """A trace read a container by a key no path can name (a user object, a Reference, a
    NaN, an Enum member whose class defines its own == or hash): a limit of janus's
    guards, so the line runs in Python."""


class UnresolvedKey(SourceError, LookupError):
    """A record names an Enum member this process does not have (its module is not
    imported, or holds no such member): the record is not used, and is not malformed."""


def is_name(name) -> bool:
    """An identifier that renders as itself: `.name` in generated code reads `name`."""
    return (type(name) is str and name.isidentifier() and not keyword.iskeyword(name)
            and (name.isascii() or unicodedata.normalize("NFKC", name) == name))


def is_key(key) -> bool:
    """A dict/list key whose repr is a Python literal that evaluates back to it."""
    kind = type(key)
    if kind in _KEY_SCALARS:
        return True
    if kind is float:
        return math.isfinite(key)
    if kind is tuple:
        return all(is_key(k) for k in key)
    return isinstance(key, enum.Enum) and _plain_equality(kind)


@functools.lru_cache(maxsize=256)
def _plain_equality(cls: type) -> bool:
    """Whether the hash and == of `cls`'s members are enum's or a builtin mixin's (int,
    str...): a guard hashing such a key runs none of the program's code."""
    return all(c.__module__ in ("enum", "builtins") or
               ("__eq__" not in vars(c) and "__hash__" not in vars(c)) for c in cls.__mro__)


def holds_enum(key) -> bool:
    """An Enum member, or a tuple holding one: a key `==` alone does not tell apart
    (`Color.RED == 1` for an IntEnum)."""
    if type(key) is tuple:
        return any(holds_enum(k) for k in key)
    return isinstance(key, enum.Enum)


def same_key(a, b) -> bool:
    """`a == b` of the same types, part by part (`1` is not `Color.RED`, nor `True`)."""
    if type(a) is not type(b):
        return False
    if type(a) is tuple:
        return len(a) == len(b) and all(same_key(x, y) for x, y in zip(a, b))
    return a == b


ENUM_KEYS: dict[str, enum.Enum] = {}
"""`'Split.TRAIN'` -> that member: how generated code reads an Enum key (`KEY[...]`). A
member of another class of the same qualname is `'Split.TRAIN@<id>'` (each kept here)."""


def _enum_code(member) -> str:
    text = f"{type(member).__qualname__}.{member.name}"
    if ENUM_KEYS.setdefault(text, member) is not member:
        text = f"{text}@{id(member)}"
        ENUM_KEYS.setdefault(text, member)
    return f"KEY[{str.__repr__(text)}]"


def _key_code(key) -> str:
    """A key as generated code: its repr (a literal), Enum members through `KEY`."""
    if type(key) is tuple and holds_enum(key):
        return "(" + "".join(_key_code(k) + ", " for k in key) + ")"
    if isinstance(key, enum.Enum):
        return _enum_code(key)
    return repr(key)


def enum_key(module, qualname, name) -> enum.Enum:
    """The member `name` of the Enum class `module:qualname`, from a module the program
    already imported (nothing is imported; only class dicts are read, no code runs);
    UnresolvedKey if there is none, SourceError for parts that are not names."""
    if not all(type(part) is str for part in (module, qualname, name)) or \
            not all(is_name(part) and not part.startswith("__") for part in
                    qualname.split(".") + [name]) or \
            not all(is_name(part) for part in module.split(".")):
        raise SourceError(f"not an Enum member's name: {module!r:.100}:{qualname!r:.100}")
    obj = sys.modules.get(module)
    if obj is None:
        raise UnresolvedKey(f"module {module} is not imported")
    for part in qualname.split("."):
        obj = vars(obj).get(part) if isinstance(obj, (types.ModuleType, type)) else None
        if obj is None:
            raise UnresolvedKey(f"{module} has no {qualname}")
    if not (isinstance(obj, type) and issubclass(obj, enum.Enum)):
        raise UnresolvedKey(f"{module}.{qualname} is not an Enum class")
    member = vars(obj).get("_member_map_", {}).get(name)
    if type(member) is not obj or member.name != name or not is_key(member):
        raise UnresolvedKey(f"{module}.{qualname} has no member {name}")
    return member


_ROOT_FIELDS = {"arg": (int,), "kwarg": (str,), "global": (str,), "module": (str, str),
                "closure": (int,), "cell": (int,), "table": (str, str)}


def _check_root(root) -> None:
    if type(root) is not tuple or not root:
        raise SourceError(f"not a source root: {root!r}")
    kind, fields = root[0], root[1:]
    expected = _ROOT_FIELDS.get(kind) if type(kind) is str else None
    if expected is None or len(fields) != len(expected) or \
            any(type(f) is not t for f, t in zip(fields, expected)):
        raise SourceError(f"not a source root: {root!r}")
    if kind in ("arg", "closure") and fields[0] < 0:
        raise SourceError(f"not a source root: {root!r}")


def _check_step(step) -> None:
    if type(step) is tuple and len(step) == 2:
        if step[0] == "attr" and is_name(step[1]):
            return
        if step[0] == "item" and is_key(step[1]):
            return
    raise SourceError(f"not a source step: {step!r}")


def _render_root(root: tuple) -> str:
    kind = root[0]
    if kind == "arg":
        return f"args[{int(root[1])}]"
    if kind == "kwarg":
        return f"kwargs[{str.__repr__(root[1])}]"
    if kind == "global":
        return f"G[{str.__repr__(root[1])}]"
    if kind == "module":
        return f"MOD[{str.__repr__(root[1])}][{str.__repr__(root[2])}]"
    if kind == "closure":
        return f"C[{int(root[1])}].cell_contents"
    if kind == "cell":
        return f"CELL[{int(root[1])}].cell_contents"
    return f"<table {root[1]} {root[2]}>"


def _render_step(op: str, value) -> str:
    return f".{value}" if op == "attr" else f"[{_key_code(value)}]"


def _render(root: tuple, steps: tuple) -> str:
    return _render_root(root) + "".join(_render_step(op, value) for op, value in steps)


class Source:
    """A validated, immutable path from a root to a value."""

    __slots__ = ("root", "steps", "expr")

    def __init__(self, root: tuple, steps: tuple = ()):
        if isinstance(root, str):
            raise TypeError("Source takes a (root, steps) path; use Source.parse(text)")
        steps = tuple(steps)
        _check_root(root)
        for step in steps:
            _check_step(step)
        object.__setattr__(self, "root", root)
        object.__setattr__(self, "steps", steps)
        object.__setattr__(self, "expr", _render(root, steps))

    def __setattr__(self, name, value):
        raise AttributeError("a Source is immutable")

    def __delattr__(self, name):
        raise AttributeError("a Source is immutable")

    def __eq__(self, other) -> bool:
        return type(other) is Source and other.expr == self.expr

    def __hash__(self) -> int:
        return hash(self.expr)

    def __repr__(self) -> str:
        return f"Source({self.expr})"

    def __str__(self) -> str:
        return self.expr

    def __reduce__(self):
        return (Source, (self.root, self.steps))

    def _then(self, step: tuple) -> "Source":
        """This path one step longer (only the new step needs checking)."""
        _check_step(step)
        source = object.__new__(Source)
        object.__setattr__(source, "root", self.root)
        object.__setattr__(source, "steps", self.steps + (step,))
        object.__setattr__(source, "expr", self.expr + _render_step(*step))
        return source

    def attr(self, name: str) -> "Source":
        return self._then(("attr", name))

    def item(self, key) -> "Source":
        if not is_key(key):
            raise UnnamedKey(f"reads a container by a {type(key).__name__} key: janus's "
                             "guards name keys that are ints, strings, bools, bytes, None, "
                             "Enum members (of enum's own == and hash) and tuples of them")
        return self._then(("item", key))

    @property
    def role(self) -> str:
        """The path with every int item index as `[*]`: `args[1][*].label` for
        `args[1][3].label`. Values of one role are the same field of the items of one
        container (what janus relaxes together). Never rendered into code."""
        if not any(op == "item" and type(key) is int for op, key in self.steps):
            return self.expr
        return _render_root(self.root) + "".join(
            "[*]" if op == "item" and type(key) is int else _render_step(op, key)
            for op, key in self.steps)

    @property
    def is_table(self) -> bool:
        return self.root[0] == "table"

    @property
    def is_process_local(self) -> bool:
        """Rooted in a cell registered by this process (meaningless in another one)."""
        return self.root[0] == "cell"

    def code(self) -> str:
        """The Python expression for generated code (over args, kwargs, G, C, MOD, CELL),
        rendered again from re-checked parts."""
        _check_root(self.root)
        if self.root[0] == "table":
            raise SourceError(f"{self.expr} is fed, not read")
        for step in self.steps:
            _check_step(step)
        return _render(self.root, self.steps)

    def parent(self) -> "Source":
        """The path without its last step (a source with steps only)."""
        return Source(self.root, self.steps[:-1])

    def last_step_code(self) -> str:
        """Generated code of the last step alone (`.name`, `[key]`), from re-checked parts:
        appended to the parent's value (guards.py reads each prefix once)."""
        step = self.steps[-1]
        _check_step(step)
        return _render_step(*step)

    # -- records
    def to_json(self) -> dict:
        return {"root": list(self.root), "steps": [[op, key_to_json(v) if op == "item" else v]
                                                   for op, v in self.steps]}

    @staticmethod
    def from_json(data, allow_local: bool = False) -> "Source":
        if not isinstance(data, dict) or set(data) != {"root", "steps"} or \
                not isinstance(data["root"], list) or not isinstance(data["steps"], list):
            raise SourceError(f"not a recorded source: {data!r:.200}")
        steps = []
        for step in data["steps"]:
            if not isinstance(step, list) or len(step) != 2:
                raise SourceError(f"not a source step: {step!r:.200}")
            op, value = step
            steps.append((op, key_from_json(value) if op == "item" else value))
        source = Source(tuple(data["root"]), tuple(steps))
        _check_foreign(source, allow_local, _RECORDED_SPECIALS)
        return source

    @staticmethod
    def parse(text: str, allow_local: bool = False) -> "Source":
        """The source an (older) text record names; SourceError for anything outside the
        grammar. No part of `text` is evaluated."""
        if not isinstance(text, str) or len(text) > 4096:
            raise SourceError("not a source expression")
        if text.startswith("<table "):
            parts = text[1:-1].split(" ")
            if len(parts) != 3 or not text.endswith(">"):
                raise SourceError(f"not a table source: {text!r:.200}")
            return Source(("table", parts[1], parts[2]))
        try:
            node = ast.parse(text, mode="eval").body
        except (SyntaxError, ValueError):
            raise SourceError(f"not a source expression: {text!r:.200}") from None
        steps = []
        while not isinstance(node, ast.Name):
            if isinstance(node, ast.Attribute):
                steps.append(("attr", node.attr))
                node = node.value
            elif isinstance(node, ast.Subscript):
                steps.append(("item", _literal(node.slice)))
                node = node.value
            else:
                raise SourceError(f"not a source expression: {text!r:.200}")
        steps.reverse()
        source = _from_chain(node.id, steps, text)
        _check_foreign(source, allow_local)
        if source.expr != text.strip():
            raise SourceError(f"not in canonical form: {text!r:.200}")
        return source


def steps_code(steps: tuple) -> str:
    """`.label[0]`: steps rendered for generated code, each re-checked."""
    for step in steps:
        _check_step(step)
    return "".join(_render_step(op, value) for op, value in steps)


def from_record(value, allow_local: bool = False) -> Source:
    """A source as a record on disk holds it: structured (`to_json`) or older text."""
    if isinstance(value, str):
        return Source.parse(value, allow_local)
    return Source.from_json(value, allow_local)


_RECORDED_SPECIALS = frozenset({"__class__", "__call__", "__func__", "__self__",
                                "__defaults__", "__kwdefaults__", "__dict__"})
"""Special attributes a recorded guard may read (a method's function, a class's `__call__`,
a function's defaults, an instance's own dict: graphgen/attributes.py, defaults.py); none
of them runs code of the record's choosing."""


def _check_foreign(source: Source, allow_local: bool, specials: frozenset = frozenset()
                   ) -> None:
    """Extra rules for sources read from disk: no process-local cells, no dunder attributes
    but `specials` (structured records: `_RECORDED_SPECIALS`; older text ones: none)."""
    if source.is_process_local and not allow_local:
        raise SourceError(f"{source.expr} names a cell of another process")
    for op, value in source.steps:
        if op == "attr" and value.startswith("__") and value.endswith("__") and \
                value not in specials:
            raise SourceError(f"{source.expr}: special attributes are not read from records")


def key_to_json(key):
    """A key as JSON data (an Enum member by module, qualname and name: SourceError if
    another process could not find it so, a local class's or a combined Flag's)."""
    if type(key) is tuple:
        return {"tuple": [key_to_json(k) for k in key]}
    if type(key) is bytes:
        return {"bytes": key.hex()}
    if isinstance(key, enum.Enum):
        cls = type(key)
        entry = [cls.__module__, cls.__qualname__, key.name]
        try:
            found = enum_key(*entry)
        except SourceError:
            found = None
        if found is not key:
            raise SourceError(f"the key {key!r:.100} has no name another process finds")
        return {"enum": entry}
    return key


def key_from_json(value):
    """The key `key_to_json` wrote (SourceError if malformed, UnresolvedKey if an Enum
    member it names is not in this process)."""
    if isinstance(value, dict):
        if set(value) == {"tuple"} and isinstance(value["tuple"], list):
            return tuple(key_from_json(v) for v in value["tuple"])
        if set(value) == {"enum"} and isinstance(value["enum"], list) and \
                len(value["enum"]) == 3:
            return enum_key(*value["enum"])
        if set(value) == {"bytes"} and isinstance(value["bytes"], str):
            try:
                return bytes.fromhex(value["bytes"])
            except ValueError:
                pass
        raise SourceError(f"not a recorded key: {value!r:.200}")
    if not is_key(value):
        raise SourceError(f"not a recorded key: {value!r:.200}")
    return value



def _literal(node):
    """The key a subscript names: a constant, a negated number, or a tuple of keys."""
    if isinstance(node, ast.Constant) and is_key(node.value):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and \
            isinstance(node.operand, ast.Constant) and type(node.operand.value) in (int, float):
        value = -node.operand.value
        if is_key(value):
            return value
    if isinstance(node, ast.Tuple) and isinstance(node.ctx, ast.Load):
        return tuple(_literal(e) for e in node.elts)
    raise SourceError("a subscript that is not a literal key")


def _from_chain(name: str, steps: list, text: str) -> Source:
    def item(k, kind):
        if len(steps) > k and steps[k][0] == "item" and type(steps[k][1]) is kind:
            return steps[k][1]
        raise SourceError(f"not a source expression: {text!r:.200}")

    def cell_contents(k):
        if len(steps) > k and steps[k] == ("attr", "cell_contents"):
            return
        raise SourceError(f"not a source expression: {text!r:.200}")

    if name == "args":
        return Source(("arg", item(0, int)), steps[1:])
    if name == "kwargs":
        return Source(("kwarg", item(0, str)), steps[1:])
    if name == "G":
        return Source(("global", item(0, str)), steps[1:])
    if name == "MOD":
        return Source(("module", item(0, str), item(1, str)), steps[2:])
    if name in ("C", "CELL"):
        index = item(0, int)
        cell_contents(1)
        return Source(("closure" if name == "C" else "cell", index), steps[2:])
    raise SourceError(f"not a source expression: {text!r:.200}")


def arg(index: int) -> Source:
    return Source(("arg", index))


def kwarg(name: str) -> Source:
    return Source(("kwarg", name))


def table(function: str, name: str) -> Source:
    """A node-table input of a SubGraph run (built by the feed, never read from the heap)."""
    return Source(("table", function, name))


# Globals and closure cells of *other* functions (callees in other modules, say) are
# reached through these process-wide tables: `MOD['models.rnn']['tf']`, `CELL[k]`.
class _ModuleGlobals(dict):
    """module name -> its globals: registered by tracing, else an already imported module.
    Never imports: a module a record names is used only if the program imported it."""

    def __missing__(self, name: str) -> dict:
        module = sys.modules.get(name) if type(name) is str else None
        if module is None:
            raise KeyError(f"module {name!r} is not imported")
        return module.__dict__


MODULES: dict[str, dict] = _ModuleGlobals()
CELLS: dict[int, object] = {}


def global_(name: str, module: str | None = None, namespace: dict | None = None) -> Source:
    """A global of the jitted function (`G[...]`) or of another module (`MOD[...][...]`)."""
    if module is None:
        return Source(("global", name))
    if namespace is not None:
        if MODULES.setdefault(module, namespace) is not namespace:
            # (another module of that name: one made at run time, `types.ModuleType("cfg")`
            # twice; each namespace its own entry, kept alive here: F233)
            module = f"{module}@{id(namespace)}"
            MODULES.setdefault(module, namespace)
    return Source(("module", module, name))


def namespace(source: Source, globals_: dict) -> dict:
    """The module namespace a global's source names (`G[...]`: the function's own)."""
    if source.steps or source.root[0] not in ("global", "module"):
        raise SourceError(f"not a global: {source.expr}")
    return globals_ if source.root[0] == "global" else MODULES[source.root[1]]


def closure(index: int, cell=None) -> Source:
    """A closure variable of the jitted function (`C[i]`) or of another function's cell."""
    if cell is None:
        return Source(("closure", index))
    CELLS.setdefault(id(cell), cell)
    return Source(("cell", id(cell)))


def cell_of(source: Source, cells: tuple):
    """The closure cell a variable's source names (`C[i]`: the jitted function's own)."""
    if source.steps or source.root[0] not in ("closure", "cell"):
        raise SourceError(f"not a closure variable: {source.expr}")
    return cells[source.root[1]] if source.root[0] == "closure" else CELLS[source.root[1]]


def environment(globals_: dict, cells: tuple) -> dict:
    """The names generated code may use for roots, besides `args` and `kwargs`."""
    return {"G": globals_, "C": cells, "MOD": MODULES, "CELL": CELLS, "KEY": ENUM_KEYS}


def _root_value(root: tuple, args: tuple, kwargs: dict, globals_: dict, cells: tuple):
    kind = root[0]
    if kind == "arg":
        return args[root[1]]
    if kind == "kwarg":
        return kwargs[root[1]]
    if kind == "global":
        return globals_[root[1]]
    if kind == "module":
        return MODULES[root[1]][root[2]]
    if kind == "closure":
        return cells[root[1]].cell_contents
    if kind == "cell":
        return CELLS[root[1]].cell_contents
    raise SourceError("a table source is fed, not read")


def evaluate(source: Source, args: tuple, kwargs: dict, globals_: dict, cells: tuple):
    """The value at `source` for this call: getattr/getitem along the path."""
    value = _root_value(source.root, args, kwargs, globals_, cells)
    for op, step in source.steps:
        value = getattr(value, step) if op == "attr" else value[step]
    return value
