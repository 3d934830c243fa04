"""The state of one trace: where values came from, what was assumed, what was written.

A `Tracer` is active while janus runs a function's converted code inside a
TensorFlow FuncGraph. Values entering from the call's arguments or the heap are
*imported*: tensors become graph inputs, everything else is guarded (type,
identity, value, length) and remembered by source, so later reads and writes of
the same object can be guarded and written back.
"""
from __future__ import annotations

import collections.abc
import contextlib
import os
import sys
import types

import numpy as np
import tensorflow as tf

from janus import user_attributes
from janus.errors import ConversionError
from janus.fallback.heap import MARKER, HeapLedger, is_namedtuple
from janus.fallback.variables import VariableShadow, shadowing
from janus.graphgen import fed_floats, global_settings, heap_aliases, held_numbers, \
    host_arrays, host_scalars, number_lists, tensor_index, tensor_rows
from janus.graphgen.implicit_calls import ImplicitCalls
from janus.graphgen.exact_numbers import FED_INT_BOUND
from janus.graphgen.formatted_text import FormattedText, install_format_hooks
from janus.graphgen.active import current, running  # noqa: F401 (current: re-exported)
from janus.graphgen import host_state
from janus.graphgen.host_state import HostState
from janus.graphgen.guards import EAGER_TENSOR, INT32, INT64, Guard, InGraphGuard, WideInt, \
    aliases_guard
from janus.graphgen.keyed_writes import WriteOnlyDict
from janus.graphgen.site_tests import SiteTests
from janus.graphgen.sources import Source
from janus.graphgen.value_kinds import NUMPY_NUMBERS, _CONTAINERS, _SCALARS, _VALUE_OBJECTS, \
    _VIEWS, _is_per_replica, _trackable, is_opaque, is_symbolic, tracked_container, \
    uncopied_container
from janus.graphgen.append_only import AppendOnlyList
from janus.graphgen.values import STAND_INS, DynamicList, SymbolicScalar
from janus.transform.pipeline import made_by_converted_code

_TRACE_VALUES = STAND_INS + (host_scalars.HostScalar, host_arrays.HostArray, FormattedText)
"""janus's stand-ins (a fed number, a stacked list, a fed array, formatted text): values
the trace made (an import, an operation), never the heap's. Found again (`hp.gp` of the
namedtuple whose item 0 was fed; an object a trace wrote one to), one is the value it
stands for, already imported under its first source: imported again it would be guarded
as an object of its own type (`type(args[0].hp.gp) is SymbolicScalar`, which no call
passes: F252)."""


class VaryingRole(BaseException):
    """Stops a trace early: a role's values differ, so it is retraced with the role fed.
    (A BaseException so that the user's `except Exception` does not swallow it; if user
    code swallows it anyway, `generate` still sees `Tracer.varying_roles`.)"""


class Tracer(SiteTests):
    def __init__(self, plan, profile, expected_inputs: list, expected_tables: dict | None = None):
        self.distributed = False  # the trace called tf.distribute (graphgen/distribute.py)
        self.renamed: dict = {}  # Keras names its graph numbers per call (host_state.py)
        self.draw_streams: dict = {}  # id(numpy RNG) -> host_draws.Stream of its uniforms
        self.implicit_calls = ImplicitCalls()  # user methods Python calls implicitly
        self.tracked_copies: set = set()  # ids of copies of lists Keras tracks
        self.draw_graph = None  # the body graph of a loop drawing at tensor positions
        self.random_states: dict = {}  # id -> state variable of a tf.random.Generator drawn from
        self.collective_strategy = None  # ... with a strategy spanning several workers
        self.plan = plan
        self.profile = profile
        self.top_function = None  # the jitted function (its globals are `G`, cells `C`)
        self.host_arrays = False  # numpy arrays become fed inputs (graphgen/host_arrays.py)
        self.functions: dict[int, object] = {}  # ConvertedFunctions traced, by id
        self.sources: dict[int, Source] = {}
        self.keepalive: list = []
        self.arrays: dict = {}  # id -> what the trace knows of a TensorArray (tensor_arrays.py)
        self.imported: set[int] = set()
        self.local_objects: set[int] = set()
        self.handed_arrays: dict[int, object] = {}  # numpy arrays made while tracing that
        # its graph hands out, copied on each run (fallback/made_objects.py)
        self.trace_local_functions: set[int] = set()  # nested defs run while tracing
        self.local_writes = 0  # in-place changes of the call's own lists/dicts/objects
        self.copy_sources: dict[int, Source] = {}
        self.read_copies: set[int] = set()  # heap list copies whose items or length were used
        self.length_reads: set[int] = set()  # ... whose length alone was (`len(s.history)`)
        self.guards: dict[tuple, Guard] = {}
        self.in_graph: list[InGraphGuard] = []
        self.assert_ops: list = []
        self.pending_checks: dict = {}  # graph -> conditions of checks.require
        self.deferring: dict = {}  # loop body graph -> its deferred_checks.Deferral
        self.ledger = HeapLedger()
        self.keras_reads = None  # keras_state.KerasReads: Keras lists and flags read
        self.keras_writes: dict = {}  # (id, name) -> object: Keras state written (deferred)
        self.shadow = VariableShadow()
        self.formatted: dict[int, object] = {}
        self.test_counts: dict[tuple, int] = {}
        self.symbolic_exits: set = set()  # (function, site) of loop exits found tensor-valued
        # graph inputs: (source, kind, spec); kind is "tensor", "stack", "table" or "draws"
        self.expected_inputs = expected_inputs
        self.placeholders: dict[str, object] = {}
        # id(placeholder) -> source, for tensor arguments/heap tensors read as they are: a
        # graph handing one back unchanged hands back that very object (see heap.skeleton)
        self.tensor_inputs: dict[int, Source] = {}
        # id(eager tensor) -> (the tensor, its spec, every source it was read from, first
        # first): one object read through two paths is one graph input, and which reads
        # are one object is an assumption (guards.aliases_guard)
        self.tensor_objects: dict[int, tuple[object, tuple, list[Source]]] = {}
        # id(list, dict or object of the heap) -> (it, every source it was read from): a
        # write through one path is seen through another only where they are one object
        self.heap_objects: dict[int, tuple[object, list[Source]]] = {}
        # ids (heap_objects' keys) of the heap objects whose identity the trace observed
        # (`a is b`, a key of the call's own dict): graphgen/heap_identity.py
        self.identity_reads: set[int] = set()
        self.importing: set[int] = set()  # ids of the lists and dicts being copied in
        self.graph = None  # the graph being traced (set by `bind_inputs`)
        self.callback_depth = 0  # > 0 while TF traces a user callback in a nested graph
        # merge-op outputs -> inputs a tape watched as the op was built (identity.py)
        self.merges: dict[tuple, frozenset] = {}
        self.tape_homes: dict[int, tuple] = {}  # id(tape) -> (tape, graph it was entered in)
        self.tape_calls = 0  # calls of a tape's methods traced (graphgen/loop_gradients.py)
        self.loop_gradients: list[str] = []  # what each loop's lists' gradient became (same)
        self.value_conds: set = set()  # value sites being built as tf.cond (bool_values.py)
        self.loop_exits: dict = {}  # (function, site) -> graphgen.exits.Exit being recorded
        self.used_inputs: list = []
        self.missing = False
        # recursion: function -> (root sources, cases) expected from the previous trace
        self.expected_tables = expected_tables or {}
        self.recursion: dict[str, dict] = {}
        # roles (Source.role) of Python numbers seen with different values in this trace
        self.role_values: dict[str, object] = {}
        self.varying_roles: set[str] = set()
        self.stop_at_varying_role = False  # the first trace of a generation stops early
        # (Holder, role) of the fed numbers put where unconverted code reads them, put
        # back when the trace ends (graphgen/held_numbers.py)
        self.held_numbers: list = []
        self.max_list_items = 1000  # (janus.config's: graphgen/number_lists.py)
        self.whole_lists: set[str] = set()  # lists of numbers fed whole by `_fed_whole`

    def recursion_group(self, function: str) -> dict:
        return self.recursion.setdefault(function, {"roots": []})

    def tables(self) -> dict:
        """function -> (root sources, cases) of the SubGraph runs of this trace."""
        return {fn: (tuple(g["roots"]), g["subgraph"].cases) for fn, g in self.recursion.items()}

    # -- activation
    @contextlib.contextmanager
    def active(self, renames: bool = False):
        """This trace running on this thread for the block. `renames`: the trace's own
        thread (not a replica's), whose Keras names the graph numbers again (`renamed`)."""
        install_format_hooks()
        tensor_rows.install()  # (a tensor's rows, its len: graphgen/tensor_rows.py)
        tensor_index.install()  # (`x[0, t]` of a scalar index tensor: tensor_index.py)
        host = HostState()
        try:
            with running(self), shadowing(self.shadow), held_numbers.installed(self):
                yield self
        finally:
            self.implicit_calls.close()
            changed = host.restore(self.graph if renames else None)  # (host_state.py)
            if renames:
                self.renamed = host.renamed
        if changed:  # (at the traced function's line that made it, where found)
            raise ConversionError(f"library code it calls {changed} (a graph would not, "
                                  "on each call)",
                                  **host_state.located(host.where, self.top_function))

    def bind_inputs(self, flat) -> None:
        self.graph = tf.compat.v1.get_default_graph()
        for (source, _, spec), tensor in zip(self.expected_inputs, flat):
            self.placeholders[source.expr] = (tensor, spec)

    # -- sources and guards
    def source_of(self, value):
        return self.sources.get(id(value))

    def register(self, value, source: Source) -> None:
        if id(value) not in self.sources:
            self.sources[id(value)] = source
            self.keepalive.append(value)

    def guard(self, kind: str, source: Source, expected, where: str = "") -> None:
        key = (kind, source.expr)
        if key not in self.guards:
            self.guards[key] = Guard(kind, source, expected, where)

    def aliases_guard(self):
        """The guard on which tensor reads, and which reads of heap objects the call
        wrote, were one object (None if no two reads could be one object on a later
        call)."""
        return aliases_guard([(sources, spec) for _, spec, sources in
                              self.tensor_objects.values()] + heap_aliases.objects(self))

    def is_static(self, value) -> bool:
        """Values a graph can hand back as they are (modules, functions, library objects);
        not a function made while tracing that closes over the trace's values."""
        if value.__class__ is types.FunctionType and value.__closure__ and \
                made_by_converted_code(value):
            return False
        return isinstance(value, (types.ModuleType, types.FunctionType, type,
                                  types.BuiltinFunctionType, types.MethodType)) or \
            is_opaque(value)

    def input(self, source: Source, kind: str, spec: tuple):
        """The graph input for `source`; a stand-in if it was not expected (retrace)."""
        bound = self.placeholders.get(source.expr)
        if bound is None or bound[1] != spec:
            self.missing = True
            dtype, shape = spec
            # in the traced graph itself, even when first read inside a nested one
            with self.graph.as_default() if self.graph is not None else contextlib.nullcontext():
                bound = (tf.raw_ops.Placeholder(dtype=tf.as_dtype(dtype),
                                                shape=tf.TensorShape(list(shape))), spec)
            self.placeholders[source.expr] = bound
        self.used_inputs.append((source, kind, spec))
        return bound[0]

    def import_value(self, value, source: Source):
        """Bring a value read from the arguments or the heap into the trace."""
        if id(value) in self.imported or is_symbolic(value) or \
                isinstance(value, _TRACE_VALUES):
            return value
        if isinstance(value, tf.Variable):
            self.guard("id", source, value)
            return value
        if isinstance(value, EAGER_TENSOR):
            shape = self.plan.tensor_shape(source.expr, tuple(value.shape))
            spec = (value.dtype.name, shape)
            read = self.tensor_objects.get(id(value))
            if read is None:
                read = self.tensor_objects[id(value)] = (value, spec, [source])
            elif all(s.expr != source.expr for s in read[2]):
                read[2].append(source)
            first = read[2][0]
            if first.expr != source.expr:   # one object read through two paths: one input
                return self.import_value(value, first)
            self.guard("tensor", source, spec)
            tensor = self.input(source, "tensor", spec)
            self.tensor_inputs[id(tensor)] = source
            return tensor
        if self.host_arrays and host_arrays.supported(value):
            spec = (value.dtype.name, self.plan.tensor_shape(source.expr, tuple(value.shape)))
            self.guard("array", source, spec)
            proxy = host_arrays.HostArray(fed_floats.fed_float(
                self.input(source, "tensor", spec)), value.dtype)
            self._imported(proxy, source)
            return proxy
        if isinstance(value, np.ndarray):  # 0-d, strings, objects: its values could change
            raise ConversionError(f"reads a numpy array ({value.dtype}, {value.ndim}-d) "
                                  "janus cannot feed to a graph")
        if isinstance(value, NUMPY_NUMBERS):
            # (np.int64(3), np.float32(0.5), np.float64(0.1): by value until the ladder
            # feeds them as a tensor of their dtype, numpy's arithmetic on it: F359)
            if self.plan.is_scalar(source) and not isinstance(value, np.bool_):
                self.guard("type", source, type(value))  # fed: numpy's arithmetic on it
                fed = self.input(source, "tensor", (np.dtype(type(value)).name, ()))
                return host_scalars.HostScalar(fed)  # (graphgen/host_scalars.py)
            if not self.plan.is_scalar(source):
                self._note_role_value(source, value)
            self.guard("value", source, value)
            return value
        if isinstance(value, _SCALARS):
            if type(value) in (int, float):
                if not self.plan.is_scalar(source):
                    self._note_role_value(source, value)
                elif type(value) is float or INT32[0] <= value <= INT32[1]:
                    self.guard("number", source, type(value))
                    dtype = "float64" if type(value) is float else "int64"
                    fed = self.input(source, "tensor", (dtype, ()))
                    if type(value) is float:
                        fed_floats.fed_float(fed)
                    return SymbolicScalar(fed, type(value), source.role, FED_INT_BOUND,
                                          known=value)
                elif INT64[0] <= value <= INT64[1]:  # (a step counter past int32: F360)
                    self.guard("number", source, WideInt)
                    fed = self.input(source, "tensor", ("int64", ()))
                    return SymbolicScalar(fed, int, source.role, 2 ** 63, wide=True,
                                          known=value)
            self.guard("value", source, value)
            return value
        if isinstance(value, types.BuiltinFunctionType) and \
                isinstance(user_attributes.get(value, "__self__", None), _CONTAINERS):
            return self._import_bound(value, source)
        if isinstance(value, types.ModuleType) or isinstance(value, (types.FunctionType, type,
                                                                     types.BuiltinFunctionType)):
            self.guard("id", source, value)
            if self.source_of(value) is None and (
                    isinstance(value, (types.FunctionType, type)) or
                    isinstance(value, types.ModuleType) and
                    sys.modules.get(value.__name__) is not value):
                # (a module made at run time is found by this path, not by its name: F233)
                # located, so that its attributes are read (and guarded) on each call:
                # class attributes, a function's `__defaults__` (fuzz v15: folded in)
                self.register(value, source)
            return value
        if type(value) in (list, dict):
            if id(value) in self.importing:
                raise ConversionError(f"reads a {type(value).__name__} that holds itself "
                                      f"({source.expr}): janus copies a heap container item "
                                      "by item")
            self.importing.add(id(value))
            try:
                return self._import_container(value, source)
            finally:
                self.importing.discard(id(value))
        return self._import_object(value, source)

    def _import_container(self, value, source: Source):
        """A heap list or dict, copied (a trace works on copies; the graph's writes go
        back after it ran)."""
        if type(value) is list:
            heap_aliases.note(self, value, source)
            return self._import_list(value, source)
        return self._import_dict(value, source)

    @staticmethod
    def _import_bound(value, source: Source):
        """A method of a heap container kept on the heap (`GET = CFG.get`): a graph would
        read and change the container as the trace found it (F226), so the line runs in
        Python."""
        raise ConversionError(f"reads {source.expr}, a method of a "
                              f"{type(value.__self__).__name__} kept on the heap (the "
                              "container it reads changes between calls)")

    def _import_object(self, value, source: Source):
        """A value neither a number, a tensor, nor a heap list or dict."""
        if isinstance(value, (tf.RaggedTensor, tf.SparseTensor)):
            # (guarded by identity, a graph per object: slower than running it plainly)
            raise ConversionError(f"reads a {type(value).__name__} ({source.expr}): janus "
                                  "does not feed composite tensors to a graph yet")
        if _is_per_replica(value):  # tf.distribute: one tensor per replica, each an input
            self.guard("type", source, type(value))
            parts = source.attr("values")
            self.guard("len", parts, len(value.values))
            result = type(value)(tuple(self.import_value(v, parts.item(i))
                                       for i, v in enumerate(value.values)))
            self._imported(result, source)
            return result
        if type(value) is tuple or is_namedtuple(value):
            # (a namedtuple's items too: `x, y = batch` unpacks in C, past janus's hooks)
            self.guard("type", source, type(value))
            self.guard("len", source, len(value))
            items = [self.import_value(v, source.item(i)) for i, v in enumerate(value)]
            result = tuple(items) if type(value) is tuple else type(value)._make(items)
            self._imported(result, source)
            return result
        if isinstance(value, tuple) and not is_opaque(value):
            raise ConversionError(f"reads a {type(value).__name__} ({source.expr}), a tuple "
                                  "subclass whose items janus does not copy (code it does "
                                  "not convert would read the trace's)")
        return self._import_other(value, source)

    def _import_dict(self, value: dict, source: Source):
        heap_aliases.note(self, value, source)
        self.guard("type", source, dict)
        if source.expr in self.plan.write_only:  # (graphgen/keyed_writes.py)
            proxy = self.ledger.copy_of(value, source, lambda _: WriteOnlyDict(source.expr))
            self._imported(proxy, source)
            self.copy_sources[id(proxy)] = source
            return proxy
        self.guard("keys", source, list(value))
        copy = self.ledger.copy_of(value, source, lambda d: {
            k: self.import_value(v, source.item(k)) for k, v in d.items()})
        self._imported(copy, source)
        self.copy_sources[id(copy)] = source
        return copy

    def _import_other(self, value, source: Source):
        """An object of another kind: an iterator refuses; a Keras-tracked container is
        copied; a library object by identity, a user object by type (its attributes read
        on each call)."""
        if isinstance(value, (tf.data.Iterator, collections.abc.Iterator)):
            # its position moves on every `next`: a graph would take the items of its
            # trace (F44: a tf.data iterator; F45: a generator, itertools.count/cycle)
            raise ConversionError(f"reads an iterator ({type(value).__name__}, "
                                  f"{source.expr}): its position moves on every call")
        if value is os.environ:  # (`from os import environ`: each read guarded)
            return global_settings.EnvironReads(self)
        if isinstance(value, _VIEWS):
            # its contents follow a dict or buffer: a guard by identity holds while they
            # change (F226)
            raise ConversionError(f"reads a {type(value).__name__} ({source.expr}), a view "
                                  "of a container that changes with it")
        if tracked_container(value):  # a Keras layer's list or dict attribute
            return self._import_tracked(value, source)
        if uncopied_container(value):
            raise ConversionError(f"reads a {type(value).__name__} ({source.expr}): janus "
                                  "copies only lists and dicts, a graph would fix its items "
                                  "and make its changes once")
        if isinstance(value, _VALUE_OBJECTS):  # (`Decimal`, `timedelta`: by value, as numbers)
            self.guard("value", source, value)
            return value
        if is_opaque(value):
            self.guard("id", source, value)
        else:
            self.guard("type", source, type(value))
            self.implicit_calls.watch(type(value))  # (`len(buf)`: graphgen/implicit_calls.py)
            heap_aliases.note(self, value, source)
        self.register(value, source)
        return value

    def _note_role_value(self, source: Source, value) -> None:
        """Python numbers of one role (the same field of a container's items) that differ
        are data, not structure: the trace stops and `generate` retraces with the role fed
        (`varying_roles`), unless feeding it failed before (`plan.kept`)."""
        role = source.role
        if role == source.expr or role in self.plan.kept:
            return
        seen = self.role_values.setdefault(role, value)
        if type(seen) is type(value) and seen == value or role in self.varying_roles:
            return
        self.varying_roles.add(role)
        if self.stop_at_varying_role and not self.callback_depth:
            raise VaryingRole(role)

    def read(self, value, length: bool = False) -> None:
        """Note that a copied heap list's items or (`length`: `len()` alone) length were
        used."""
        if id(value) in self.copy_sources:
            (self.length_reads if length else self.read_copies).add(id(value))
            if isinstance(value, WriteOnlyDict):
                value._refuse("a read")

    def appended_only(self) -> frozenset:
        """Sources of heap lists this trace appended to but never read."""
        return frozenset(self.copy_sources[i].expr for i in self.ledger.dirty
                         if i not in self.read_copies and i in self.copy_sources
                         and i not in self.length_reads)

    def untouched(self) -> frozenset:
        """Sources of heap lists this trace copied (the values of a dict it read, say) but
        never read, measured nor changed: the graph assumes nothing of them (graph per
        outcome of a branch that appends to one: janus/ladder.py)."""
        return frozenset(source.expr for i, source in self.copy_sources.items()
                         if i not in self.ledger.dirty and i not in self.read_copies
                         and i not in self.length_reads)

    def length_only(self) -> frozenset:
        """Sources of heap lists this trace read only through `len()` (appended to or
        not): their length can be fed (plan.fed_lengths)."""
        return frozenset(self.copy_sources[i].expr for i in self.length_reads
                         if i not in self.read_copies and i in self.copy_sources)

    def format_marker(self, value, conversion: str, spec: str) -> str:
        """A stand-in string for a value formatted during the trace (see fallback.heap),
        which refuses to be read (graphgen/formatted_text.py)."""
        index = len(self.formatted)
        self.formatted[index] = value
        return FormattedText(f"\x00janus{index}{conversion}{spec}\x00")

    def formatted_in(self, text: str) -> list:
        """The values formatted during this trace whose markers `text` holds."""
        return [self.formatted[int(m.group(1))] for m in MARKER.finditer(text)
                if int(m.group(1)) in self.formatted]

    def _import_list(self, value: list, source: Source, kind: type = list):
        """A list (`kind`: its type, a list Keras tracks too): only appended to (no
        length assumed), fed stacked, or copied item by item."""
        fed_length = self.plan.is_fed_length(source) and source.role not in self.plan.kept
        if self.plan.is_append_only(source) or fed_length:
            self.guard("type", source, kind)
            base = None
            if fed_length:  # (`len(s.history)` as the list grows: one graph)
                fed = self.input(source, "length", ("int64", ()))
                base = SymbolicScalar(fed, int, source.role, FED_INT_BOUND)
            proxy = self.ledger.copy_of(value, source,
                                        lambda _: AppendOnlyList(base, source.role))
            self._imported(proxy, source)
            self.copy_sources[id(proxy)] = source
            return proxy
        layout = number_lists.layout_of(value) if self.plan.is_dynamic_list(source.expr) \
            else self._fed_whole(value, source)
        if layout is not None:  # (Python numbers: graphgen/number_lists.py)
            self.guard("number_list", source, layout)
            fed = self.input(source, "numbers", number_lists.spec(layout))
            result = number_lists.stand_in(fed, layout)
            self._imported(result, source)
            return result
        spec = self._stackable(value, source)
        if spec is not None:
            shape = spec[1]
            self.guard("tensor_list", source, spec)
            stacked = self.input(source, "stack", (spec[0], (None,) + tuple(shape)))
            result = DynamicList(stacked)
            self._imported(result, source)
            return result
        number_lists.refuse_itemwise(value, source.expr, self.max_list_items)
        self.guard("type", source, kind)
        self.guard("len", source, len(value))
        copy = self.ledger.copy_of(value, source, lambda lst: [
            self.import_value(v, source.item(i)) for i, v in enumerate(lst)])
        self._imported(copy, source)
        self.copy_sources[id(copy)] = source
        if kind is not list:
            self.tracked_copies.add(id(copy))
        return copy

    def _import_tracked(self, value, source: Source):
        """A list or dict Keras (or TF) wraps for tracking (`self.log = []`, `self.blocks =
        [Dense(), ...]` on a layer), imported as its guarded length or keys and items: one
        of Python data is copied like a list or dict (changes written back after the
        graph); one holding layers, modules or variables is the object itself (changing it
        in the call refuses: fallback/heap.py cannot write tracked objects back)."""
        keyed = isinstance(value, dict)
        items = value.items() if keyed else enumerate(value)
        trackables = any(_trackable(v) for _, v in items)
        if not keyed and not trackables:  # (as any list: appended to only, stacked, copied)
            return self._import_list(value, source, type(value))
        self.guard("type", source, type(value))
        self.guard("keys" if keyed else "len", source, list(value) if keyed else len(value))
        if trackables:
            for key, item in (value.items() if keyed else enumerate(value)):
                self.import_value(item, source.item(key))
            self.register(value, source)
            return value
        copy = self.ledger.copy_of(value, source, lambda c: {
            k: self.import_value(v, source.item(k)) for k, v in c.items()})
        self._imported(copy, source)
        self.copy_sources[id(copy)] = source
        return copy

    def _fed_whole(self, value: list, source: Source) -> tuple | None:
        """The layout of a list of numbers of a fixed length fed as one tensor (its items
        fed, or too many to read one by one: number_lists.fed_whole), or None; noted in
        `whole_lists` (a failed trace retries it item by item)."""
        if source.expr in self.plan.itemwise_lists or not value:
            return None
        layout = number_lists.fed_whole(value, self.plan.is_scalar(source.item(0)),
                                        self.max_list_items)
        if layout is not None:
            self.whole_lists.add(source.expr)
        return layout

    def _stackable(self, value: list, source: Source):
        """(dtype, shape) of a dynamic list fed as one stacked tensor, or None: every item
        must be an eager tensor of the first one's dtype and fit its planned shape, or the
        list is imported item by item (its tensor_list guard would reject this very call)."""
        if not (self.plan.is_dynamic_list(source.expr) and value and
                all(isinstance(v, EAGER_TENSOR) for v in value)):
            return None
        first = value[0]
        shape = self.plan.tensor_shape(source.expr + "[*]", tuple(first.shape))
        for item in value:
            dims = tuple(item.shape)
            if item.dtype != first.dtype or len(dims) != len(shape) or any(
                    want is not None and want != have for want, have in zip(shape, dims)):
                return None
        return first.dtype.name, shape

    def _imported(self, value, source: Source) -> None:
        self.imported.add(id(value))
        self.register(value, source)
