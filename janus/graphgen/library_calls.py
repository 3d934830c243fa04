"""A traced call of a library function (TensorFlow, Keras, numpy...): run as it is,
inside the graph being built, with its arguments made graph-ready and what it touches
noted for the trace.

    tf.maximum(x, x * 0.2)      janus's `_maximum` (TF's remapper would fuse it wrongly)
    tf.print("step", n)         n fed: its tensor; the call's value None, as eager's
    tf.nn.softmax(labels=[tree.label])   fed numbers in a list packed into a tensor
    rng.normal()                numpy's draws: from the host stream (host_draws)
    tf.map_fn(lambda ...)       callbacks converted (callbacks.traced_callback)
    layer(x)                    a Keras layer under the trace's pending `trainable`
                                writes (keras_state.calling); the `call` of a layer
                                class of the user's converted (layer_calls.py)

Refused: library functions whose effects a graph cannot repeat (graphgen/refusals.py).
"""
from __future__ import annotations

import contextlib
import inspect
import types

import tensorflow as tf

from janus import user_attributes
from janus import draws
from janus.errors import ConversionError
from janus.fallback import heap, variables
from janus.graphgen import ambient_summary, container_writes, formatted_text, \
    global_settings, handle_writes, host_draws, host_scalars, identity, keras_state, \
    eager_functions, layer_calls, leftover_tensors, library_modes, past_hooks, \
    plain_records, refusals, rounded, tensor_arrays
from janus.graphgen.callbacks import traced_callback
from janus.graphgen.distribute import traced_user_functions
from janus.graphgen.value_kinds import is_symbolic
from janus.graphgen.append_only import AppendOnlyList
from janus.graphgen.values import FedScalarMisuse, SymbolicScalar, WrappedByTracker, \
    pack_scalars
from janus.graphgen.host_scalars import HostScalar
from janus.graphgen.operator_lists import as_dtype, fed_numbers_in
from janus.tensors import is_tensor
from janus.operation_hooks import operation_hook

_STORING = frozenset({"append", "insert", "__setitem__", "setdefault"})
"""Container methods that store an argument without reading it."""


def _maximum(x, y, name=None):
    """`tf.maximum` as `-tf.minimum(-x, -y)`: same values (NaN too) and gradients (ties
    to `x`). TF 2.21's oneDNN remapper rewrites `Maximum(x, Mul(x, c))` into
    `LeakyRelu(x, c)`, which is `min` when c > 1: the graph would compute something else."""
    if not (is_tensor(x) and is_tensor(y) and x.dtype.is_floating):
        # the fusion needs two float tensors; and unsigned ints cannot be negated
        return tf.maximum(x, y, name=name)
    return tf.negative(tf.minimum(tf.negative(x), tf.negative(y)), name=name)


def _constant(value, dtype=None, shape=None, name="Const"):
    """`tf.constant` of a fed number (a SymbolicScalar, or a numpy scalar's HostScalar):
    its tensor, converted as eager TF converts the number (`tf.constant` itself takes
    Python values only in a graph)."""
    if type(value) in (list, tuple):  # (`tf.constant([lr, beta])`, lr fed)
        leaves = tf.nest.flatten(value)
        if any(is_tensor(v) for v in leaves):
            raise ConversionError("tf.constant of a list holding a tensor and a fed number")
        if dtype is None:
            value = pack_scalars(host_scalars.pack_list(value))
        else:
            value = tf.nest.map_structure(lambda v: as_dtype(v, dtype), value)
    elif isinstance(value, HostScalar):
        value = host_scalars.converted(value, dtype)
    elif not isinstance(value, SymbolicScalar):
        return tf.constant(value, dtype=dtype, shape=shape, name=name)
    tensor = tf.convert_to_tensor(value, dtype=dtype, name=name)
    return tensor if shape is None else tf.broadcast_to(tensor, shape)


_SEEDING = frozenset({"reset_from_seed", "from_seed", "create_rng_state", "set_seed",
                      "set_random_seed"})


def _refuse_fed_seeds(fn, owner, args: tuple, kwargs: dict) -> None:
    """A fed number handed as a seed (`gen.reset_from_seed(n % 3)`): TF makes a
    Generator's state from a Python int otherwise than from a tensor of it (other
    numbers would be drawn, F172), so the number stays a constant of the graph."""
    if user_attributes.get(fn, "__name__", "") not in _SEEDING or not (
            isinstance(owner, (tf.random.Generator, type)) or owner is None):
        return
    for value in tf.nest.flatten([list(args), list(kwargs.values())]):
        if isinstance(value, SymbolicScalar):
            raise FedScalarMisuse("a Python number that changes per call is a random "
                                  "generator's seed", value.role)


def _convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """`tf.convert_to_tensor` of fed numbers: a dtype hint as eager TF takes it for Python
    numbers (when they convert to it; F160: TF casts a list of tensors to the hint, so the
    float32 stand-ins of fed floats became ints)."""
    if not fed_numbers_in(value):
        return tf.convert_to_tensor(value, dtype=dtype, dtype_hint=dtype_hint, name=name)
    if type(value) in (list, tuple) and any(is_tensor(v) for v in tf.nest.flatten(value)):
        if dtype is None and dtype_hint is not None:
            raise ConversionError("tf.convert_to_tensor of a list holding a tensor and a "
                                  "fed number, with a dtype hint")
        return tf.convert_to_tensor(pack_scalars(host_scalars.pack_list(value)),
                                    dtype=dtype, name=name)
    if dtype is None and dtype_hint is not None:
        try:
            return _constant(value, dtype_hint, name=name or "Const")
        except (TypeError, ValueError):
            pass
    return _constant(value, dtype, name=name or "Const")


_GRAPH_SAFE = {id(tf.maximum): _maximum, id(tf.math.maximum): _maximum,
               id(tf.constant): _constant, id(tf.convert_to_tensor): _convert_to_tensor}


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
    module = user_attributes.get(fn, "__module__", None) or ""
    return module.split(".")[0] in ("tensorflow", "keras", "tf_keras") or \
        isinstance(user_attributes.get(fn, "__self__", None), tf.Variable)


def traced_inline(fn, args: tuple, kwargs: dict, shadow):
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


_NOT_READING = (isinstance, type, id, callable)
"""Builtins that ask about a heap list or dict without reading its items or length."""


@operation_hook
def call(runtime, site, fn, args: tuple, kwargs: dict):
    """`fn(*args, **kwargs)` of a library function, traced into the graph."""
    tracer = runtime.tracer
    if draws.owner_supported(user_attributes.get(fn, "__self__", None), user_attributes.get(fn, "__name__", "")):
        return host_draws.draw(tracer, fn, args, kwargs)
    setting = global_settings.read(tracer, fn, args, kwargs)  # `keras.backend.floatx()`
    if setting is not global_settings.UNREAD:
        return setting
    refusals.refuse(fn, tracer, args, kwargs)
    through = plain_records.through_hooks(  # (`"{0.lr}".format(cfg)`: reads `cfg.lr`)
        tracer, fn, args, kwargs, runtime.ld_attr,
        lambda value: past_hooks.located_by_type(tracer, value))
    if through is not None:
        fn, args, kwargs = through
    past_hooks.refuse(tracer, fn, args, kwargs)  # (`ev.is_set()`, `pickle.dumps(cfg)`)
    if args and any(fn is f for f in refusals.ITERATING):
        for value in args:
            refusals.refuse_data_iteration(value)
    args, kwargs = traced_user_functions(runtime, site, fn, args, kwargs)
    safe = _GRAPH_SAFE.get(id(fn))
    if safe is not None and any(is_symbolic(a) or fed_numbers_in(a) for a in args):
        fn = safe
    args = tuple(traced_callback(runtime, site, fn, a) for a in args)
    kwargs = {k: traced_callback(runtime, site, fn, v) for k, v in kwargs.items()}
    printing = fn is tf.print
    if printing:
        args = tuple(_printed(a) for a in args)
        if tf.compat.v1.get_default_graph() is tracer.graph and not tracer.callback_depth:
            # deferred as Python's print is, run eagerly after the graph: in order with
            # the call's prints, and never twice when a guard fails (F180)
            tracer.ledger.print(args, heap.named_streams(kwargs), "tf")
            return None
    if (user_attributes.get(fn, "__module__", None) or type(fn).__module__ or "").startswith("keras"):
        global_settings.keras_call(tracer)  # (Keras' code reads `epsilon()` itself)
    handed = list(args) + list(kwargs.values())  # (as the user's: before lists are packed)
    if _is_tensorflow(fn):  # `labels=[tree.label]` with the label fed: a tensor list
        args = tuple(pack_scalars(host_scalars.pack_list(a)) for a in args)
        kwargs = {k: pack_scalars(host_scalars.pack_list(v)) for k, v in kwargs.items()}
    # TF's map_fn/scan/foldl set the variable scope's caching device while they trace
    # a callback and only reset it when it returns: a callback that refuses to convert
    # (a wrapped user function, or a lambda whose hooked reads refuse) must not leave
    # it set (later eager variable creation would fail). Trace time only: cheap.
    scope = tf.compat.v1.get_variable_scope()
    caching_device = scope.caching_device
    owner = user_attributes.get(fn, "__self__", None)
    if isinstance(owner, tf.random.Generator):  # its state moves when the graph runs
        tracer.random_states[id(owner.state)] = owner.state
    _refuse_fed_seeds(fn, owner, args, kwargs)
    if not (isinstance(owner, (list, dict, AppendOnlyList)) and
            user_attributes.get(fn, "__name__", "") in _STORING):
        for value in list(args) + list(kwargs.values()):  # (only stored: graphgen/rounded.py)
            rounded.refuse_handed(value, user_attributes.get(fn, "__name__", "a library function"))
    if not (id(owner) in tracer.copy_sources and
            user_attributes.get(fn, "__name__", "") in ("append", "extend")):
        tracer.read(owner)
    if not any(fn is f for f in _NOT_READING):  # (a list handed to a TF op: its items
        # read, also where it was packed into a tensor, or held in a list handed: F348)
        for value in handed if fn is len else plain_records.held(handed):
            tracer.read(value, length=fn is len)
    container_writes.refuse_around(tracer, fn, args)  # (`object.__setattr__(o, ...)`)
    targets = container_writes.mutated(fn, owner, args)
    for target in targets:  # (`s.hist.append(t)`, `heapq.heappush(s.queue, item)`)
        if id(target) in tracer.tracked_copies:
            _refuse_wrapped(fn, args, tracer.copy_sources[id(target)].expr)
        runtime._touched(target)  # (before: a container janus cannot copy refuses unchanged)
    watched = container_writes.watch(tracer, args, kwargs, targets)
    tensor_arrays.before_call(tracer, fn, args, kwargs)
    since = handle_writes.mark()
    losses = refusals.layer_losses(fn)
    own_function = eager_functions.user_tf_function(fn)  # (its graph is the program's:
    # its variable updates are real ops there, as in the graph TF traced before: F422)
    try:  # (an error of the library call is the user's, not janus's: raised as it is)
        with keras_state.calling(tracer, fn), ambient_summary.calling(tracer, fn), \
                library_modes.answering(tracer), \
                layer_calls.converted_calls(runtime, site, fn), \
                leftover_tensors.library_call(tracer, fn, args, kwargs), \
                variables.unshadowed() if own_function else contextlib.nullcontext():
            result = formatted_text.call(fn, args, kwargs)  # (`len(str(n))`...)
    except BaseException:
        scope.set_caching_device(caching_device)
        raise
    refusals.refuse_layer_losses(losses)
    leftover_tensors.after_library_call(tracer, runtime, site)  # (which line changed it)
    handle_writes.check(tracer, since, fn, args, kwargs)
    for copy in container_writes.changed(watched):  # (a call that changed a copy it got)
        runtime._touched(copy)
    tensor_arrays.after_call(tracer, fn, args, kwargs, result)
    if id(fn) in identity.USER_MERGES:  # (the user's own tf.cond / tf.while_loop)
        identity.built(tracer, result)
    if isinstance(fn, type) and not tracer.is_static(result):
        tracer.local_objects.add(id(result))
        tracer.keepalive.append(result)
    return None if printing else result  # (eager `tf.print` returns None, a graph's an op)


def _refuse_wrapped(fn, args: tuple, expr: str) -> None:
    """A copy of a list Keras tracks (a layer's `self.log = []`) given containers by
    `extend`/`insert`: Keras's TrackedList wraps them (a dict becomes a TrackedDict, its
    `append` keeps it), which the copy written back with `[:] =` would not."""
    name = user_attributes.get(fn, "__name__", "")
    values = list(args[0]) if name == "extend" and args else \
        [args[1]] if name == "insert" and len(args) > 1 else []
    if any(isinstance(v, (list, dict, set, tuple)) for v in values):
        raise WrappedByTracker(name, expr)
