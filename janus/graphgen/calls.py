"""Calling a specialization's graph with little host work per call.

`ConcreteFunction(*inputs)` binds its arguments to the traced signature and casts each
one to its `TensorSpec` on every call (~30 us per input here). janus already knows each
input's dtype and shape: host guards checked the tensors read from the arguments, and
the feed makes the others (stacked lists, node tables, Python numbers) with the right
dtype. So the feed hands the graph ready tensors and `call_graph` calls the function
flat, the way `ConcreteFunction` does after its checks (gradient tapes included).
An input no guard vouches for goes through `checked`, which converts it and refuses a
dtype or shape the graph was not traced for (TypeError, as `ConcreteFunction` would).
"""
from __future__ import annotations

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import config_pb2, rewriter_config_pb2
from tensorflow.python.eager import context as _context
from tensorflow.python.framework.ops import EagerTensor
from tensorflow.python.ops import gen_array_ops, gradients_util

from janus.graphgen import quiet_aborts

try:  # the flat call: TF's own, without the signature binding (see the module docstring)
    from tensorflow.python.eager.polymorphic_function.concrete_function import \
        ConcreteFunction as _ConcreteFunction
    _FLAT = hasattr(_ConcreteFunction, "_call_flat")
except ImportError:  # another TF layout: the public call
    _ConcreteFunction, _FLAT = None, False


graph_runs = 0
"""How many graphs janus has started (whole functions, segments, optimizer updates):
code run mixed asks whether its callees ran any (`janus.fallback.mixed.MixedRunner`).
Not exact across threads, only ever read as "changed or not"."""


def note_graph_run() -> None:
    global graph_runs
    graph_runs += 1


def calls_flat(concrete) -> bool:
    """Whether `call_graph` runs `concrete` with its captured inputs as given."""
    return _FLAT and isinstance(concrete, _ConcreteFunction)


def call_graph(concrete, inputs: list, captured: list | None = None):
    """`concrete(*inputs)` for inputs the feed made (tensors of the traced dtypes/shapes),
    run as eager code would compute it (`eager_kernels`); `captured`: its captured inputs
    (`calls_flat` graphs only). TensorFlow's warning that a failing call aborts its
    rendezvous stays off the user's stderr (graphgen/quiet_aborts.py)."""
    ctx = _context.context()
    options = ctx.function_call_options
    ctx.function_call_options = eager_kernels(options)
    quiet_aborts.quiet()
    try:
        if _FLAT and isinstance(concrete, _ConcreteFunction):
            return concrete._call_flat(
                inputs, concrete.captured_inputs if captured is None else captured)
        return concrete(*inputs)
    finally:
        quiet_aborts.loud()
        ctx.function_call_options = options


def build_tape_functions(concrete, inputs: list, captured: list) -> None:
    """Build the forward and backward functions TF's flat call of `concrete` needs while
    the tapes now open watch `inputs` or `captured` (TF caches them: the call then finds
    them built), raising what TF's build raises. Nothing runs. TF builds them before its
    call runs anything, and some graphs it cannot differentiate although every op has a
    gradient (a `SelectV2` between two TensorArray flows: its gradient makes zeros of
    the variant dtype, F336): the caller asks first, so such a call can run plainly."""
    if not calls_flat(concrete) or \
            not hasattr(concrete, "_select_forward_and_backward_functions"):
        return
    args = [*inputs, *captured]
    kind = gradients_util.PossibleTapeGradientTypes(args)
    if kind == gradients_util.POSSIBLE_GRADIENT_TYPES_NONE:
        return
    concrete._select_forward_and_backward_functions(args, kind, True).forward()


_EAGER_KERNELS: dict = {}  # (executor type, the thread's config) -> options without fusion


def eager_kernels(options):
    """The caller's function call options with three of Grappler's passes off, each of
    which makes a graph round otherwise than the ops eager code runs:
    - the remapper fuses a `MatMul` and the bias added to it (a `Conv2D`, its bias and
      activation...) into one kernel (84% of the outputs of a 4-128-2 MLP differed in the
      last bit; in an actor-critic episode a last bit decides an action now and then, and
      the episodes drift apart: F137). Unfused, the small matmuls of such a loop are
      faster, too (~1.8 us each here).
    - the arithmetic optimizer (and the common-subexpression elimination Grappler runs
      only with it) rewrites sums, products and their gradients' aggregation (a loop's
      `h = h * w + x` under a tape: d h / d w differed from eager's in the last bit; the
      training losses of the ResNet, LSTM LM and GAN models differed from eager's within
      a few steps, with it off they are eager's bit for bit). Measured in one process,
      interleaved, at the quick sizes: no model slower beyond the noise (the tree models
      0-9%, the others within +-5%), session 18.
    - constant folding turns `x / c` into `x * (1 / c)` for any divisor it can fold (a
      literal, `tf.size` of a static shape: `reduce_mean`'s gradient): `x / 5` differed
      from eager's in a fifth of its elements (F143). Off, nothing measured slower (the
      shape arithmetic it folds is tiny next to the ops; ResNet full 0.97-1.01).
    Everything else about the caller's options (its other Grappler settings, the
    executor) stays."""
    key = (options.executor_type, options.config_proto_serialized)
    exact = _EAGER_KERNELS.get(key)
    if exact is None:
        config = config_pb2.ConfigProto.FromString(options.config_proto_serialized or b"")
        rewrites = config.graph_options.rewrite_options
        rewrites.remapping = rewriter_config_pb2.RewriterConfig.OFF
        rewrites.arithmetic_optimization = rewriter_config_pb2.RewriterConfig.OFF
        rewrites.constant_folding = rewriter_config_pb2.RewriterConfig.OFF
        exact = _context.FunctionCallOptions(executor_type=options.executor_type,
                                             config_proto=config)
        if len(_EAGER_KERNELS) < 64:  # (a process changes its config a few times at most)
            _EAGER_KERNELS[key] = exact
    return exact


def flat_callable(concrete) -> bool:
    """Whether `call_graph` calls `concrete` flat (a ConcreteFunction of this process, a
    trace kept with its stand-ins as inputs: graphgen/adopted_trace.py)."""
    return _FLAT and isinstance(concrete, _ConcreteFunction)


def to_tensor(value, dtype_enum: int):
    """A new tensor of a fresh host value (a node-table array, a Python number)."""
    ctx = _context.context()
    ctx.ensure_initialized()
    device = ctx.device_name
    if device == "" and _host_only(ctx):
        # (what "" means on a machine with only CPUs: TensorFlow makes every new tensor
        # on its host CPU, then copies it to the default device, that same CPU: ~4.5 us
        # of an array's ~6; the tensor is the same, on the same device)
        device = None
    return EagerTensor(value, device, dtype_enum)


_host_only_devices: bool | None = None


def _host_only(ctx) -> bool:
    """Whether the (initialized) eager context has no device but CPUs (asked once: the
    devices are fixed once it is initialized)."""
    global _host_only_devices
    if _host_only_devices is None:
        _host_only_devices = all(d.device_type == "CPU" for d in ctx.list_logical_devices())
    return _host_only_devices


def stack(items: list):
    """`tf.stack(items)` for a non-empty list of same-dtype eager tensors (guarded)."""
    return gen_array_ops.pack(items, axis=0)


def compatible(shape: tuple, dims: tuple) -> bool:
    """Whether a concrete shape fits traced dims (None: any size)."""
    return len(shape) == len(dims) and all(d is None or d == s for s, d in zip(shape, dims))


_NDARRAY = np.ndarray


def checked(value, dtype: tf.DType, dims: tuple):
    """`value` as a tensor of `dtype` whose shape fits `dims`, or TypeError."""
    kind = type(value)
    if kind is int or kind is float:  # a Python number fed as a scalar (its type is guarded)
        if kind is float and value == 0.0:  # (TF's scalar cache takes -0.0 for a cached 0.0)
            value = np.array(value)
        value = to_tensor(value, dtype.as_datatype_enum)
    elif kind is _NDARRAY and _context.executing_eagerly():
        # what tf.convert_to_tensor(value, dtype) does with an array when eager
        # (constant_op.convert_to_eager_tensor: a copy, never the user's memory), without
        # its dispatch and registry layers (~20 of its ~30 us; PPO feeds 6 arrays a call)
        value = to_tensor(value.copy(), dtype.as_datatype_enum)
    elif kind is not EagerTensor:
        value = tf.convert_to_tensor(value, dtype)
    got = value.dtype
    if got is not dtype and got != dtype:  # (DTypes are interned: `is` mostly decides)
        raise TypeError(f"a graph input of dtype {got.name}, traced as {dtype.name}")
    shape = value._shape_tuple()
    if shape != dims and not compatible(shape, dims):
        raise TypeError(f"a graph input of shape {shape}, traced as {dims}")
    return value
