"""A tf.Module's attributes changed behind `__setattr__` (F265), found by the next call
of a graph that read the module's variable lists.

graphgen/module_epoch.py counts the changes `AutoTrackable.__setattr__`/`__delattr__`
and the wrappers' mutators make; writes past them move no epoch:

    object.__setattr__(net, "b", tf.Variable(10.0))
    vars(net).update(b=v)   net.__dict__["b"] = v   del net.__dict__["w"]
    net.__dict__["ws"] = []; net.ws.append(v)          (a plain list: no wrapper counts it)

So a graph that read `net.trainable_variables` (keras_state.module_variables) watches the
attribute dicts of the modules that list was walked from (`Watch`): per module, its
length and the identity of each attribute's value (tf.Module's own bookkeeping, `_name`,
`_name_scope` and `_self_*`, excepted), and the items of a plain list or dict one holds:

    len(D0) != 15 or D0['embedding'] is not V0_0 or D0['cell'] is not V0_1 or ...

compiled in one test per graph (`Watch.check`: the LSTM LM's two modules, eight
attributes: ~0.3 us a call).
The hooks keep a watched dict's values current (`wrote`: the LSTM LM writes
`self.hidden = state` every call), so the test fails only on a write past them: then the
epoch moves (every graph that read a list of those modules reads it again:
keras_state.KerasReads.recheck) and the dict is taken as it is now.
"""
from __future__ import annotations

import weakref
from operator import is_

import tensorflow as tf

_MISSING = object()  # (what `D.get` gives for a watched attribute deleted)
_BOOKKEEPING = frozenset({"_name", "_name_scope"})  # (with `_self_*`: tf.Module's own)
_bump = None  # set by `install` (keras_epoch.bump)
_watched: dict = {}  # id(module) -> weakref to its Seen (a Seen holds its module, so no
# id is another module's while it is in here; a plain dict: `wrote` runs on every write)


def install(bump) -> None:
    """Move the epoch with `bump` when a watched dict changed behind the hooks."""
    global _bump
    _bump = bump


def _watched_key(name) -> bool:
    return not (type(name) is str and (name in _BOOKKEEPING or name.startswith("_self_")))


def _plain_containers(value, found: list, depth: int = 0) -> list:
    """The plain lists and dicts in `value` and the plain lists, tuples and dicts it holds:
    what no hook counts a change of (a tf wrapper's items are wrapped when it takes them,
    and its mutators are counted: graphgen/module_epoch.py)."""
    if depth > 4 or not isinstance(value, (list, tuple, dict)) or \
            isinstance(value, _wrappers()):
        return found
    if not isinstance(value, tuple):
        found.append(value)
    for item in list(value.values() if isinstance(value, dict) else value):
        _plain_containers(item, found, depth + 1)
    return found


_WRAPPERS: tuple = ()


def _wrappers() -> tuple:
    global _WRAPPERS
    if not _WRAPPERS:
        from tensorflow.python.trackable import data_structures
        _WRAPPERS = (data_structures.TrackableDataStructure,)
    return _WRAPPERS


def _items(container) -> tuple:
    if isinstance(container, dict):
        return tuple(container) + tuple(container.values())
    return tuple(container)


class Seen:
    """One module's attribute dict as last seen (its watched attributes' values, the items
    of the plain lists and dicts it holds), shared by the `Watch`es that test it."""

    __slots__ = ("module", "dict", "length", "keys", "index", "values", "containers",
                 "items", "users", "__weakref__")

    def __init__(self, module):
        self.module = module
        self.users: dict = {}  # id(Watch) -> (weakref to it, its names of our values)
        self.take()

    def take(self) -> None:
        """Take the dict as it is now (the watches testing it are compiled again)."""
        d = self.dict = vars(self.module)
        self.length = len(d)
        self.keys = [k for k in d if _watched_key(k)]
        self.index = {k: i for i, k in enumerate(self.keys)}
        self.values = [d[k] for k in self.keys]
        self.containers = [c for v in self.values for c in _plain_containers(v, [])]
        self.items = [_items(c) for c in self.containers]
        for ref, _ in list(self.users.values()):
            watch = ref()
            if watch is not None:
                watch.compile()

    def users_gone(self, ref) -> None:
        """A Watch testing this dict is gone (its graph was dropped)."""
        for key, (user, _) in list(self.users.items()):
            if user is ref:
                del self.users[key]

    def changed(self) -> bool:
        """A write past the hooks (the compiled test found it): move the epoch, take the
        dict as it is now."""
        if _bump is not None:
            _bump()
        self.take()
        return False

    def _same_but(self, name) -> bool:
        """The dict is as seen, but maybe for attribute `name` (just written by a hook)."""
        d = self.dict
        return all(d.get(key, _MISSING) is value
                   for key, value in zip(self.keys, self.values) if key != name) and \
            all(len(c) == len(items) and all(map(is_, _items(c), items))
                for c, items in zip(self.containers, self.items))

    def wrote(self, name) -> None:
        """`AutoTrackable.__setattr__`/`__delattr__` wrote attribute `name` (and moved the
        epoch if that changed the variables): note its value, keep watching the rest."""
        d = self.dict
        i = self.index.get(name)
        if len(d) == self.length:
            if i is not None:
                value = d.get(name, _MISSING)
                if value is not _MISSING and d.get("_self_setattr_tracking", True):
                    self.values[i] = value  # (tracked: a list or dict stored is wrapped)
                    for ref, names in self.users.values():
                        watch = ref()
                        if watch is not None:
                            watch.env[names[i]] = value
                    return
            elif not _watched_key(name):
                return
        if vars(self.module) is not d or not self._same_but(name):
            if _bump is not None:  # (`m.__dict__ = {...}`, or a write past the hooks)
                _bump()
        self.take()


def wrote(obj, name) -> None:
    """After a hook wrote `obj.name`: keep a watched dict's values current."""
    ref = _watched.get(id(obj))
    if ref is not None:
        found = ref()
        if found is not None and found.module is obj:
            found.wrote(name)


def seen(module) -> Seen:
    """The module's watched dict (one per module, shared by the graphs that read it)."""
    ref = _watched.get(id(module))
    found = ref() if ref is not None else None
    if found is None or found.module is not module:
        found = Seen(module)
        key = id(module)
        _watched[key] = weakref.ref(found, lambda r, key=key: _forget(key, r))
    return found


def _forget(key: int, ref) -> None:
    if _watched.get(key) is ref:
        del _watched[key]


class Watch:
    """The dicts of the modules a graph read variable lists of (`roots`) and of their
    submodules: `check()` holds while none changed behind the hooks (compiled; a change
    moves the epoch and fails)."""

    __slots__ = ("roots", "check", "env", "_seen", "__weakref__")

    def __init__(self, modules: list):
        self.roots = list({id(m): m for m in modules}.values())
        self._seen: list = []
        self.refresh()

    def refresh(self) -> None:
        """Watch the modules the roots' walks reach now."""
        walked: dict = {}
        for root in self.roots:
            for module in (root, *root._flatten(predicate=_is_module)):
                walked.setdefault(id(module), module)
        for old in self._seen:
            old.users.pop(id(self), None)
        self._seen = [seen(m) for m in walked.values()]
        self.compile()

    def compile(self) -> None:
        """The test, from the seen dicts (`len(D0) != 15 or D0['cell'] is not V0_1 or ...`:
        a change calls its Seen's `changed`)."""
        env = {"is_": is_}
        lines = ["def check():"]
        for k, found in enumerate(self._seen):
            env[f"D{k}"], env[f"S{k}"] = found.dict, found
            found.users[id(self)] = (weakref.ref(self, found.users_gone),
                                     tuple(f"V{k}_{i}" for i in range(len(found.keys))))
            tests = [f"len(D{k}) != {found.length}"]
            for i, (key, value) in enumerate(zip(found.keys, found.values)):
                env[f"N{k}_{i}"], env[f"V{k}_{i}"] = key, value
                name = repr(key) if type(key) is str and key.isidentifier() else f"N{k}_{i}"
                tests.append(f"D{k}[{name}] is not V{k}_{i}")
            for i, (container, items) in enumerate(zip(found.containers, found.items)):
                env[f"C{k}_{i}"], env[f"I{k}_{i}"] = container, items
                listed = f"(*C{k}_{i}, *C{k}_{i}.values())" if isinstance(container, dict) \
                    else f"C{k}_{i}"
                tests.append(f"len(C{k}_{i}) != {len(container)} or "
                             f"not all(map(is_, {listed}, I{k}_{i}))")
            lines += ["    try:", f"        if {' or '.join(tests)}: return S{k}.changed()",
                      "    except KeyError:  # (a watched attribute deleted, another added)",
                      f"        return S{k}.changed()"]
        lines.append("    return True")
        exec(compile("\n".join(lines), "<janus module dicts>", "exec"), env)
        self.env = env
        self.check = env["check"]


def _is_module(value) -> bool:
    return isinstance(value, tf.Module)
