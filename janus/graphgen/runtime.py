"""The graph-building runtime: converted code run inside a FuncGraph builds the
specialized graph. Python-valued control flow runs as Python (its inputs are
guarded); tensor-valued tests are specialized with in-graph guards or, where the
plan says so, become `tf.cond`; loops over lists of varying length become
`tf.while_loop`. Attribute reads and writes: graphgen/attributes.py.
"""
from __future__ import annotations

import builtins
import contextlib
import enum
import functools
import types

import tensorflow as tf

from janus.errors import ConversionError
from janus.fallback.heap import MISSING as _MISSING
from janus.graphgen import dynamic_sizes, eager_functions, eager_queries, identity, \
    keyed_writes, keys, library_calls, namespaces, past_hooks, refusals, stand_in_calls, \
    tapes, traced_gradients, truth_folds, user_classes
from janus.graphgen import attributes
from janus.graphgen import heap_identity
from janus.graphgen.attributes import AttributeHooks
from janus.graphgen.bool_values import BoolValues, truth
from janus.graphgen.defaults import check_defaults, guard_defaults
from janus.graphgen import tracer as tracer_mod
from janus.graphgen.exits import ExitLoops, LoopItems, loop_items
from janus.graphgen.formatted_text import TextHooks
from janus.graphgen.general import GeneralControlFlow
from janus.graphgen.general_while import GeneralWhile
from janus.graphgen import host_arrays, host_scalars, implicit_calls, known_numbers, \
    number_functions, reductions
from janus.graphgen.host_scalars import HostScalar
from janus.graphgen.keyed_writes import WriteOnlyDict
from janus.graphgen.sources import closure, global_
from janus.graphgen.tensor_lists import stack_args
from janus.graphgen.value_kinds import is_symbolic, variable_read
from janus.graphgen.dynamic_sizes import SymbolicRange
from janus.graphgen.append_only import AppendOnlyList
from janus.graphgen.values import DynamicList, MixedBool, SymbolicScalar, tensor_index
from janus.recursion.subgraph import (NodeProxy, SubGraph, result_of_root, run_batched,
                                     unstack_roots)
from janus.recursion import self_calls
from janus.recursion.table import table_layout
from janus.tensors import is_tensor
from janus.transform import convert
from janus.transform.pipeline import lambda_traced_as_is
from janus.transform.runtime import AUG_OPS, Runtime, run_as_is, user_function, user_items, \
    user_partial
from janus.operation_hooks import operation_hook


def _table_source(function: str, name: str):
    from janus.graphgen.sources import table
    return table(function, name)


def _stand_in(spec):
    """Placeholders shaped like a recursive function's result (first trace only)."""
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str):
        return tf.raw_ops.Placeholder(dtype=tf.as_dtype(spec[0]), shape=spec[1])
    return type(spec)(_stand_in(s) for s in spec)


_PROTOCOLS = {
    builtins.len: implicit_calls.length, builtins.bool: implicit_calls.truth,
    builtins.iter: implicit_calls.iterator,
    builtins.str: lambda call, obj: implicit_calls.text(call, obj, "__str__"),
    builtins.repr: lambda call, obj: implicit_calls.text(call, obj, "__repr__")}
"""Builtins that call a method of their argument's class: a user's runs converted."""


def _protocol(fn):
    for builtin, protocol in _PROTOCOLS.items():  # (by identity: `fn` may be unhashable)
        if fn is builtin:
            return protocol
    return None


class TraceRuntime(AttributeHooks, TextHooks, BoolValues, ExitLoops, GeneralWhile,
                   GeneralControlFlow, Runtime):
    @property
    def key(self) -> str:
        return self.function.key

    @property
    def tracer(self):
        return tracer_mod.current()

    def _site(self, site_id):
        return self.function.sites[site_id]

    # -- names
    def _is_top(self) -> bool:
        """Whether this runtime runs the jitted function itself (not a callee)."""
        top = getattr(self.tracer, "top_function", None)
        return top is None or top.__code__ is self.function.original.__code__

    def _global_source(self, name):
        if self._is_top():
            return global_(name)
        original = self.function.original
        return global_(name, original.__module__ or original.__qualname__,
                       original.__globals__)

    @operation_hook
    def ld_global(self, name, value):
        stored = self.tracer.ledger.get_global(self.function.original.__globals__, name)
        if stored is not _MISSING:  # (stored earlier in this call, here or by a caller)
            return stored
        return self.tracer.import_value(value, self._global_source(name))

    def st_global(self, name, value):
        """A global the function declares, stored after the graph ran (fallback/heap.py)."""
        self.tracer.ledger.set_global(self.function.original.__globals__, name,
                                      self._global_source(name), value)

    def defined(self, fn) -> None:
        self.tracer.trace_local_functions.add(id(fn))
        self.tracer.keepalive.append(fn)

    @operation_hook
    def ld_free(self, name, value):
        if id(self.function.original) in self.tracer.trace_local_functions:
            return value  # a cell of the traced frame: a value of this trace, not the heap's
        index, cell = self._cell(name)
        stored = self.tracer.ledger.get_cell(cell)
        if stored is not _MISSING:  # (stored earlier in this call: `nonlocal count`)
            return stored
        if self._is_top():
            return self.tracer.import_value(value, closure(index))
        return self.tracer.import_value(value, closure(index, cell))

    def st_free(self, name, value):
        """A variable the function declares nonlocal: stored after the graph ran."""
        index, cell = self._cell(name)
        if id(self.function.original) in self.tracer.trace_local_functions:
            # (a def made in the trace rebinding the traced frame's variable: inside a
            # tf.while_loop janus builds it would count once, whatever the iterations)
            raise ConversionError(f"`nonlocal {name}` rebinds a variable of the function "
                                  "janus traces from a def made in it")
        source = closure(index) if self._is_top() else closure(index, cell)
        self.tracer.ledger.set_cell(cell, source, value)

    def _cell(self, name: str) -> tuple:
        original = self.function.original
        index = original.__code__.co_freevars.index(name)
        return index, original.__closure__[index]

    def ctx(self, manager):
        """TensorFlow's context managers (tapes, name scopes, devices) are traced as
        they are; any other's `__enter__`/`__exit__` would run once, while tracing, with
        heap effects janus does not see (fuzz v15): the trace refuses."""
        tapes.entered(self.tracer, manager)
        module = type(manager).__module__ or ""
        if isinstance(manager, contextlib._GeneratorContextManager):  # (a @contextmanager:
            module = getattr(manager.func, "__module__", "") or ""    # `tape.stop_recording()`)
        if module.split(".")[0] in ("tensorflow", "keras", "tf_keras") or \
                isinstance(manager, contextlib.nullcontext):
            return manager
        raise ConversionError(f"enters a {type(manager).__qualname__} context manager: its "
                              "__enter__/__exit__ are Python a graph would run once, while "
                              "tracing")

    # -- items
    def _method(self, method, obj, *args):
        """Run a user's method Python would call implicitly, converted."""
        return self.call(None, types.MethodType(method, obj), *args)

    @implicit_calls.on_behalf  # (`d[t]` hashes t: a user `__hash__` is the program's)
    @operation_hook
    def ld_item(self, obj, key):
        if isinstance(obj, DynamicList):
            return obj[key]
        module_globals = namespaces.source_of(self.tracer, obj)
        if module_globals is not None:  # (`globals()['LR']`: that global, guarded)
            return namespaces.read(self.tracer, obj, key, module_globals)
        value = implicit_calls.item(self._method, obj, "__getitem__", key)  # (`buf[i]`)
        if value is not implicit_calls.UNHANDLED:
            return value
        tracer = self.tracer
        tracer.read(obj)
        if not is_tensor(obj):
            keys.check(key, tracer)
            heap_identity.key(tracer, obj, key)  # (`memo[node]`: by identity)
        value = obj[tensor_index(key) if is_tensor(obj) else key]
        source = tracer.source_of(obj)
        if source is not None and isinstance(key, (int, str, enum.Enum)) and \
                id(obj) not in tracer.copy_sources:
            return tracer.import_value(value, source.item(key))
        return value

    @implicit_calls.on_behalf
    @operation_hook
    def st_item(self, obj, key, value):
        if isinstance(obj, WriteOnlyDict):  # (its keys are the graph's: keyed_writes.py)
            obj[key] = value
            self._touched(obj)
            return
        module_globals = namespaces.source_of(self.tracer, obj)
        if module_globals is not None:  # (`globals()['LR'] = v`: stored after the graph)
            namespaces.write(self.tracer, obj, key, value, module_globals)
            return
        if implicit_calls.item(self._method, obj, "__setitem__", key, value) is not \
                implicit_calls.UNHANDLED:
            return
        keyed_writes.refuse_computed_key(obj, key, self.tracer)
        keys.check(key, self.tracer)
        heap_identity.key(self.tracer, obj, key)  # (`memo[node] = h`: by identity)
        container = isinstance(obj, (list, dict))
        if container:  # (before: one janus cannot copy refuses unchanged)
            self._touched(obj)
        obj[key] = value
        if not container:
            self._touched(obj)

    @implicit_calls.on_behalf
    @operation_hook
    def del_item(self, obj, key):
        if namespaces.source_of(self.tracer, obj) is not None:
            raise ConversionError("deletes a global through its module's namespace")
        if implicit_calls.item(self._method, obj, "__delitem__", key) is not \
                implicit_calls.UNHANDLED:
            return
        keys.check(key, self.tracer)
        heap_identity.key(self.tracer, obj, key)  # (`del memo[node]`: by identity)
        container = isinstance(obj, (list, dict))
        if container:
            self._touched(obj)
        del obj[key]
        if not container:
            self._touched(obj)

    def _touched(self, obj):
        tracer = self.tracer
        source = tracer.copy_sources.get(id(obj))
        if source is not None:
            tracer.ledger.touched(obj, source)
        elif tracer.source_of(obj) is not None and id(obj) not in tracer.local_objects:
            raise ConversionError(f"mutates a {type(obj).__name__} janus cannot copy")
        else:  # a list/dict/object of this call: done once while tracing
            tracer.local_writes += 1

    @operation_hook
    def aug(self, op, target, value):
        self.tracer.read(value)
        if op != "+=":
            self.tracer.read(target)
        in_place = isinstance(target, (list, dict, AppendOnlyList)) and op in ("+=", "*=", "|=")
        if in_place:  # (before: one janus cannot copy refuses unchanged)
            self._touched(target)
        result = self.percent(target, value) if op == "%=" and isinstance(target, str) else \
            AUG_OPS[op](target, value)  # (text: graphgen/formatted_text.py)
        if result is target and not in_place and isinstance(target, (list, dict, AppendOnlyList)):
            self._touched(target)
        return result

    # -- calls
    @operation_hook
    def call(self, site, fn, /, *args, **kwargs):
        tracer = self.tracer
        fn = run_as_is(fn)  # (a jitted np.add: np.add's call)
        if fn is builtins.print:
            tracer.ledger.print(args, kwargs)
            return None
        if user_partial(fn) or type(fn) is functools.partial and \
                tracer.source_of(fn) is not None:  # (a heap partial of a library function)
            return self._partial(site, fn, args, kwargs)
        read = namespaces.call(tracer, fn, args, kwargs)  # (`vars(cfg)`, `globals().get`)
        if read is not namespaces.UNHANDLED:
            return read
        if isinstance(fn, functools._lru_cache_wrapper):  # (before it is unwrapped: F46)
            refusals.refuse(fn)
        queried = eager_queries.answer(tracer, fn, args, kwargs)  # `tf.executing_eagerly()`
        if queried is not eager_queries.UNANSWERED:
            return queried
        if (fn is getattr and len(args) in (2, 3) or fn is hasattr and len(args) == 2) and \
                not kwargs and isinstance(args[1], str) and \
                tracer.source_of(args[0]) is not None and \
                not isinstance(args[0], (types.ModuleType, NodeProxy)):
            return self._query_attr(fn, args)
        written = self.attribute_call(fn, args, kwargs)  # `setattr(o, "n", v)`: o.n = v
        if written is not attributes.UNHANDLED:
            return written
        if fn is type and len(args) == 1 and not kwargs and \
                past_hooks.located_by_type(tracer, args[0]):  # (`type(a).eps`: guarded)
            return self.ld_attr(args[0], "__class__")
        protocol = _protocol(fn) if len(args) == 1 and not kwargs else None
        if protocol is not None:  # `len(buf)`: a user's `__len__` runs converted
            value = protocol(self._method, args[0])
            if value is not implicit_calls.UNHANDLED:
                return value
        if (fn is any or fn is all) and len(args) == 1 and not kwargs:
            return truth_folds.truth_fold(tracer, fn, args[0])  # `all(<tensor test> for ...)`
        answered = stand_in_calls.answer(fn, args, kwargs)  # `isinstance(n, int)`, n fed
        if answered is not stand_in_calls.UNANSWERED:
            return answered
        identity.check_call(tracer, fn, args, kwargs)  # (`id(t)`, `tape.watch(t)`...)
        keys.check_call(fn, args, tracer)  # (`d.get(str(k))`: graphgen/keys.py)
        tapes.check_call(tracer, fn)  # (`tape.stop_recording()` inside a loop body...)
        if traced_gradients.is_gradient(fn):  # (None where Python's tape gives None)
            return traced_gradients.gradient(fn, args, kwargs)
        if isinstance(fn, (host_scalars.NumpyRead, host_arrays.NumpyRead)):
            return fn(*args, **kwargs)  # (transform/breaks.in_graph_reads)
        if number_functions.reads_tensor(fn, args, kwargs):  # `math.sqrt(loss)`: float(loss)
            args = (number_functions.read_tensor(args[0]),)
        if number_functions.handles(fn, args, kwargs):  # `math.cos(theta)`, theta fed
            return number_functions.dispatch(fn, args, kwargs)
        if reductions.handles(fn, args, kwargs):  # `np.mean(a)`, `sum(rewards)`
            return reductions.dispatch(fn, args, kwargs)
        if isinstance(fn, (types.FunctionType, types.BuiltinFunctionType)):
            special = stack_args(fn, args)
            if special is not None:
                return special(*args[1:], **kwargs)
        if isinstance(fn, type):  # (`C(x)`: its `__init__` converted)
            made = user_classes.construct(lambda f, *a, **k: self.call(site, f, *a, **k),
                                          tracer, fn, args, kwargs)
            if made is not user_classes.UNHANDLED:
                return made
        shape = dynamic_sizes.shape_call(fn, args, kwargs)  # `keras.ops.shape(t)`
        if shape is not dynamic_sizes.UNHANDLED:
            return shape
        fn = eager_functions.called(tracer, fn)  # (tf.config.run_functions_eagerly)
        fn = library_calls.traced_inline(fn, args, kwargs, tracer.shadow)
        target, bound_self = user_function(fn)
        if target is not None and bound_self is fn:  # `H(x)`: type(H).__call__, guarded
            attributes.guard_call_method(tracer, fn)
        if target is not None and lambda_traced_as_is(target):
            target = None  # its reads are hooked already, or it reads only its arguments
        if target is not None:
            # (a lambda made outside converted code reading its closure or globals,
            # `self.lr_fn = lambda: 0.1 * 0.5 ** self.step`: converted as the def it is)
            converted = convert(target)
            node_index = tracer.profile.recursive.get(converted.key)
            if node_index is None:  # (a recursion no profiled call showed: learned first)
                self_calls.check_unseen(tracer.profile, self.function, converted, args)
            if node_index is not None and tracer.profile.cases.get(converted.key) and \
                    node_index < len(args) and not kwargs:
                passed = self_calls.passed_on(args, node_index, bound_self)
                group = tracer.recursion_group(converted.key)
                if isinstance(args[node_index], NodeProxy):
                    if not self_calls.same_passed_on(group["passed"], passed):
                        raise ConversionError(f"{converted.qualname} calls itself with other "
                                              "arguments than its own besides the node")
                    return args[node_index].invoke()
                # (the batched run gives every invocation its first root's other
                # arguments: a root passing others is inlined)
                if self_calls.same_passed_on(group.setdefault("passed", passed), passed):
                    return self._recursive_root(converted, bound_self, args, node_index)
            runtime = TraceRuntime.for_function(converted)
            instance = runtime.function.instantiate(runtime)
            tracer.functions[id(converted)] = converted
            bound = args if bound_self is None else (bound_self, *args)
            check_defaults(target, bound, kwargs)
            guard_defaults(tracer, target, bound, kwargs)
            if bound_self is not None:
                return instance(bound_self, *args, **kwargs)
            return instance(*args, **kwargs)
        return library_calls.call(self, site, fn, args, kwargs)

    def _partial(self, site, fn, args: tuple, kwargs: dict):
        """A `functools.partial` of user code called, or one on the heap of a library
        function (`ACT = partial(tf.nn.leaky_relu, alpha=0.1)`): its function converted, its stored
        arguments first, read from the partial as the function reads the heap (guarded
        where it has a source, `G['loss'].keywords['power']`; a write earlier in the call,
        `loss.keywords['power'] = 2`, seen)."""
        inner, stored = self.ld_attr(fn, "func"), self.ld_attr(fn, "args")
        keywords = self.ld_attr(fn, "keywords")
        stored = tuple(self.ld_item(stored, i) for i in range(len(stored)))
        keywords = {k: self.ld_item(keywords, k) for k in list(keywords)}
        return self.call(site, inner, *stored, *args, **{**keywords, **kwargs})

    # -- recursion
    def _recursive_root(self, converted, bound_self, args, node_index):
        """A call of a recursive function from outside it: one root of the SubGraph's
        batched run. The first root call of a trace builds the run for all roots
        (known from the previous trace attempt); each returns its own result."""
        tracer = self.tracer
        name = converted.key
        source = tracer.source_of(args[node_index])
        if source is None:
            raise ConversionError(f"recursion of {converted.qualname} on an object janus "
                                  "cannot locate on each call")
        subgraph = SubGraph(name, node_index, tuple(tracer.profile.cases[name]))
        group = tracer.recursion_group(name)
        index = len(group["roots"])
        group["roots"].append(source)
        expected = tracer.expected_tables.get(name)
        if expected is None or index >= len(expected[0]) or expected[0][index] != source or \
                expected[1] != subgraph.cases:
            tracer.missing = True
            group["subgraph"] = subgraph
            return _stand_in(subgraph.cases[0].result)
        if group.get("results") is None:
            group["subgraph"] = subgraph
            table = {n: tracer.input(_table_source(name, n), "table", (dtype, shape))
                     for n, dtype, shape in table_layout(list(subgraph.cases))}
            runtime = TraceRuntime.for_function(converted)
            instance = converted.instantiate(runtime)

            def run_case(case_index, proxy):
                call_args = list(args)
                call_args[node_index] = proxy
                mark, writes = tracer.ledger.mark(), tracer.shadow.writes
                if bound_self is not None:
                    result = instance(bound_self, *call_args)
                else:
                    result = instance(*call_args)
                self._unchanged_heap(mark, writes, f"the recursive function {name}")
                return result

            group["results"] = unstack_roots(run_batched(subgraph, run_case, table),
                                             len(expected[0]))
        return result_of_root(subgraph, group["results"], index)

    # -- control flow
    def identical(self, left, right):
        for value, other in ((left, right), (right, left)):
            if type(other) is bool and isinstance(value, (SymbolicScalar, MixedBool)):
                # `b is True` of a fed bool (F240): its value, when it is a bool at all
                if isinstance(value, MixedBool):
                    raise ConversionError("`is True`/`is False` of a value whose type the "
                                          "graph does not know")
                return value == other if value.kind is bool else False
            if isinstance(value, SymbolicScalar) and value is not other and \
                    isinstance(other, (SymbolicScalar, int, float)):
                # (`max(a, c) is a`: which number object Python hands on is not traced)
                raise ConversionError("`is` between numbers janus feeds")
        identity.check_is(left, right)
        heap_identity.compared(self.tracer, left, right)  # (`node is LAST[0]`: guarded)
        return left is right

    @operation_hook
    def test(self, site, value, known=None):
        exit_test = self.tracer.loop_exits.get((self.key, site))
        if exit_test is not None:  # of a loop being generalized: recorded, the body goes on
            self.tracer.read(value)
            return exit_test.record(value)
        if isinstance(value, DynamicList):  # `if xs:` on a list whose length varies
            value = value.length() > 0
        if known is None and isinstance(value, SymbolicScalar):  # (a fed number's
            known = known_numbers.truth(value.known)  # outcome in this call: F455)
        if isinstance(value, (SymbolicScalar, HostScalar, MixedBool)):
            value = value.tensor
        value = variable_read(value)  # (`if s.on:`: its value)
        if not is_symbolic(value):
            self.tracer.read(value)
            self.tracer.passed(self.key, site)
            truth = implicit_calls.truth(self._method, value)  # (`if buf:`)
            return bool(value) if truth is implicit_calls.UNHANDLED else truth
        dynamic_sizes.refuse_item_decision(value)
        self.tracer.note_exit(self.key, site)
        return self.tracer.expect(self._site(site), self.key, value, known)

    @operation_hook
    def loop_test(self, site, value):
        return self.test(site, value)

    @operation_hook
    def iterate(self, site, iterable):
        self.tracer.read(iterable)
        refusals.refuse_data_iteration(iterable)
        if isinstance(iterable, DynamicList):
            raise ConversionError("a loop with break/continue/return over a list whose length "
                                  "varies is not generalized")
        if is_symbolic(iterable):
            if iterable.shape.rank is None or iterable.shape[0] is None:
                raise ConversionError("iterating a tensor of unknown length with break/return")
            return tf.unstack(iterable)
        items = implicit_calls.iterator(self._method, iterable)  # (`for v in buf`)
        return iterable if items is implicit_calls.UNHANDLED else items

    def if_stmt(self, site, test, if_true, if_false, get_state, set_state, both=()):
        known = known_numbers.truth(test.known) if isinstance(test, SymbolicScalar) else None
        if isinstance(test, SymbolicScalar):
            test = test.tensor
        test = variable_read(test)
        if is_symbolic(test) and test.shape.rank:  # (one element: its truth; more: refused)
            test = truth(test)
        if is_symbolic(test) and ((self.key, site) in self.tracer.plan.general_branches and
                                  self.function.sites[site].raises_when is None or
                                  self._in_general_exit_loop()):
            # (a test one of whose branches raises stays specialized to the other: a
            # tf.cond would trace the raise)
            return self._cond(site, test, if_true, if_false, get_state, set_state, both)
        if self.test(site, test, known):
            if_true()
        else:
            if_false()

    def for_stmt(self, site, iterable, body, get_state, set_state, names, exit_site=None,
                 live=(), fresh=()):
        if exit_site is not None:
            key = (self.key, exit_site)
            if isinstance(iterable, SymbolicRange):
                return iterable.loop(lambda: self._while_exit(
                    site, key, loop_items(iterable), body, get_state, set_state, names, live,
                    fresh), peeled=False)
            if self._exit_general(exit_site) or isinstance(iterable, DynamicList) \
                    or is_symbolic(iterable) and (iterable.shape.rank is None or
                                                  iterable.shape[0] is None):
                return self._while_exit(site, key, loop_items(iterable), body, get_state,
                                        set_state, names, live, fresh)
            for item in user_items(self.iterate(site, iterable)):
                if body(item):
                    break
            return
        if isinstance(iterable, SymbolicRange):
            return iterable.loop(lambda: self._while_for(site, iterable, body, get_state,
                                                         set_state, names))
        if isinstance(iterable, DynamicList):
            return self._while_for(site, iterable, body, get_state, set_state, names)
        if is_symbolic(iterable) and (iterable.shape.rank is None or iterable.shape[0] is None):
            return self._while_for(site, DynamicList(iterable), body, get_state, set_state, names)
        for item in user_items(self.iterate(site, iterable)):
            body(item)

    def while_stmt(self, site, test, body, get_state, set_state, names, exit_site=None,
                   live=(), fresh=()):
        if exit_site is not None:
            key = (self.key, exit_site)
            if self._exit_general(exit_site) or \
                    (self.key, site) in self.tracer.plan.general_branches:
                return self._while_exit(site, key, LoopItems(None, None, test), body,
                                        get_state, set_state, names, live, fresh)
            value = test()
            while self.test(site, value):
                if body():
                    break
                value = test()
            return
        if self._while_general(site):  # (graphgen/general_while.py)
            return self._general_while(site, test, body, get_state, set_state, names)
        value = test()
        while self.test(site, value):  # `j < 2 and <tensor>` may end on the Python operand
            body()
            value = test()
