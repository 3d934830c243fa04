"""A tensor's value read on the host, kept in the graph: `t.numpy()` of a scalar.

Plain Python gets a numpy scalar (`np.int64`, `np.float32`, `np.bool_`) from `.numpy()`
of a 0-d tensor. Inside a trace it is a `HostScalar`: the tensor itself, standing for
that numpy scalar, for as long as the code only does what gives exactly numpy's result:

    token = tf.argmax(logits[0]).numpy()     token: HostScalar(int64 tensor)
    if token == END:                         a tensor test (specialized, or the exit
        break                                test of a tf.while_loop: graphgen/exits.py)
    tokens.append(int(token))                int(): a fed Python int (SymbolicScalar)
    x = tf.expand_dims([token], 0)           TF ops take it as numpy would hand it over

  - comparisons with a Python int (integer and bool scalars), a Python float or int the
    scalar's float type holds exactly (float scalars), or a scalar of the same dtype:
    a HostScalar standing for a `np.bool_`;
  - `+ - * /` of float scalars with float scalars, Python numbers or (float64) a fed
    Python float, `s ** 2` with a Python number, and `-s`, `abs(s)`: numpy's result,
    or the graph fails where TF's would differ or numpy would warn
    (graphgen/exact_numbers.py);
  - `int()`, `float()`, `bool()`, `.item()`: a SymbolicScalar (`int()` of a float
    scalar truncated as Python does, a NaN or inf failing the graph);
  - TensorFlow ops and lists handed to them (packed to the dtype eager TF's converter
    gives such a list, with Python numbers: F390);
  - truth tests, formatting and printing (at write-back, of the numpy scalar itself);
    returned or stored on the heap: the numpy scalar (`np.int64(3)`) after the run.

Anything else (other arithmetic, numpy functions and methods, indexing with it, hashing)
raises ConversionError: the trace fails at that line, which becomes a graph break.
"""
from __future__ import annotations

import numpy as np
import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen import active, checks, exact_numbers, fed_floats
from janus.graphgen.values import SymbolicScalar
from janus.tensors import is_tensor


def readable(tensor) -> bool:
    """Whether `tensor.numpy()` can stay in the graph: a numeric or bool scalar."""
    dtype = tensor.dtype
    return tensor.shape.rank == 0 and (dtype.is_integer or dtype.is_floating or
                                       dtype == tf.bool) and not dtype.is_quantized


class NumpyRead:
    """`t.numpy` of a scalar graph tensor: called, the HostScalar standing for its value."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __call__(self):
        # (a value read on the host is a constant to a tape: no gradient through it)
        return HostScalar(tf.stop_gradient(self.tensor))


def _refuse(what: str):
    raise ConversionError(f"uses the value of `.numpy()` as numpy inside a graph ({what})")


class HostScalar:
    """The numpy scalar `.numpy()` gives, as a 0-d tensor (see the module docstring)."""

    __array_priority__ = 200  # numpy defers binary ops to us

    def __init__(self, tensor: tf.Tensor):
        object.__setattr__(self, "tensor", tensor)
        object.__setattr__(self, "kind", tensor.dtype.as_numpy_dtype)

    def _operand(self, other):
        """The tensor `other` compares as, in numpy, with this scalar (or refuse)."""
        dtype = self.tensor.dtype
        if isinstance(other, HostScalar):
            if other.tensor.dtype != dtype:
                _refuse("comparing scalars of two dtypes")
            return other.tensor
        if _fits(other, dtype):
            return tf.constant(other, dtype)
        _refuse(f"comparing a {dtype.name} scalar with a {type(other).__name__}")

    def _compare(self, op, other):
        return HostScalar(op(self.tensor, self._operand(other)))

    def __eq__(self, other): return self._compare(tf.equal, other)
    def __ne__(self, other): return self._compare(tf.not_equal, other)
    def __lt__(self, other): return self._compare(tf.less, other)
    def __le__(self, other): return self._compare(tf.less_equal, other)
    def __gt__(self, other): return self._compare(tf.greater, other)
    def __ge__(self, other): return self._compare(tf.greater_equal, other)

    def number(self, kind: type) -> SymbolicScalar:
        """`int(s)` / `float(s)` / `bool(s)`: the Python number numpy gives."""
        dtype = self.tensor.dtype
        if kind is int and dtype.is_floating:  # (truncated; NaN, inf: the call reruns
            return self.number(float).convert(int)  # plainly, where Python raises: F461)
        if kind is bool:
            return SymbolicScalar(tf.not_equal(self.tensor, tf.zeros([], dtype)), bool,
                                  from_graph=True)
        tensor = fed_floats.fed_float(self.tensor) if kind is float else self.tensor
        return SymbolicScalar(tf.cast(tensor, tf.float64 if kind is float else tf.int64),
                              kind, from_graph=True)

    def item(self) -> SymbolicScalar:
        """numpy's `item()`: the Python int, float or bool of the scalar's dtype."""
        dtype = self.tensor.dtype
        return self.number(bool if dtype == tf.bool else float if dtype.is_floating else int)

    def __bool__(self):
        _refuse("its truth value outside an `if`/`while` test")

    def __index__(self):
        _refuse("an index or count")

    def __int__(self):
        _refuse("int() outside converted code")

    __float__ = __complex__ = __int__

    def __hash__(self):
        _refuse("hashing it")

    def __format__(self, spec):
        return active.current().format_marker(self, "f", spec)

    def __repr__(self):
        return active.current().format_marker(self, "r", "")

    def __str__(self):
        return active.current().format_marker(self, "s", "")

    def __array__(self, *args, **kwargs):
        _refuse("handing it to numpy")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """numpy's operator of a numpy int scalar and an integer HostScalar of its dtype
        (`np.int64(7) - step`): the arithmetic as `_int_arith` does it; any other numpy
        function of it refuses."""
        op = _UFUNC_OPS.get(getattr(ufunc, "__name__", ""))
        if op is not None and method == "__call__" and not kwargs and len(inputs) == 2 \
                and self.tensor.dtype in (tf.int32, tf.int64):
            other = inputs[1] if inputs[0] is self else inputs[0]
            if isinstance(other, np.integer) and other.dtype == self.kind:
                return self._int_arith(other, op, reverse=inputs[1] is self)
        if op in ("add", "sub", "mul", "truediv") and method == "__call__" and not kwargs \
                and len(inputs) == 2 and self.tensor.dtype in (tf.float32, tf.float64):
            other = inputs[1] if inputs[0] is self else inputs[0]
            if isinstance(other, np.floating) and other.dtype == self.kind:
                # (`s.total + t.numpy()`, s.total a numpy float of its dtype: F461; the
                # Python float holds its value exactly)
                return self._arith(float(other), op, reverse=inputs[1] is self)
        _refuse("a numpy function of it")

    def __getattr__(self, name):  # (libraries probe attributes: AttributeError for them;
        raise AttributeError(name)  # the user's reads refuse in TraceRuntime.ld_attr)

    def __setattr__(self, name, value):
        _refuse(f"setting its attribute `{name}`")

    def checked_tensor(self) -> tf.Tensor:
        """My tensor, checked normal once in each graph that computes with it (a value
        read from a tensor may be subnormal, which TF's arithmetic reads as zero)."""
        graph = tf.compat.v1.get_default_graph()
        trusted = self.__dict__.setdefault("_trusted", set())
        if id(graph) not in trusted:
            fed_floats.fed_float(self.tensor)
            trusted.add(id(graph))
        return self.tensor

    def _arith(self, other, op: str, reverse: bool = False):
        """numpy's float scalar arithmetic (float32/float64 with a scalar of those, a
        Python number, or a fed Python float with a float64 scalar), checked exact."""
        dtype = self.tensor.dtype
        if dtype in (tf.int32, tf.int64):
            return self._int_arith(other, op, reverse)
        if dtype not in (tf.float32, tf.float64):
            _refuse(f"arithmetic on a {dtype.name} scalar")
        x = self.checked_tensor()
        if isinstance(other, HostScalar):
            if other.tensor.dtype not in (tf.float32, tf.float64):
                _refuse(f"arithmetic with a {other.tensor.dtype.name} scalar")
            dtype = tf.float64 if tf.float64 in (dtype, other.tensor.dtype) else tf.float32
            x, y = tf.cast(x, dtype), tf.cast(other.checked_tensor(), dtype)
        elif type(other) is float or type(other) is int and _fits(other, dtype):
            y = other  # (numpy casts a Python number to the scalar's dtype)
        elif isinstance(other, np.floating) and other.dtype == self.kind:
            y = float(other)  # (a numpy float of my dtype: the number it holds)
        elif isinstance(other, SymbolicScalar) and dtype == tf.float64 and \
                other.kind in (int, float):
            y = other.tensor if other.kind is float else \
                exact_numbers.mixed_int(other.tensor, other.bound)
        elif is_tensor(other) or getattr(type(other), "janus_host_array", False):
            return NotImplemented  # (the tensor's or the array's operator: numpy's too)
        else:
            _refuse(f"arithmetic with a {type(other).__name__}")
        left, right = (y, x) if reverse else (x, y)
        result = HostScalar(exact_numbers.array_arithmetic(op, left, right, dtype))
        # (checked arithmetic of normal operands: normal or zero, no need to check again)
        result.__dict__["_trusted"] = {id(tf.compat.v1.get_default_graph())}
        return result

    def _int_arith(self, other, op: str, reverse: bool = False):
        """numpy's int32/int64 scalar arithmetic (F392): with a Python int the dtype holds
        or a scalar of the same dtype, `+ - * // %` of the dtype, checked not to wrap
        (numpy wraps and warns: the call reruns plainly); `/` and a Python float, as
        numpy computes them: on the scalar cast to float64."""
        dtype = self.tensor.dtype
        if isinstance(other, np.integer) and other.dtype == self.kind:
            other = int(other)  # (a numpy int of my dtype: the number it holds)
        same = isinstance(other, HostScalar) and other.tensor.dtype == dtype
        if not (same or type(other) is int and _fits(other, dtype) or type(other) is float):
            if is_tensor(other) or getattr(type(other), "janus_host_array", False):
                return NotImplemented
            _refuse(f"arithmetic of a {dtype.name} scalar with a {type(other).__name__}")
        if op == "truediv" or type(other) is float:
            wide = HostScalar(tf.cast(self.tensor, tf.float64))
            if same:
                other = HostScalar(tf.cast(other.tensor, tf.float64))
            return wide._arith(other, op, reverse)
        a = tf.cast(self.tensor, tf.int64)
        b = tf.cast(other.tensor, tf.int64) if same else other
        left, right = (b, a) if reverse else (a, b)
        if op in ("floordiv", "mod"):  # (numpy warns for a zero divisor, TF's kernel
            # raises: the call reruns plainly, the graph's check failing first)
            if type(right) is int:
                if right == 0:
                    _refuse("an integer scalar divided by a zero constant")
            else:
                checks.require(tf.not_equal(right, 0))
                right = tf.where(tf.equal(right, 0), tf.ones_like(right), right)
        result, _ = exact_numbers.arithmetic(op, left, right, None, None, int)
        if dtype == tf.int32:
            checks.require(tf.logical_and(result >= dtype.min, result <= dtype.max))
        return HostScalar(tf.cast(result, dtype))

    def __add__(self, o): return self._arith(o, "add")
    def __radd__(self, o): return self._arith(o, "add", True)
    def __sub__(self, o): return self._arith(o, "sub")
    def __rsub__(self, o): return self._arith(o, "sub", True)
    def __mul__(self, o): return self._arith(o, "mul")
    def __rmul__(self, o): return self._arith(o, "mul", True)
    def __truediv__(self, o): return self._arith(o, "truediv")
    def __rtruediv__(self, o): return self._arith(o, "truediv", True)

    def __pow__(self, exponent):
        return self._power(exponent)

    def __rpow__(self, base):
        return self._power(base, reverse=True)

    def _power(self, other, reverse: bool = False):
        """numpy's `s ** 2` (C pow on the scalar's dtype; refused in a batched loop, where
        TF's vectorized pow rounds otherwise), checked where numpy would warn."""
        dtype = self.tensor.dtype
        if dtype not in (tf.float32, tf.float64) or type(other) not in (int, float) or \
                type(other) is int and not _fits(other, dtype):
            _refuse("a power other than of a float scalar and a Python number")
        if exact_numbers.in_batched_loop():
            _refuse("a power in a loop janus batches")
        x = self.checked_tensor()
        # (hidden from Grappler, which would make `x ** 2` a Square: x * x, where numpy
        # calls C's pow)
        y = exact_numbers.opaque_constant(float(other), dtype)
        base, exponent = (y, x) if reverse else (x, y)
        result = tf.pow(base, exponent)
        if not reverse and exact_numbers.power_by_range(x, other):
            return HostScalar(result)
        finite_in = tf.logical_and(tf.math.is_finite(base), tf.math.is_finite(exponent))
        checks.require(tf.reduce_all(tf.stack([
            tf.logical_or(tf.math.is_finite(result), tf.logical_not(finite_in)),
            tf.logical_or(tf.logical_not(tf.math.is_nan(result)),
                          tf.logical_or(tf.math.is_nan(base), tf.math.is_nan(exponent))),
            tf.logical_or(tf.not_equal(result, 0.0), tf.equal(base, 0.0))])))
        return HostScalar(result)

    def _sign(self, operation):
        if not self.tensor.dtype.is_floating:
            _refuse("the sign of an integer scalar")  # (np.int64's -INT64_MIN wraps)
        return HostScalar(operation(self.checked_tensor()))

    def __neg__(self): return self._sign(tf.negative)
    def __pos__(self): return self._sign(tf.identity)
    def __abs__(self): return self._sign(tf.abs)

    def _refused(self, *args):
        _refuse("arithmetic other than + - * /, ** and the sign")

    def __floordiv__(self, o): return self._integer_only(o, "floordiv")
    def __rfloordiv__(self, o): return self._integer_only(o, "floordiv", True)
    def __mod__(self, o): return self._integer_only(o, "mod")
    def __rmod__(self, o): return self._integer_only(o, "mod", True)

    def _integer_only(self, other, op: str, reverse: bool = False):
        """`//` and `%` of integer scalars (numpy's floor semantics, as Python's ints');
        of float scalars refused (numpy's float floor division differs: F359)."""
        if self.tensor.dtype not in (tf.int32, tf.int64) or type(other) is float:
            self._refused()
        return self._int_arith(other, op, reverse)
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = __invert__ = _refused
    __getitem__ = __iter__ = __len__ = __round__ = _refused


_UFUNC_OPS = {"add": "add", "subtract": "sub", "multiply": "mul", "floor_divide": "floordiv",
              "remainder": "mod", "true_divide": "truediv", "divide": "truediv"}
"""numpy's ufuncs of its binary operators, by name: the operation `_int_arith` computes."""


def _fits(value, dtype: tf.DType) -> bool:
    """Whether numpy compares/packs the Python number `value` with a `dtype` scalar as
    that dtype's own value (it holds it exactly)."""
    if dtype == tf.bool:
        return type(value) is bool
    if type(value) is int:
        return dtype.min <= value <= dtype.max if dtype.is_integer else \
            float(np.asarray(value, dtype.as_numpy_dtype)) == value
    return type(value) is float and dtype.is_floating and \
        float(np.asarray(value, dtype.as_numpy_dtype)) == value


def pack(values: list) -> tf.DType | None:
    """The dtype eager TF converts a list of these scalars and Python numbers to (None: no
    scalar in it), as its C converter does (F390: not numpy's, nor a graph's): integer
    scalars as the Python ints they hold (int32; `pack_list` checks they fit), the first
    item's dtype where it is a float scalar (Python numbers after it converted to it),
    bools only with bools. Other mixes (a tensor, a Python bool beside numbers, a float
    of another dtype, a float before an integer's) are refused."""
    scalars = [v for v in values if isinstance(v, HostScalar)]
    if not scalars:
        return None
    first = values[0]
    if isinstance(first, HostScalar) and first.tensor.dtype.is_floating:
        dtype = first.tensor.dtype
        fits = lambda v: type(v) in (int, float) or isinstance(
            v, (np.integer, np.floating)) or \
            isinstance(v, HostScalar) and v.tensor.dtype == dtype  # noqa: E731
    elif all(isinstance(v, HostScalar) and v.tensor.dtype == tf.bool or type(v) is bool
             for v in values):
        return tf.bool
    else:
        dtype = tf.int32
        fits = lambda v: type(v) in (int, np.int64, np.int32) and _fits(int(v), dtype) or \
            isinstance(v, HostScalar) and v.tensor.dtype.is_integer  # noqa: E731
    for v in values:
        if not fits(v):
            _refuse(f"a list of a {scalars[0].tensor.dtype.name} scalar and a "
                    f"{type(v).__name__} handed to TensorFlow")
    return dtype


def pack_list(value):
    """A list/tuple (nested) holding HostScalars, as a TF op given the numpy scalars
    sees it: each scalar its tensor, of the dtype eager TF converts the list to (`pack`;
    an integer scalar checked to fit int32, as the Python int eager TF takes it for)."""
    if type(value) not in (list, tuple):
        return value
    leaves = tf.nest.flatten(value)
    dtype = pack(leaves)
    if dtype is None:
        return value

    def converted(v):
        if not isinstance(v, HostScalar) or v.tensor.dtype == dtype:
            return v.tensor if isinstance(v, HostScalar) else v
        if v.tensor.dtype == tf.uint64:
            _refuse("a uint64 scalar in a list handed to TensorFlow")
        wide = tf.cast(v.tensor, tf.int64)
        checks.require(tf.logical_and(wide >= dtype.min, wide <= dtype.max))
        return tf.cast(v.tensor, dtype)
    return tf.nest.map_structure(converted, value)


def as_numpy_converts(tensor: tf.Tensor, dtype, refuse) -> tf.Tensor:
    """`tensor` standing for a numpy value, as TF converts that value to `dtype` (None:
    its own): a float value to a requested float dtype; any other change `refuse`s."""
    if dtype is None or tf.as_dtype(dtype) == tensor.dtype:
        return tensor
    dtype = tf.as_dtype(dtype)
    if dtype.is_floating and tensor.dtype.is_floating:
        return tf.cast(tensor, dtype)
    refuse(f"converting a {tensor.dtype.name} value to {dtype.name}")


def converted(value: HostScalar, dtype=None) -> tf.Tensor:
    """The numpy scalar as TF converts it to `dtype` (None: its own), or refused."""
    # (a numpy number is a constant to a gradient tape: no gradient flows into its value)
    return tf.stop_gradient(as_numpy_converts(value.tensor, dtype, _refuse))


def _convert(value: HostScalar, dtype=None, name=None, as_ref=False):
    return converted(value, dtype)


tf.register_tensor_conversion_function(HostScalar, _convert)
