"""The graph-building runtime: converted code run inside a FuncGraph builds the
specialized graph. Python-valued control flow runs as Python (its inputs are
guarded); tensor-valued tests are specialized with in-graph guards or, where the
plan says so, become `tf.cond`; loops over lists of varying length become
`tf.while_loop`.
"""
from __future__ import annotations

import builtins
import contextlib
import functools
import inspect
import types

import numpy as np
import tensorflow as tf

from janus import draws
from janus.errors import ConversionError
from janus.fallback.heap import MISSING as _MISSING
from janus.graphgen import connectivity, host_draws, identity, keys, refusals, tapes
from janus.graphgen.bool_values import BoolValues
from janus.graphgen.callbacks import traced_callback
from janus.graphgen.defaults import check_defaults
from janus.graphgen import tracer as tracer_mod
from janus.graphgen.distribute import traced_user_functions
from janus.graphgen.exits import ExitLoops, LoopItems, loop_items
from janus.graphgen import formatted_text
from janus.graphgen.formatted_text import TextHooks
from janus.graphgen.general import GeneralControlFlow
from janus.graphgen.general_while import GeneralWhile
from janus.graphgen import host_arrays, host_scalars, number_functions, reductions
from janus.graphgen.host_arrays import HostArray
from janus.graphgen.host_scalars import HostScalar
from janus.graphgen.sources import closure, global_
from janus.graphgen.tensor_lists import dynamic_zip, grown_length, stack_args
from janus.graphgen.tracer import is_symbolic
from janus.graphgen.values import (Accumulator, AppendOnlyList, DynamicList, MixedBool,
                                   PartialShape, SymbolicScalar, dynamic_length,
                                   pack_scalars, tensor_index)
from janus.recursion.subgraph import (NodeProxy, SubGraph, result_of_root, run_batched,
                                     unstack_roots)
from janus.recursion.table import table_layout
from janus.tensors import is_tensor
from janus.transform import convert
from janus.transform.pipeline import lambda_traced_as_is
from janus.transform.runtime import AUG_OPS, Runtime, is_user_code, user_function

_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
             "update", "setdefault", "popitem", "__setitem__", "__delitem__"}


def _table_source(function: str, name: str):
    from janus.graphgen.sources import table
    return table(function, name)


def _stand_in(spec):
    """Placeholders shaped like a recursive function's result (first trace only)."""
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str):
        return tf.raw_ops.Placeholder(dtype=tf.as_dtype(spec[0]), shape=spec[1])
    return type(spec)(_stand_in(s) for s in spec)


def _maximum(x, y, name=None):
    """`tf.maximum` as `-tf.minimum(-x, -y)`: same values (NaN too) and gradients (ties
    to `x`). TF 2.21's oneDNN remapper rewrites `Maximum(x, Mul(x, c))` into
    `LeakyRelu(x, c)`, which is `min` when c > 1: the graph would compute something else."""
    if not (is_tensor(x) and is_tensor(y) and x.dtype.is_floating):
        # the fusion needs two float tensors; and unsigned ints cannot be negated
        return tf.maximum(x, y, name=name)
    return tf.negative(tf.minimum(tf.negative(x), tf.negative(y)), name=name)


def _constant(value, dtype=None, shape=None, name="Const"):
    """`tf.constant` of a fed number (a SymbolicScalar): its tensor, converted as TF converts
    the Python number (`tf.constant` itself takes Python values only in a graph)."""
    if not isinstance(value, SymbolicScalar):
        return tf.constant(value, dtype=dtype, shape=shape, name=name)
    tensor = tf.convert_to_tensor(value, dtype=dtype, name=name)
    return tensor if shape is None else tf.broadcast_to(tensor, shape)


_GRAPH_SAFE = {id(tf.maximum): _maximum, id(tf.math.maximum): _maximum,
               id(tf.constant): _constant}


def _variable_structure(value) -> bool:
    """A non-empty list/tuple of variables or modules (TF's or Keras'): held by reference
    in a graph."""
    import keras

    kinds = (tf.Variable, tf.Module, keras.Variable, keras.layers.Layer)
    return isinstance(value, (list, tuple)) and bool(value) and \
        all(isinstance(v, kinds) for v in value)


_STAND_INS = (DynamicList, Accumulator, AppendOnlyList, SymbolicScalar, MixedBool)
"""janus's graph values standing in for Python lists and numbers."""


def _printed(value):
    """An argument of `tf.print` as the graph prints it the way eager `tf.print` prints the
    Python value: a fed int as its tensor (the same digits); a fed float or bool refuses
    (TF prints `1/3` with 17 digits and True as 1, eager prints what Python's str gives)."""
    if isinstance(value, SymbolicScalar):
        if value.kind is not int:
            raise ConversionError(f"tf.print of a Python {value.kind.__name__} janus feeds "
                                  "(a graph would print it in TensorFlow's format)")
        return value.tensor
    return value


def _is_tensorflow(fn) -> bool:
    """A TF/Keras function, or a method of a variable (janus's shadows patch those, so
    their module is janus's: `VEC.scatter_nd_add([[i % 4]], ...)` with `i` fed, F47)."""
    module = getattr(fn, "__module__", None) or ""
    return module.split(".")[0] in ("tensorflow", "keras", "tf_keras") or \
        isinstance(getattr(fn, "__self__", None), tf.Variable)


def _traced_inline(fn, args: tuple, kwargs: dict, shadow):
    """A user's `tf.function` (not a bound method) handed a variable whose value janus's
    trace has changed (a deferred update), as its Python function traced into janus's
    graph: called as a tf.function, TF would trace and cache a graph of it that reads
    that deferred value (a tensor of janus's trace), and the user's own later calls of it
    would fail "out of scope" (fuzz v34 seed 32, F75). Otherwise it is called as it is
    (its cache, and its trace-time Python effects, as plain Python has them: zoo p17)."""
    if not isinstance(fn, tf.types.experimental.PolymorphicFunction) or not any(
            isinstance(v, tf.Variable) and id(v) in shadow.values
            for v in tf.nest.flatten((args, kwargs))):
        return fn
    inner = getattr(fn, "python_function", None)
    if not isinstance(inner, types.FunctionType):
        return fn
    try:
        same = list(inspect.signature(fn).parameters) == \
            list(inspect.signature(inner).parameters)
    except (TypeError, ValueError):
        return fn
    return inner if same else fn  # (a bound method: its instance is not at hand)


def _stands_for(value):
    """The Python type a trace-time stand-in stands for (a fed number is its int/float/
    bool, a list held as a tensor is a list, a fed array an ndarray), or None."""
    if isinstance(value, (SymbolicScalar, HostScalar)):
        return value.kind
    if isinstance(value, (DynamicList, AppendOnlyList, Accumulator)):
        return list
    if isinstance(value, HostArray):
        return np.ndarray
    if isinstance(value, MixedBool):
        value._refuse()
    return None


def _user_property(obj, name: str):
    """The `property` of `obj`'s class named `name` whose functions are the program's
    own, or None. Run as they are during a trace, their reads and writes of the heap
    would bypass the trace's ledger (stale reads, writes done once: fuzz v15)."""
    if isinstance(obj, (types.ModuleType, type)):
        return None
    for cls in type(obj).__mro__:
        attribute = cls.__dict__.get(name)
        if attribute is not None:
            if not isinstance(attribute, property):
                return None
            fns = [f for f in (attribute.fget, attribute.fset, attribute.fdel) if f is not None]
            if fns and all(isinstance(f, types.FunctionType) and is_user_code(f) for f in fns):
                return attribute
            return None
    return None


class TraceRuntime(TextHooks, BoolValues, ExitLoops, GeneralWhile, GeneralControlFlow,
                   Runtime):
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

    def ld_global(self, name, value):
        if self._is_top():
            source = global_(name)
        else:
            original = self.function.original
            source = global_(name, original.__module__ or original.__qualname__,
                             original.__globals__)
        return self.tracer.import_value(value, source)

    def defined(self, fn) -> None:
        self.tracer.trace_local_functions.add(id(fn))
        self.tracer.keepalive.append(fn)

    def ld_free(self, name, value):
        if id(self.function.original) in self.tracer.trace_local_functions:
            return value  # a cell of the traced frame: a value of this trace, not the heap's
        index = self.function.freevars.index(name)
        if self._is_top():
            return self.tracer.import_value(value, closure(index))
        return self.tracer.import_value(value, closure(index, self.function.original.__closure__[index]))

    # -- attributes
    def ld_attr(self, obj, name):
        if isinstance(obj, NodeProxy):
            return obj.read(name)
        if isinstance(obj, HostScalar):
            raise ConversionError(f"reads `.{name}` of the numpy value of `.numpy()` inside a "
                                  "graph")
        if name == "numpy" and is_symbolic(obj) and host_scalars.readable(obj):
            return host_scalars.NumpyRead(obj)  # (a graph tensor has no `.numpy`)
        if name == "numpy" and is_symbolic(obj) and host_arrays.readable(obj):
            return host_arrays.NumpyRead(obj)  # (`p=probs.numpy()[0]` of a draw)
        prop = _user_property(obj, name)
        if prop is not None:  # its getter is the program's code: traced like a method
            if prop.fget is None:
                raise AttributeError(f"property '{name}' of '{type(obj).__name__}' object "
                                     "has no getter")
            return self.call(None, prop.fget, obj)
        tracer = self.tracer
        local = tracer.ledger.get_attr(obj, name)
        if local is not _MISSING:
            return local
        if isinstance(obj, _STAND_INS) and not hasattr(obj, name):
            # (the stand-in lacks what the Python value has: janus's limit, not the
            # user's error; the trace fails and the plan retreats from the generalization)
            raise ConversionError(f"`.{name}` of a value janus stands in for in the graph "
                                  f"({type(obj).__name__}: a list or number it generalized)")
        value = getattr(obj, name)
        if name == "shape" and is_symbolic(obj) and value.rank is not None and \
                not value.is_fully_defined():
            return PartialShape(value)
        source = tracer.source_of(obj)
        if isinstance(value, (types.MethodType, types.BuiltinMethodType)) or \
                isinstance(obj, (DynamicList, Accumulator)):
            return value
        if source is None:
            if isinstance(value, tracer_mod.EAGER_TENSOR) and not isinstance(obj, types.ModuleType):
                raise ConversionError(f"reads tensor attribute `{name}` of a "
                                      f"{type(obj).__name__} janus cannot locate on each call")
            return value
        if isinstance(obj, types.ModuleType):
            return value
        if _variable_structure(value) and name not in getattr(obj, "__dict__", {}):
            # e.g. `module.trainable_variables` of an object guarded by identity: computed
            # from the object's structure; guarding it would recompute it on every call.
            return value
        return tracer.import_value(value, source.attr(name))

    def st_attr(self, obj, name, value):
        prop = _user_property(obj, name)
        if prop is not None:
            if prop.fset is None:
                raise AttributeError(f"property '{name}' of '{type(obj).__name__}' object "
                                     "has no setter")
            self.call(None, prop.fset, obj, value)
            return
        tracer = self.tracer
        source = tracer.source_of(obj)
        if source is not None:
            tracer.ledger.set_attr(obj, source, name, value)
        elif id(obj) in tracer.local_objects:
            tracer.local_writes += 1
            setattr(obj, name, value)
        else:
            raise ConversionError(f"writes attribute `{name}` of a {type(obj).__name__} "
                                  "janus cannot locate on each call")

    def del_attr(self, obj, name):
        prop = _user_property(obj, name)
        if prop is not None:
            if prop.fdel is None:
                raise AttributeError(f"property '{name}' of '{type(obj).__name__}' object "
                                     "has no deleter")
            self.call(None, prop.fdel, obj)
            return
        tracer = self.tracer
        source = tracer.source_of(obj)
        if source is None:
            raise ConversionError(f"deletes attribute `{name}` of an object janus cannot locate")
        if tracer.ledger.get_attr(obj, name) is _MISSING:  # (deleted earlier: AttributeError)
            if not hasattr(obj, name):
                raise ConversionError(f"deletes attribute `{name}`, which the object lacks")
            self.ld_attr(obj, name)  # read: guarded to be there on each call
        tracer.ledger.del_attr(obj, source, name)

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

    def _query_attr(self, fn, args):
        """`getattr(obj, name[, default])` / `hasattr(obj, name)` on an object janus
        locates: the answer is the heap's on each call (fuzz v15: it was folded in as
        the trace's answer, unguarded). A present attribute is read (and so guarded);
        one this trace wrote or deleted is the ledger's; an absent one refuses (janus
        has no guard on an attribute's absence)."""
        obj, name = args[0], args[1]
        tracer = self.tracer
        try:
            value = tracer.ledger.get_attr(obj, name)
            present = True
        except AttributeError:  # deleted earlier in this call
            value, present = None, False
        if value is _MISSING:
            if hasattr(obj, name):
                value = self.ld_attr(obj, name)
            else:
                raise ConversionError(f"tests for attribute `{name}`, which the "
                                      f"{type(obj).__name__} lacks (janus cannot guard that "
                                      "an attribute is absent)")
        if fn is hasattr:
            return present
        if present:
            return value
        if len(args) > 2:
            return args[2]
        raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")

    # -- items
    def ld_item(self, obj, key):
        if isinstance(obj, DynamicList):
            return obj[key]
        tracer = self.tracer
        tracer.read(obj)
        if not is_tensor(obj):
            keys.check(key, tracer)
        value = obj[tensor_index(key) if is_tensor(obj) else key]
        source = tracer.source_of(obj)
        if source is not None and isinstance(key, (int, str)) and id(obj) not in tracer.copy_sources:
            return tracer.import_value(value, source.item(key))
        return value

    def st_item(self, obj, key, value):
        keys.check(key, self.tracer)
        obj[key] = value
        self._touched(obj)

    def del_item(self, obj, key):
        keys.check(key, self.tracer)
        del obj[key]
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

    def aug(self, op, target, value):
        self.tracer.read(value)
        if op != "+=":
            self.tracer.read(target)
        result = self.percent(target, value) if op == "%=" and isinstance(target, str) else \
            AUG_OPS[op](target, value)  # (text: graphgen/formatted_text.py)
        if result is target and isinstance(target, (list, dict, AppendOnlyList)):
            self._touched(target)
        return result

    # -- calls
    def call(self, site, fn, /, *args, **kwargs):
        tracer = self.tracer
        if fn is builtins.print:
            tracer.ledger.print(args, kwargs)
            return None
        if isinstance(fn, functools._lru_cache_wrapper):  # (before it is unwrapped: F46)
            refusals.refuse(fn)
        if (fn is getattr and len(args) in (2, 3) or fn is hasattr and len(args) == 2) and \
                not kwargs and isinstance(args[1], str) and \
                tracer.source_of(args[0]) is not None and \
                not isinstance(args[0], (types.ModuleType, NodeProxy)):
            return self._query_attr(fn, args)
        if fn is isinstance and len(args) == 2 and not kwargs:
            stands_for = _stands_for(args[0])
            if stands_for is not None:  # (fuzz v15: a fed int was not an int)
                return issubclass(stands_for, args[1])
        if fn is type and len(args) == 1 and not kwargs and \
                isinstance(args[0], (SymbolicScalar, HostScalar, MixedBool)):
            _stands_for(args[0])
            return args[0].kind
        if fn in (int, float, bool) and len(args) == 1 and not kwargs and \
                (isinstance(args[0], HostScalar) or is_symbolic(args[0]) and
                 host_scalars.readable(args[0])):  # (transform/breaks.in_graph_reads)
            scalar = args[0] if isinstance(args[0], HostScalar) else \
                HostScalar(tf.stop_gradient(args[0]))  # (a constant to a tape, as in eager)
            return scalar.number(fn)
        if fn in (int, float, bool) and len(args) == 1 and not kwargs and \
                isinstance(args[0], (SymbolicScalar, MixedBool)):
            number = args[0].truth() if isinstance(args[0], MixedBool) else args[0]
            return number.convert(fn)
        identity.check_call(tracer, fn, args, kwargs)  # (`id(t)`, `tape.watch(t)`...)
        keys.check_call(fn, args, tracer)  # (`d.get(str(k))`: graphgen/keys.py)
        tapes.check_call(tracer, fn)  # (`tape.stop_recording()` inside a loop body...)
        if connectivity.is_gradient(fn):  # (None where Python's tape gives None)
            return connectivity.gradient(fn, args, kwargs)
        if isinstance(fn, (host_scalars.NumpyRead, host_arrays.NumpyRead)):
            return fn(*args, **kwargs)  # (transform/breaks.in_graph_reads)
        if number_functions.handles(fn, args, kwargs):  # `math.cos(theta)`, theta fed
            return number_functions.dispatch(fn, args, kwargs)
        if reductions.handles(fn, args, kwargs):  # `np.mean(a)`, `sum(rewards)`
            return reductions.dispatch(fn, args, kwargs)
        if fn is len and args and isinstance(args[0], DynamicList):
            return dynamic_length(args[0])
        if fn is len and len(args) == 1 and not kwargs and isinstance(args[0], Accumulator):
            return grown_length(args[0])
        if fn in (zip, enumerate) and any(isinstance(a, DynamicList) for a in args):
            return dynamic_zip(fn, args, kwargs)
        if isinstance(fn, (types.FunctionType, types.BuiltinFunctionType)):
            special = stack_args(fn, args)
            if special is not None:
                return special(*args[1:], **kwargs)
        fn = _traced_inline(fn, args, kwargs, tracer.shadow)
        target, bound_self = user_function(fn)
        if target is not None and lambda_traced_as_is(target):
            target = None  # its reads are hooked already, or it reads only its arguments
        if target is not None:
            # (a lambda made outside converted code reading its closure or globals,
            # `self.lr_fn = lambda: 0.1 * 0.5 ** self.step`: converted as the def it is)
            converted = convert(target)
            node_index = tracer.profile.recursive.get(converted.key)
            if node_index is not None and tracer.profile.cases.get(converted.key) and \
                    node_index < len(args) and not kwargs:
                if isinstance(args[node_index], NodeProxy):
                    return args[node_index].invoke()
                return self._recursive_root(converted, bound_self, args, node_index)
            runtime = TraceRuntime.for_function(converted)
            instance = runtime.function.instantiate(runtime)
            tracer.functions[id(converted)] = converted
            check_defaults(target, args if bound_self is None else (bound_self, *args), kwargs)
            if bound_self is not None:
                return instance(bound_self, *args, **kwargs)
            return instance(*args, **kwargs)
        if draws.owner_supported(getattr(fn, "__self__", None), getattr(fn, "__name__", "")):
            return host_draws.draw(tracer, fn, args, kwargs)
        refusals.refuse(fn)
        if args and any(fn is f for f in refusals.ITERATING):
            for value in args:
                refusals.refuse_data_iteration(value)
        args, kwargs = traced_user_functions(self, site, fn, args, kwargs)
        safe = _GRAPH_SAFE.get(id(fn))
        if safe is not None and any(is_symbolic(a) or isinstance(a, SymbolicScalar)
                                    for a in args):
            fn = safe
        args = tuple(traced_callback(self, site, fn, a) for a in args)
        kwargs = {k: traced_callback(self, site, fn, v) for k, v in kwargs.items()}
        printing = fn is tf.print
        if printing:
            args = tuple(_printed(a) for a in args)
        if _is_tensorflow(fn):  # `labels=[tree.label]` with the label fed: a tensor list
            args = tuple(pack_scalars(host_scalars.pack_list(a)) for a in args)
            kwargs = {k: pack_scalars(host_scalars.pack_list(v)) for k, v in kwargs.items()}
        # TF's map_fn/scan/foldl set the variable scope's caching device while they trace
        # a callback and only reset it when it returns: a callback that refuses to convert
        # (a wrapped user function, or a lambda whose hooked reads refuse) must not leave
        # it set (later eager variable creation would fail). Trace time only: cheap.
        scope = tf.compat.v1.get_variable_scope()
        caching_device = scope.caching_device
        owner = getattr(fn, "__self__", None)
        if isinstance(owner, tf.random.Generator):  # its state moves when the graph runs
            tracer.random_states[id(owner.state)] = owner.state
        if not (id(owner) in tracer.copy_sources and
                getattr(fn, "__name__", "") in ("append", "extend")):
            tracer.read(owner)
        for value in list(args) + list(kwargs.values()):
            tracer.read(value)
        losses = refusals.layer_losses(fn)
        try:  # (here in `call`: an error of the library call is the user's, not janus's)
            result = formatted_text.call(fn, args, kwargs)  # (`len(str(n))`...)
        except BaseException:
            scope.set_caching_device(caching_device)
            raise
        refusals.refuse_layer_losses(losses)
        if id(fn) in identity.USER_MERGES:  # (the user's own tf.cond / tf.while_loop)
            identity.built(tracer, result)
        if isinstance(fn, type) and not tracer.is_static(result):
            tracer.local_objects.add(id(result))
            tracer.keepalive.append(result)
        owner = getattr(fn, "__self__", None)
        if owner is not None and getattr(fn, "__name__", "") in _MUTATORS and \
                isinstance(owner, (list, dict, AppendOnlyList)):
            self._touched(owner)
        return None if printing else result  # (eager `tf.print` returns None, a graph's an op)


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
        identity.check_is(left, right)
        return left is right

    def test(self, site, value):
        exit_test = self.tracer.loop_exits.get((self.key, site))
        if exit_test is not None:  # of a loop being generalized: recorded, the body goes on
            self.tracer.read(value)
            return exit_test.record(value)
        if isinstance(value, DynamicList):  # `if xs:` on a list whose length varies
            value = value.length() > 0
        if isinstance(value, (SymbolicScalar, HostScalar, MixedBool)):
            value = value.tensor
        if not is_symbolic(value):
            self.tracer.read(value)
            self.tracer.passed(self.key, site)
            return bool(value)
        self.tracer.note_exit(self.key, site)
        return self.tracer.expect(self._site(site), self.key, value)

    def loop_test(self, site, value):
        return self.test(site, value)

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
        return iterable

    def if_stmt(self, site, test, if_true, if_false, get_state, set_state, both=()):
        if isinstance(test, SymbolicScalar):
            test = test.tensor
        if is_symbolic(test) and ((self.key, site) in self.tracer.plan.general_branches or
                                  self._in_general_exit_loop()):
            return self._cond(site, test, if_true, if_false, get_state, set_state, both)
        if self.test(site, test):
            if_true()
        else:
            if_false()

    def for_stmt(self, site, iterable, body, get_state, set_state, names, exit_site=None,
                 live=(), fresh=()):
        if exit_site is not None:
            key = (self.key, exit_site)
            if self._exit_general(exit_site) or isinstance(iterable, DynamicList) \
                    or is_symbolic(iterable) and (iterable.shape.rank is None or
                                                  iterable.shape[0] is None):
                return self._while_exit(site, key, loop_items(iterable), body, get_state,
                                        set_state, names, live, fresh)
            for item in self.iterate(site, iterable):
                if body(item):
                    break
            return
        if isinstance(iterable, DynamicList):
            return self._while_for(site, iterable, body, get_state, set_state, names)
        if is_symbolic(iterable) and (iterable.shape.rank is None or iterable.shape[0] is None):
            return self._while_for(site, DynamicList(iterable), body, get_state, set_state, names)
        for item in self.iterate(site, iterable):
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
