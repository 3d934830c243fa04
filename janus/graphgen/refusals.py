"""Calls a graph refuses, recognizable before any tracing.

The tracer refuses them (a ConversionError: the call runs eagerly); the profiler notes
where a profiled call made one (`Profile.refusals`), so that janus can decide not to
trace at all when every profiled call made one (`Profile.certain_refusal`): that trace
would only fail.
"""
from __future__ import annotations

import functools
import inspect
import sys
import types

import tensorflow as tf
from tensorflow.python.framework.ops import EagerTensor

from janus import draws, user_attributes
from janus.graphgen import held_code
from janus.errors import BuildsOnFirstCall, ConversionError
from janus.graphgen import finalizers, made_closures, outside_world, process_state, third_party, \
    unconverted_reads
from janus.transform import user_frames
from janus.transform.runtime import is_user_code


def impure_reason(fn) -> str:
    """Host-side randomness and clocks would be frozen into the graph at trace time."""
    import random

    import numpy as np

    owner = user_attributes.get(fn, "__self__")
    module = user_attributes.get(fn, "__module__", None) or ""
    if isinstance(owner, (np.random.Generator, np.random.RandomState, random.Random)) or \
            module.split(".")[0] in ("random", "time", "datetime", "secrets", "uuid") or \
            module.startswith("numpy.random") or module == "os":
        name = user_attributes.get(fn, "__qualname__",
                                   user_attributes.get(fn, "__name__", repr(fn)))
        return (f"calls {module + '.' if module else ''}{name}, whose result would be "
                "frozen into the graph (it differs on every call in Python)")
    return ""


_LOGGING = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical",
                      "fatal", "log"})
_WRITES = frozenset({"write", "writelines"})
_LIBRARY_LOGGING = frozenset({"absl.logging", "tensorflow.python.platform.tf_logging"})
_LIBRARY_LOGGING_CALLS = _LOGGING | {"vlog", "log_every_n", "log_every_n_seconds",
                                     "log_first_n", "log_if"}
"""absl's and TF's logging functions (`absl.logging.log_every_n`, `tf.compat.v1.logging.info`):
a record made, or a per-line counter moved, while tracing (F317)."""


def output_reason(fn) -> str:
    """Output other than `print` (which janus defers to after the graph ran): a logger's
    record, a write to a stream or file, a warning would be made once, while tracing, and
    never when the graph runs."""
    import io
    import logging
    import warnings

    owner = user_attributes.get(fn, "__self__")
    name = user_attributes.get(fn, "__name__", "")
    if process_state.logger_query(fn):  # (`log.isEnabledFor(20)`: read per call, F424)
        return ""
    if isinstance(owner, (logging.Logger, logging.LoggerAdapter, logging.Handler)) or \
            user_attributes.get(fn, "__module__", None) == "logging" and name in _LOGGING or \
            user_attributes.get(fn, "__module__", None) in _LIBRARY_LOGGING and \
            name in _LIBRARY_LOGGING_CALLS or \
            name in _WRITES and (isinstance(owner, io.IOBase) or owner is not None and any(
                owner is stream for stream in (sys.stdout, sys.stderr, sys.__stdout__,
                                               sys.__stderr__))) or \
            fn is warnings.warn or fn is warnings.warn_explicit:
        return (f"calls {getattr(fn, '__qualname__', name)}: its output would be made while "
                "tracing, not when the graph runs")
    return ""


def python_callbacks() -> tuple:
    return tuple(f for f in (tf.numpy_function, tf.py_function,
                             getattr(tf.compat.v1, "py_func", None),
                             getattr(tf.compat.v1, "numpy_function", None)) if f is not None)


def callback_reason(fn) -> str:
    """`tf.numpy_function(step, ...)`: TF calls `step` (the user's plain function, as it
    is) while the graph runs; if the graph then fails a guard, the call reruns eagerly
    and `step`'s side effects (an environment step) would happen twice."""
    if any(fn is f for f in python_callbacks()):
        return (f"calls {getattr(fn, '__name__', fn)}: its Python function would run "
                "inside the graph, and again if the call had to rerun eagerly")
    return ""


def cache_reason(fn) -> str:
    """A `functools.lru_cache` / `functools.cache` function called in a trace would keep
    the trace's symbolic values in its cache (a later call gets a tensor of a graph that
    is gone), or answer from the cache at trace time for every graph call (F46)."""
    if isinstance(fn, functools._lru_cache_wrapper):
        return (f"calls {getattr(fn, '__qualname__', fn)}, a functools.lru_cache function: "
                "its cache would keep the graph's values")
    return ""


_CHECKPOINT_METHODS = frozenset({"save", "write", "restore", "read", "save_weights",
                                 "load_weights", "save_own_variables", "export"})
_SAVING_FUNCTIONS = frozenset({"tensorflow.python.saved_model.save.save",
                               "keras.src.saving.saving_api.save_model",
                               "keras.src.saving.saving_api.load_model"})


def checkpoint_reason(fn) -> str:
    """A checkpoint saved or restored in the call (`manager.save()`, `ckpt.restore(path)`,
    `model.save_weights(path)`, `tf.saved_model.save`): it writes or reads files and the
    variables' values on the host, once, while janus traces (a graph would not save on
    its calls; TF's own code fails there: F363). Refused up front with that reason."""
    owner = user_attributes.get(fn, "__self__", None)
    name = user_attributes.get(fn, "__name__", "") or ""
    keras = sys.modules.get("keras")
    savers = (tf.train.Checkpoint, tf.train.CheckpointManager)
    model = getattr(keras, "Model", None)
    if isinstance(model, type):
        savers += (model,)
    if name in _CHECKPOINT_METHODS and isinstance(owner, savers):
        return (f"{'restores' if name in ('restore', 'read', 'load_weights') else 'saves'} "
                f"a checkpoint ({type(owner).__name__}.{name}): it reads or writes files "
                "and the variables' values on the host, which a graph would not do on its "
                "calls")
    qualified = f"{user_attributes.get(fn, '__module__', '') or ''}.{name}"
    if qualified in _SAVING_FUNCTIONS:
        return (f"saves or loads a model ({name}): it reads or writes files and the "
                "variables' values on the host, which a graph would not do on its calls")
    return ""


def _wrapped_user_functions(fn, args: tuple | None = None) -> list:
    """The program's functions a library callable runs: behind `__wrapped__`
    (`@tf.custom_gradient`, `@tf.recompute_grad`, `do_not_convert`), a singledispatch's
    registry (given the call's `args`: the implementation it dispatches to). Not a
    `tf.function` (janus inlines those: library_calls.traced_inline)."""
    if user_attributes.has(fn, "python_function") or \
            isinstance(fn, types.FunctionType) and is_user_code(fn):
        return []  # (the program's own wrapper, or janus's of it: converted, or traced as is)
    found, seen = [], set()
    registry = user_attributes.get(fn, "registry")
    dispatch = user_attributes.get(fn, "dispatch")
    pending = None
    if registry is not None and callable(dispatch) and args:
        try:
            pending = [dispatch(args[0].__class__)]
        except Exception:  # noqa: BLE001 - no implementation: every one, as before
            pending = None
    if pending is None:
        pending = [fn] + list(user_attributes.get(registry, "values", lambda: ())())
    while pending:
        item = pending.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if user_attributes.get(item, "__janus_callback__", False):
            return []  # (janus's wrapper of a callback: it converts the function itself)
        if isinstance(item, types.FunctionType) and is_user_code(item):
            found.append(item)
        inner = user_attributes.get(item, "__wrapped__")
        if inner is not None:
            pending.append(inner)
    return [f for f in found if f is not fn]


def _dispatched_reason(fn, args: tuple | None, tracer) -> str:
    """A singledispatch call chooses its implementation by its first argument's type: a
    tensor's (a trace's symbolic one, an eager one in Python) must choose alike, and an
    object the heap holds is guarded by type (another type may choose another
    implementation: F398)."""
    dispatch = user_attributes.get(fn, "dispatch")
    if user_attributes.get(fn, "registry") is None or not callable(dispatch) or not args:
        return ""
    first = args[0]
    try:
        if isinstance(first, tf.Tensor) and dispatch(first.__class__) is not \
                dispatch(EagerTensor):
            return (f"calls {user_attributes.get(fn, '__qualname__', 'a singledispatch')}, "
                    "which chooses another implementation for a graph's tensor")
    except Exception:  # noqa: BLE001 - no implementation: the call raises as in Python
        return ""
    source = tracer.source_of(first) if tracer is not None else None
    if source is not None and not isinstance(first, tf.Tensor):
        tracer.guard("type", source, type(first))
    return ""


def _bound(functions: list, args: tuple | None, kwargs: dict | None) -> dict:
    """id(function) -> {parameter: value} of this call's arguments, for each of the
    wrapped `functions` they bind to (a helper they call, or a signature they do not
    fit: none)."""
    if args is None:
        return {}
    bound = {}
    for function in functions:
        try:
            bound[id(function)] = dict(
                inspect.signature(function).bind(*args, **(kwargs or {})).arguments)
        except (TypeError, ValueError):
            continue
    return bound


def wrapped_state_reason(fn, tracer=None, args: tuple | None = None,
                         kwargs: dict | None = None) -> str:
    """A function of the program's behind a library decorator runs unconverted, inside
    TensorFlow, once while tracing: its reads of globals and closures would be folded into
    the graph, its heap writes made once (a gradient-reversal layer's annealed lambda).
    Reads of immutable values (`GRL_SCALE = 0.3`, a closure's `lam`, `args.lam`) are
    guarded by value instead (graphgen/unconverted_reads.py). So are those of the Python
    function of a `tf.function` the call made (graphgen/made_closures.py). Given the
    call's `args`, what the wrapped functions read of their arguments too (`opt.lr` in a
    singledispatch implementation, F398): only the implementation it dispatches to runs."""
    wrapped = _wrapped_user_functions(fn, args)
    functions = wrapped or made_closures.made_tf_function(tracer, fn)
    if not functions:
        return ""
    found = _dispatched_reason(fn, args, tracer)
    if found:
        return found
    found = unconverted_reads.reason(functions, tracer, gradient=bool(wrapped),
                                     arguments=_bound(wrapped, args, kwargs))
    if found:
        return (f"calls {found} (it runs unconverted through a library decorator, once "
                "while tracing)")
    return ""


_KERAS_HOOKS = {"Metric": ("update_state", "result", "reset_state"), "Loss": ("call",)}
"""Methods of the program's Keras' `__call__` runs for a Metric and a Loss (a Layer's
`call` is converted: graphgen/layer_calls.py)."""


def keras_hooks_reason(fn, tracer=None) -> str:
    """`metric(y, p)`, `loss(y, p)` of a subclass of the program's: Keras runs its
    `update_state`/`result`/`call` unconverted, once while tracing (a Python counter in
    `update_state` never moved on the graph's calls; `result()` kept the traced one). A
    hook that writes no Python state and reads variables, Keras' own members and
    immutable settings (guarded by value: graphgen/unconverted_reads.py) stays in the
    graph."""
    if isinstance(fn, (types.FunctionType, types.MethodType, types.BuiltinFunctionType,
                       type)):
        return ""
    owner = fn
    hooks = []
    for base in type(owner).__mro__:
        names = _KERAS_HOOKS.get(base.__name__)
        if names is None or not base.__module__.startswith(("keras", "tf_keras")):
            continue
        for name in names:
            method = getattr(type(owner), name, None)
            if isinstance(method, types.FunctionType) and is_user_code(method) and \
                    method not in hooks:
                hooks.append(method)
    if not hooks:
        return ""
    self_names = {id(m): m.__code__.co_varnames[0] for m in hooks if m.__code__.co_argcount}
    found = unconverted_reads.reason(hooks, tracer, owner, self_names)
    if found:
        return (f"calls a {type(owner).__name__}, whose {found}: Keras runs it unconverted, "
                "once while tracing")
    return ""


_OPTIMIZER_BASES = frozenset({"BaseOptimizer", "Optimizer", "OptimizerV2"})


def unbuilt_reason(fn) -> str:
    """A method of a Keras optimizer that has not made its variables yet (its first
    `apply_gradients` builds it): janus refuses the trace before the call, not when the
    optimizer makes a variable (graphgen/specialize.py), by when it has marked itself
    built and the call that then ran plainly raised AttributeError (fuzz v58, seed
    2100012: `'RMSprop' object has no attribute '_velocities'`)."""
    owner = user_attributes.get(fn, "__self__")
    if owner is None or user_attributes.get(owner, "built", True) is not False:
        return ""
    if not any(c.__name__ in _OPTIMIZER_BASES and c.__module__.startswith(("keras", "tf_keras"))
               for c in type(owner).__mro__):
        return ""
    return (f"calls `{getattr(fn, '__name__', fn)}` of a {type(owner).__name__} optimizer "
            "before it made its variables (its first update builds it): that call runs "
            "plainly")


def frame_reason(fn) -> str:
    """`sys._getframe()` / `inspect.currentframe()` reached by another name: the frame a
    trace gives is janus's, not the user's (transform/user_frames.py, F231)."""
    if user_frames.reads_frames(fn):
        return (f"calls {getattr(fn, '__qualname__', fn)}, which reads the caller's frame "
                "(in a trace, janus's)")
    return ""


_KERAS_HOST_METHODS = frozenset({
    "adapt", "finalize_state", "fit", "evaluate", "predict", "train_on_batch",
    "test_on_batch", "predict_on_batch", "compile", "save", "save_weights", "load_weights",
    "set_weights", "summary"})
"""Keras methods that compute or keep a layer's state in Python (`Normalization.adapt`
stores its mean as a plain tensor attribute), run their own loops, or do I/O."""


def keras_host_reason(fn) -> str:
    """`layer.adapt(data)`, `model.fit(...)`...: run while tracing, a preprocessing layer
    kept the trace's tensors as its Python state (every later call, plain or not, then
    failed: fuzz v75 seed 480022) and the graph would never adapt again."""
    name = user_attributes.get(fn, "__name__", "")
    if name not in _KERAS_HOST_METHODS:
        return ""
    owner = user_attributes.get(fn, "__self__")
    if owner is None or not any(base.__name__ == "Layer" and
                                base.__module__.startswith(("keras", "tf_keras"))
                                for base in type(owner).__mro__):
        return ""
    return (f"calls {type(owner).__name__}.{name}, which computes or keeps the layer's "
            "state in Python (not ops a graph can run on every call)")


def refuse(fn, tracer=None, args: tuple | None = None, kwargs: dict | None = None) -> None:
    """Raise the ConversionError the tracer gives for a call of `fn`, if any (with the
    tracer: the values the program's unconverted code reads are guarded)."""
    reason = impure_reason(fn) or callback_reason(fn) or cache_reason(fn) or \
        checkpoint_reason(fn) or output_reason(fn) or \
        wrapped_state_reason(fn, tracer, args, kwargs) or \
        keras_hooks_reason(fn, tracer) or keras_host_reason(fn) or frame_reason(fn) or \
        held_code.reason(fn, tracer) or outside_world.reason(fn) or \
        third_party.reason(fn) or finalizers.reason(fn, args, kwargs)
    if reason:
        raise ConversionError(reason)
    reason = unbuilt_reason(fn)
    if reason:
        raise BuildsOnFirstCall(reason)


def call_reason(fn, args: tuple, kwargs: dict | None = None) -> str:
    """Why tracing a call of `fn(*args, **kwargs)` cannot succeed ("" when it may): a
    refused library call, a tensor's value read with `.numpy()`, or a tensor converted to
    a Python number. A numpy draw a graph makes (janus/draws.py) is none."""
    if draws.supported_call(fn, args, kwargs or {}):
        return ""
    reason = impure_reason(fn) or callback_reason(fn) or cache_reason(fn) or \
        checkpoint_reason(fn) or output_reason(fn) or wrapped_state_reason(fn, None, args, kwargs) or \
        keras_hooks_reason(fn) or keras_host_reason(fn) or frame_reason(fn) or \
        held_code.reason(fn) or outside_world.reason(fn) or third_party.reason(fn) or \
        finalizers.reason(fn, args, kwargs)
    if reason:
        return reason
    if user_attributes.get(fn, "__name__", "") == "numpy" and \
            type(user_attributes.get(fn, "__self__")) is EagerTensor:
        return "reads a tensor's value with .numpy() (it exists only when the graph runs)"
    if (fn is float or fn is int or fn is complex) and args and type(args[0]) is EagerTensor:
        return f"converts a tensor to a Python {fn.__name__} (its value exists only when " \
            "the graph runs)"
    return ""


ITERATING = (iter, next, list, tuple, enumerate, zip, sorted, sum, min, max, any, all)
"""Builtins that iterate their first argument."""


def traced_callback_reason(library, *, printed: bool, variables: bool, locals_: bool,
                           in_place: bool) -> str:
    """Why a user function TensorFlow traced for `library` (a tf.cond branch, a loop
    body, a tf.map_fn function) is refused, by what it did: printed or wrote the heap, wrote
    a tf.Variable (janus makes a graph's variable writes last, after its guards held: it
    cannot inside a branch or loop TF runs), changed an object made in the call or an
    argument in place (F363: a variable's `assign` was called "a print or heap write")."""
    name = user_attributes.get(library, "__name__", None) or type(library).__name__
    for suffix in ("_v2", "_for_tf"):  # (`cond_for_tf_v2` is tf.cond)
        name = name[:-len(suffix)] if name.endswith(suffix) else name
    module = user_attributes.get(library, "__module__", None) or ""
    name = "tf." + name if module.startswith("tensorflow") else name
    where = f"inside a function TensorFlow traces for {name} (a loop body, branch or " \
        "tf.function)"
    if variables and not (printed or locals_ or in_place):
        return (f"writes a tf.Variable (`assign`, `assign_add`...) {where}: janus makes a "
                "graph's variable writes last, after its guards held, which it cannot do "
                "for a write TensorFlow makes only per iteration or in the branch taken")
    done = [text for text, made in (("prints or writes the heap", printed),
                                    ("writes a tf.Variable", variables),
                                    ("changes an object made in the call", locals_),
                                    ("changes an argument in place", in_place)) if made]
    return (f"{' and '.join(done) or 'has an effect'} {where}: it would run once in the "
            "graph, but in Python once per element, iteration or branch taken")


def _data_types() -> tuple:
    """tf.data's datasets and iterators, and tf.distribute's (`strategy.
    experimental_distribute_dataset(ds)`, `distribute_datasets_from_function`: F363)."""
    found = [tf.data.Dataset, tf.data.Iterator]
    for name in ("DistributedDataset", "DistributedIterator"):
        kind = getattr(getattr(tf, "distribute", None), name, None)
        if isinstance(kind, type):
            found.append(kind)
    return tuple(found)


_DATA_TYPES = _data_types()


def refuse_data_iteration(value) -> None:
    """A trace does not iterate a tf.data dataset or iterator, nor a tf.distribute one:
    in a graph the Python loop never sees the end of the data (TF raises after many
    `get_next` calls, each trace seconds later: an internal error, fuzz v20, F44, F363),
    and an iterator's position moves when the graph runs, again when a failed graph's
    call reruns plainly."""
    if isinstance(value, _DATA_TYPES):
        library = "tf.data" if isinstance(value, (tf.data.Dataset, tf.data.Iterator)) \
            else "tf.distribute"
        raise ConversionError(f"iterates a {library} {type(value).__name__} (the number of "
                              "elements is known only when the graph runs)")



def layer_losses(fn) -> list | None:
    """[(layer, a copy of its recorded losses)] for a Keras layer (or model) `fn` and the
    layers in it, before a trace calls it; None if `fn` is not one."""
    keras = sys.modules.get("keras")
    layer_class = getattr(getattr(keras, "layers", None), "Layer", None)
    if layer_class is None or not isinstance(fn, layer_class):
        return None
    return [(layer, list(getattr(layer, "_losses", ())))
            for layer in fn._flatten_layers(include_self=True, recursive=True)]


def refuse_layer_losses(saved: list | None) -> None:
    """A Keras layer called in a trace that recorded losses while it ran
    (`self.add_loss(...)`, an `activity_regularizer`) keeps them on the layer after the
    call (`model.losses`, read by the next call or after it): they would be the trace's
    graph tensors, where plain Python leaves the call's values (zoo10-F65). The trace
    refuses, and the layers get back the losses they held before it (`saved`, from
    `layer_losses`), which the call's plain rerun may read before calling them."""
    if not saved or all(isinstance(loss, EagerTensor) for layer, _ in saved
                        for loss in getattr(layer, "_losses", ())):
        return
    for layer, losses in saved:
        layer._losses[:] = losses
    name = saved[0][0].name
    raise ConversionError(f"the Keras layer {name!r} records losses while it is called "
                          "(add_loss, an activity regularizer): after a graph they would "
                          "be graph tensors on the layer")
