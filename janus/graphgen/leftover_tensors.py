"""Tensors of a trace left in long-lived Python state by code janus does not convert.

    norm.adapt(data)               Keras' `finalize_state`: `norm.mean = <trace tensor>`
    self.add_loss(l)  (in Keras)   the layer's `_losses` list keeps the trace's `l`
    tf.nest.map_structure(LOG.append, y)    a library calls the list's method: LOG
                                   keeps the trace's tensor
    pb.add(1)  (keras.utils.Progbar)   library code counts in Python (`_seen_so_far`):
                                   the trace counts once, a graph never again

The program's own writes are deferred (fallback/heap.py: written back after the graph
ran), but library code the trace runs as it is writes to the objects it is handed at
once: where plain Python keeps an EagerTensor, the heap keeps a symbolic tensor of a
graph that is gone, and every later read of it fails ("... is out of scope and cannot
be used here"); a graph would never write it again either (F276 refused `adapt` by
name; this is the general check, F300).

`Watch` snapshots, before a generation traces, the state the trace can reach: the
`__dict__`s of the objects reachable from the call's arguments, the globals the
function's code names and its closure cells (Keras objects, tf.Modules, the program's
objects, other libraries' objects — not TensorFlow's, numpy's, the interpreter's;
bounded: `MAX_OBJECTS`, `MAX_ITEMS`; F313), and the lists, dicts, sets and deques in
them.
After the trace (and before its graph is used) it looks in that state, and in every
object the trace imported, for a tensor of a graph the trace made. One found: every
change the trace made to the snapshot's state is undone (the call then runs plainly,
and makes its own), and the trace is refused (a ConversionError located at the
program's line whose call made the tensor, from its op's traceback: the segmented
fallback runs that line in Python, the rest of the step stays graphs). A trace that
changed or added to that state with plain values (the program's own writes are
deferred: only code janus runs as it is does that) gets a second look: undone, the
call runs plainly (BuildsOnFirstCall) and the next call traces again, comparing the
state it changed after each library call: changed again (a counter, a log keyed by the
step: plain Python repeats it on every call, a graph never: F314, F330) refuses the
trace at that call's line (F331); nothing changed is a cache the plain call filled
(AdamW's `_exclude_from_weight_decay_cache`): the graph is kept. A trace that fails
puts back whatever it changed there: the call runs plainly and makes its own changes
once (F315). Once per trace, never per call.

    tf.nest.map_structure(s.lg.log, v)   a library's `self.history[len(...)] = v`
    steplog.LOGGER.log(v)                a library's object its module holds
                                         (module attributes the code names: snapshot)

Another thread may run meanwhile (the same jitted function, run plainly while this one
traces; a loader, a pool: graphgen/other_threads.py) and change that state too: then a
change is not known to be the trace's, and nothing it cannot tell is put back (that
would lose the other thread's writes, F372). The changes the trace's own library calls
made while no other thread ran are known (graphgen/own_writes.py, F433): a failed trace
puts back those; changes with plain values that are all those get the second look as
above (undone: those only); any other makes the trace inconclusive (InconclusiveTrace:
its graph runs the call, once, and is not kept; a later call traces again); a tensor of
the trace left in the heap is taken out of the holders that keep one.
"""
from __future__ import annotations

import collections
import contextlib
import types
import weakref

import tensorflow as tf
from tensorflow.python.framework.composite_tensor import CompositeTensor
from tensorflow.python.framework.ops import EagerTensor

from janus.errors import BuildsOnFirstCall, ConversionError, InconclusiveTrace
from janus.graphgen import other_threads, own_writes
from janus.tensors import per_type, remember
from janus.transform.runtime import is_user_class, is_user_code

MAX_OBJECTS = 2000
"""Objects (and containers) a snapshot or a scan looks at, at most."""
MAX_ITEMS = 512
"""Items of one list, dict or set looked at, at most."""

_ABSENT = own_writes.ABSENT
_CONTAINERS = (list, dict, set, collections.deque)
_IMMUTABLE = (tuple, frozenset)
_SKIPPED = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType,
            types.MethodType, str, bytes, int, float, complex, bool, type(None),
            tf.Tensor, tf.Variable)


_OTHER, _TENSOR, _HOLDS, _COMPOSITE = "other", "tensor", "holds", "composite"
_KINDS: dict = {}  # type -> its kind (isinstance of TF's ABCs costs ~10 us a type)
_MADE_KINDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # (classes made
# by a function: janus/tensors.remember)


def _kind(cls: type) -> str:
    kind = per_type(_KINDS, _MADE_KINDS, cls)
    if kind is None:
        if issubclass(cls, tf.Tensor):
            kind = _OTHER if issubclass(cls, EagerTensor) else _TENSOR
        elif issubclass(cls, _IMMUTABLE):
            kind = _HOLDS
        elif issubclass(cls, CompositeTensor) and not issubclass(cls, tf.Variable):
            kind = _COMPOSITE
        else:
            kind = _OTHER
        remember(_KINDS, _MADE_KINDS, cls, kind)
    return kind


_UNWALKED_ROOTS = frozenset((
    "tensorflow", "numpy", "builtins", "janus", "logging", "threading", "weakref",
    "abc", "typing", "absl", "google", "h5py", "optree", "ml_dtypes"))
"""Libraries whose objects the trace's library code does not write (TF's internals: a
tf.function's traces hold graph tensors by design), or that reach the whole process
(a logger: every logger)."""


def _walked(value) -> bool:
    """Objects whose `__dict__` the trace's library code may write: Keras objects, a
    tf.Module, the program's own objects, other libraries' objects (a Progbar, a
    namespace)."""
    if isinstance(value, _SKIPPED) or not hasattr(value, "__dict__"):
        return False
    if isinstance(value, tf.Module):
        return True
    cls = type(value)
    root = (cls.__module__ or "").split(".")[0]
    if root in ("keras", "tf_keras"):
        return not any(base.__name__ == "Variable" for base in cls.__mro__)
    return root not in _UNWALKED_ROOTS or is_user_class(cls)


def _items(holder) -> list:
    """The values a holder keeps (bounded)."""
    if isinstance(holder, types.CellType):
        try:
            return [holder.cell_contents]
        except ValueError:
            return []
    if isinstance(holder, dict):
        return [v for _, v in zip(range(MAX_ITEMS), holder.values())]
    if isinstance(holder, (list, set, collections.deque)):
        return [v for _, v in zip(range(MAX_ITEMS), holder)]
    return [v for _, v in zip(range(MAX_ITEMS), vars(holder).values())]


def _reachable(roots) -> list:
    """Holders (objects, lists, dicts, sets, cells) reachable from `roots`, breadth
    first, tuples looked through; at most `MAX_OBJECTS`."""
    seen: set = set()
    found: list = []
    queue = collections.deque(roots)
    while queue and len(found) < MAX_OBJECTS:
        value = queue.popleft()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, _IMMUTABLE):
            queue.extend(v for _, v in zip(range(MAX_ITEMS), value))
            continue
        if not (isinstance(value, (_CONTAINERS, types.CellType)) or _walked(value)):
            continue
        found.append(value)
        try:
            queue.extend(_items(value))
        except Exception:  # noqa: BLE001 - a container whose iteration fails: not followed
            continue
    return found


_copy = own_writes.copy_state


def _code_names(code: types.CodeType, depth: int = 0) -> set:
    names = set(code.co_names)
    if depth < 4:
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                names |= _code_names(const, depth + 1)
    return names


MAX_FUNCTIONS = 32
"""The program's functions whose globals a snapshot takes (the traced one, the ones it
names, theirs...)."""


def _globals_read(function, globals_: dict) -> list:
    """(namespace, name, value) of the globals the function's code names, and those of
    the program's functions it names (helpers: `tkept()` reading `TBOX`), bounded."""
    found: list = []
    seen: set = set()
    queue = collections.deque([(function, globals_)])
    while queue and len(seen) < MAX_FUNCTIONS:
        fn, namespace = queue.popleft()
        code = getattr(fn, "__code__", None)
        if code is None or id(code) in seen:
            continue
        seen.add(id(code))
        names = _code_names(code)
        for name in sorted(names & namespace.keys()):
            value = namespace[name]
            found.append((namespace, name, value))
            if isinstance(value, types.FunctionType) and is_user_code(value):
                queue.append((value, value.__globals__))
            elif isinstance(value, types.ModuleType) and \
                    (value.__name__ or "").split(".")[0] not in _UNWALKED_ROOTS:
                # (`steplog.LOGGER.log(v)`: a library's object its module holds, F330)
                attributes = vars(value)
                found += [(attributes, n, attributes[n])
                          for n in sorted(names & attributes.keys())[:MAX_ITEMS]]
    return found


def state_reached(function, args: tuple, kwargs: dict, globals_: dict, cells: tuple) -> list:
    """The holders a call of `function` can reach (what a `Watch` snapshots)."""
    roots = list(args) + list(kwargs.values()) + \
        [value for _, _, value in _globals_read(function, globals_)] + list(cells)
    return _reachable(roots)


_LOOKS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""function -> {key: holder} its last trace changed (undone, the call run plainly):
the next trace's second look (`Watch._second_look`)."""


def _weakable(function) -> bool:
    try:
        weakref.ref(function)
    except TypeError:
        return False
    return True


def library_call(tracer, fn, args: tuple, kwargs: dict):
    """Around a library call of the trace: what it changes in the watched state is the
    trace's own (`own_writes.Writes.call`)."""
    watch = getattr(tracer, "library_watch", None)
    if watch is None:
        return contextlib.nullcontext()
    return watch.writes.call(fn, args, kwargs)


def after_library_call(tracer, runtime, site_id) -> None:
    """Note a library call of the trace at a site of `runtime`'s function
    (`Watch.after_library_call`)."""
    watch = getattr(tracer, "library_watch", None)
    if watch is not None and watch.suspects and watch.located is None:
        site = runtime._site(site_id)
        watch.after_library_call((site.function, site.filename, site.lineno))


class Watch:
    """The state a generation's traces can reach, and the graphs they make."""

    def __init__(self, function, args: tuple, kwargs: dict, env: tuple):
        self.function = function
        self.window = other_threads.Window()  # (before the snapshot: all changes after)
        globals_ = env[2] if len(env) > 2 and isinstance(env[2], dict) else {}
        self.global_values = _globals_read(function, globals_)
        roots = list(args) + list(kwargs.values()) + \
            [value for _, _, value in self.global_values] + \
            [cell for cell in (env[3] if len(env) > 3 else ()) or ()]
        self.saved = {id(h): (h, _copy(h)) for h in _reachable(roots)}
        self.writes = own_writes.Writes(  # (which changes are the trace's own: F433)
            [h for h, _ in self.saved.values()], active=bool(self.window.before))
        self.roots = roots
        self.graphs: list = []
        self.tracers: list = []
        looked = _LOOKS.get(function) if _weakable(function) else None
        self.suspects = [  # (what the previous trace changed: `after_library_call`)
            (key, holder, holder.get(key[1], _ABSENT) if isinstance(key, tuple)
             else self.saved[key][1])
            for key, holder in (looked or {}).items()
            if isinstance(key, tuple) or key in self.saved]
        self.located: tuple | None = None

    def traced(self, tracer) -> None:
        """Note a trace (called in its body, with its graph the default one)."""
        self.graphs.append(tf.compat.v1.get_default_graph())
        self.tracers.append(tracer)
        tracer.library_watch = self

    def release(self) -> None:
        """After the generation: let go of its tracers and the state it looked at (each
        tracer refers back to the watch: a cycle keeping the call's arguments alive until
        a collection, F440)."""
        for tracer in self.tracers:
            tracer.library_watch = None
        self.tracers, self.graphs, self.roots, self.saved = [], [], [], {}
        self.global_values, self.suspects = [], []

    # -- after the traces
    def check(self) -> None:
        """After a generation's traces made a graph: refuse it (a ConversionError) when
        a tensor of theirs was left in the heap, or when they changed or added to the
        snapshot's state a second time running (the first: BuildsOnFirstCall, a second
        look), undoing the trace's changes first."""
        found = self._leftover()
        if found is None:
            self._second_look()
            return
        where, tensor = found
        restored = self._undo()
        function, filename, lineno = self._site(tensor)
        raise ConversionError(
            f"code janus does not convert left a tensor of the trace in {where} (plain "
            "Python keeps its value there; a graph would never write it again)"
            + ("" if restored else "; janus could not undo it"),
            function=function, filename=filename, lineno=lineno)

    def _second_look(self) -> None:
        """A trace that changed, or added to, the snapshot's state with plain values: a
        cache filled once (AdamW's `_exclude_from_weight_decay_cache`) or a change plain
        Python makes on every call (a counter, a log keyed by the step: F314, F330)?
        The first time, undone and the call run plainly (which makes its own change,
        once); the next call's trace tells: the same state changed again is refused,
        at the line whose library call changed it (`after_library_call`); none is a
        cache the plain call filled, and the graph is kept."""
        touched = self._touched()
        own = bool(touched) and self.window.disturbed()
        if own and not all(isinstance(key, int) and
                           self.writes.explains(holder, self.saved[key][1])
                           for key, holder, _ in touched):  # (whose? nothing put back)
            raise InconclusiveTrace(
                f"{touched[0][2]} changed while janus traced it and another thread ran "
                "(janus cannot tell whose change it was)")
        previous = _LOOKS.pop(self.function, None) if _weakable(self.function) else None
        if not touched:
            return
        changed = touched[0][2]
        if own:  # (all the trace's own library calls' changes: F433)
            self.writes.undo()
        else:
            self._restore()
        keys = {key for key, _, _ in touched}
        if previous is None or not keys & previous.keys():
            if _weakable(self.function):
                _LOOKS[self.function] = {key: holder for key, holder, _ in touched[:16]}
            raise BuildsOnFirstCall(
                f"code janus does not convert changed {changed} while janus traced it: "
                "that call runs plainly, and the next one is traced again to tell a cache "
                "filled once from a change on every call")
        located = self.located or self._site(None)
        raise ConversionError(
            f"code janus does not convert changed {changed} while janus traced it, again "
            "on the next call (plain Python changes it on every call; a graph would "
            "never change it)", function=located[0], filename=located[1],
            lineno=located[2])

    def _touched(self) -> list:
        """(key, holder, description) of each holder of the snapshot's state the traces
        changed or added to, and of each global they rebound (bounded)."""
        found = []
        for holder, saved in self.saved.values():
            key = _change(holder, saved)
            if key is _ABSENT:
                added = _added(holder, saved)
                key = added[0] if added else _ABSENT
            if key is not _ABSENT:
                found.append((id(holder), holder, _describe(holder, key)))
        for namespace, name, value in self.global_values:
            if namespace.get(name, _ABSENT) is not value:
                found.append(((id(namespace), name), namespace, f"the global `{name}`"))
        return found

    def after_library_call(self, location: tuple) -> None:
        """After a library call of the trace at `location` (function, file, line): the
        first call that changed the state the previous trace changed is the line a
        refusal names (janus.explain points there; a line of the function's own is
        split off, run in Python, the rest stays graphs)."""
        if self.located is not None or not self.suspects:
            return
        for key, holder, saved in self.suspects:
            if isinstance(key, tuple):
                if holder.get(key[1], _ABSENT) is not saved:
                    self.located = location
                    return
            elif _change(holder, saved) is not _ABSENT or _added(holder, saved):
                self.located = location
                return

    def after_failed_trace(self) -> None:
        """After a generation that failed: undo what the traces changed in the state
        they reached (the call runs plainly and makes its own changes, once)."""
        if not self.graphs or not (self._touched() or self._leftover() is not None):
            return
        self._undo()

    def _undo(self) -> bool:
        """Undo the traces' changes: all of them, or, when another thread ran meanwhile,
        those of their own library calls (`own_writes`) and the holders keeping a tensor
        of theirs; whether no tensor of theirs is left (`_restore`)."""
        disturbed = self.window.disturbed()
        if disturbed:
            self.writes.undo()
        return self._restore(only_leftovers=disturbed)

    def _in_trace(self, graph) -> bool:
        graphs = self.graphs
        for _ in range(64):
            if graph is None:
                return False
            if any(graph is g for g in graphs):
                return True
            graph = getattr(graph, "outer_graph", None)
        return False

    def _trace_tensor(self, value, depth: int = 0):
        """The trace's tensor `value` is or holds (through tuples), or None."""
        kind = _kind(type(value))
        if kind is _OTHER:
            return None
        if kind is _TENSOR:
            return value if self._in_trace(value.graph) else None
        if kind is _HOLDS and depth < 3:
            for _, item in zip(range(MAX_ITEMS), value):
                found = self._trace_tensor(item, depth + 1)
                if found is not None:
                    return found
        elif kind is _COMPOSITE:
            try:
                parts = tf.nest.flatten(value, expand_composites=True)
            except Exception:  # noqa: BLE001 - not flattened: not looked into
                return None
            for part in parts[:MAX_ITEMS]:
                found = self._trace_tensor(part, depth + 1)
                if found is not None:
                    return found
        return None

    def _leftover(self):
        """(where, tensor): the first tensor of the traces found in the state they
        reached, or None."""
        roots = list(self.roots)
        for tracer in self.tracers:  # (not its copies of heap lists and dicts, its
            # stand-ins: the trace's own, written back through the ledger)
            # (nor the objects the call made: graphgen/made_objects.py makes them anew)
            roots += [v for v in tracer.keepalive[:MAX_ITEMS] if id(v) not in tracer.imported
                      and id(v) not in tracer.local_objects]
        for namespace, name, value in self.global_values:
            if namespace.get(name, _ABSENT) is not value:
                tensor = self._trace_tensor(namespace.get(name))
                if tensor is not None:
                    return f"the global `{name}`", tensor
        for holder in _reachable(roots):
            if isinstance(holder, dict):
                entries = list(holder.items())[:MAX_ITEMS]
            elif isinstance(holder, (list, set, collections.deque, types.CellType)):
                entries = list(enumerate(_items(holder)))
            else:
                entries = list(vars(holder).items())[:MAX_ITEMS]
            for key, value in entries:
                tensor = self._trace_tensor(value)
                if tensor is not None:
                    return _describe(holder, key), tensor
        return None

    def _restore(self, only_leftovers: bool = False) -> bool:
        """Put the snapshot's state back as it was (identity by identity; `only_leftovers`:
        only the holders keeping a tensor of the traces, where another thread may have
        changed the rest); whether every holder of a trace tensor found then was in the
        snapshot."""
        for namespace, name, value in self.global_values:
            if namespace.get(name, _ABSENT) is not value and not (
                    only_leftovers and self._trace_tensor(namespace.get(name)) is None):
                namespace[name] = value
        for holder, saved in self.saved.values():
            if only_leftovers and not self._keeps_tensor(holder):
                continue
            try:
                _put_back(holder, saved)
            except Exception:  # noqa: BLE001 - a holder that refuses: left (the rerun)
                continue
        return self._leftover() is None

    def _keeps_tensor(self, holder) -> bool:
        try:
            values = _items(holder)
            if isinstance(holder, dict):
                values += [k for _, k in zip(range(MAX_ITEMS), holder)]
        except Exception:  # noqa: BLE001 - not looked into: left
            return False
        return any(self._trace_tensor(value) is not None for value in values)

    def _site(self, tensor) -> tuple:
        """(function, file, line) of the traced function's line whose call made
        `tensor` (its op's traceback), or the function's first line."""
        code = getattr(self.function, "__code__", None)
        qualname = getattr(self.function, "__qualname__", "?")
        if code is None:
            return qualname, "?", 0
        last = max((line for _, _, line in code.co_lines() if line), default=0)
        try:
            frames = list(tensor.op.traceback) if tensor is not None else []
        except Exception:  # noqa: BLE001 - no traceback: the function's first line
            frames = []
        for frame in frames:  # (outermost first)
            if frame.filename == code.co_filename and \
                    code.co_firstlineno < frame.lineno <= last:
                return qualname, code.co_filename, frame.lineno
        return qualname, code.co_filename, code.co_firstlineno


def _put_back(holder, saved) -> None:
    if isinstance(holder, types.CellType):
        if saved is not _ABSENT and _items(holder)[:1] != [saved]:
            holder.cell_contents = saved
        return
    if isinstance(holder, dict):
        if len(holder) != len(saved) or any(
                holder.get(k, _ABSENT) is not v for k, v in saved.items()):
            holder.clear()
            holder.update(saved)
        return
    if isinstance(holder, list):
        if len(holder) != len(saved) or any(a is not b for a, b in zip(holder, saved)):
            holder[:] = saved
        return
    if isinstance(holder, collections.deque):
        if len(holder) != len(saved) or any(a is not b for a, b in zip(holder, saved)):
            holder.clear()
            holder.extend(saved)
        return
    if isinstance(holder, set):
        if holder != saved:
            holder.clear()
            holder.update(saved)
        return
    state = vars(holder)
    for name in [n for n in state if n not in saved]:
        del state[name]
    for name, value in saved.items():
        if state.get(name, _ABSENT) is not value:
            state[name] = value


_PLAIN = (bool, int, float, complex, str, bytes, type(None))


def _same(now, before) -> bool:
    """Whether `now` stands for `before` (the same object, or an equal plain value)."""
    if now is before:
        return True
    return type(now) is type(before) and isinstance(now, _PLAIN) and now == before


def _change(holder, saved):
    """The key (index, name) of an item of `holder` the traces changed or removed, or
    `_ABSENT`. What they only added is not a change: a cache filled once (AdamW's
    `_exclude_from_weight_decay_cache`), which plain Python's first call fills the same
    way and later calls keep; a tensor among it is `_leftover`'s."""
    if isinstance(holder, types.CellType):
        same = saved is _ABSENT or _same(_items(holder)[0] if _items(holder) else _ABSENT,
                                         saved)
        return _ABSENT if same else 0
    if isinstance(holder, set):
        return _ABSENT if holder >= saved else 0
    if isinstance(holder, (list, collections.deque)):
        for index, (a, b) in enumerate(zip(holder, saved)):
            if not _same(a, b):
                return index
        return _ABSENT if len(holder) == len(saved) else min(len(holder), len(saved))
    state = holder if isinstance(holder, dict) else vars(holder)
    for key, value in saved.items():
        if not _same(state.get(key, _ABSENT), value):
            return key
    return _ABSENT


def _added(holder, saved) -> list:
    """The keys (indexes, names, set members) the traces added to `holder` (bounded)."""
    if isinstance(holder, types.CellType):
        return []
    if isinstance(holder, set):
        return [v for _, v in zip(range(MAX_ITEMS), holder - saved)]
    if isinstance(holder, (list, collections.deque)):
        return list(range(len(saved), len(holder)))[:MAX_ITEMS]
    state = holder if isinstance(holder, dict) else vars(holder)
    return [k for _, k in zip(range(MAX_ITEMS), (k for k in state if k not in saved))]


def _describe(holder, key) -> str:
    if isinstance(holder, types.CellType):
        return "a closure cell"
    if isinstance(holder, dict):
        return f"a dict's item {key!r:.40}"
    if isinstance(holder, (list, set, collections.deque)):
        return f"item {key} of a {type(holder).__name__}"
    name = getattr(holder, "name", None)
    label = f" {name!r:.40}" if isinstance(name, str) else ""
    return f"the attribute `{key}` of the {type(holder).__name__}{label}"
