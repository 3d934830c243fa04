"""Numpy arrays handed to a graph segment: graph inputs fed on every call, not constants.

Code with graph breaks keeps its data in numpy (`obs[idx]`, `advantages[idx]` in an RL
update). In a segment's trace such an array is a `HostArray`: a stand-in holding a
placeholder, fed with the array's current values on every call (guarded by type, dtype
and shape). It does only what gives exactly the array's result:

  - TensorFlow ops consume it (`tf.matmul(a, w)`, `tensor - a`): numpy hands them the
    same values as a constant of the same dtype (float arrays cast to a requested float
    dtype, as TF does when converting an array);
  - `a[idx]` with an int array, `a[i:j]`, `a[:, 0]`, `a[3]` on 2-D arrays, `a[t]` /
    `a[t, 0]` with a fed Python int `t` (a per-call index: `abar[t]` of a diffusion
    schedule, one graph for every t): numpy's indexing (negative indices wrap; out of
    range fails the graph, and the call reruns plainly, where numpy raises);
  - `a + b`, `a * 0.5`, `-a` on float32/float64 arrays with float arrays of the same
    dtype or Python numbers: numpy's float arithmetic, where the graph fails when TF's
    answer would differ or numpy would warn (exact_numbers.array_arithmetic); an op with a
    tensor defers to the tensor, as numpy does for TF's tensors; `len(a)`, `a.shape`,
    `a.ndim`, `a.dtype` (static: guarded);
  - `x, v = a`, `a.tolist()`, `a.astype(np.float32)` of short 1-D float arrays;
  - `a.sum()`, `a.mean()`, `a.var()`, `a.std()` of a 1-D float32/float64 array of any
    length (graphgen/float_sums.py: numpy's pairwise summation, its `_mean`/`_var`): a
    numpy scalar (host_scalars.py); `a - s`, `a / s` with such a scalar of a's dtype;
    `a.sum()` of a bool or int array, `a.mean()` of a bool one (a count, F461);

Anything else (numpy methods, comparisons, truth value, printing, in-place writes) raises
ConversionError: the trace fails at that line, which becomes a graph break. A derived
array that leaves the segment is written back as a numpy array of the same values.
"""
from __future__ import annotations

import numpy as np
import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen import checks, exact_numbers, fed_floats, float_sums
from janus.graphgen.host_scalars import HostScalar, as_numpy_converts
from janus.graphgen.values import SymbolicScalar
from janus.tensors import is_tensor

_KINDS = "fiub"  # numeric and bool arrays only


def supported(value) -> bool:
    """Arrays a segment takes as graph inputs (numeric, at least 1-D)."""
    return type(value) is np.ndarray and value.dtype.kind in _KINDS and value.ndim >= 1


def readable(tensor) -> bool:
    """Whether `tensor.numpy()` (a graph tensor, at least 1-D, numeric or bool) can stay
    in the graph as a HostArray: where the break analysis keeps it (the `p` of a numpy
    draw, transform/breaks.py); any use a HostArray does not do exactly refuses."""
    return tensor.shape.rank is not None and tensor.shape.rank >= 1 and \
        np.dtype(tensor.dtype.as_numpy_dtype).kind in _KINDS and not tensor.dtype.is_quantized


class NumpyRead:
    """`t.numpy` of a graph tensor of rank >= 1: called, the HostArray of its value
    (checked normal or zero, as a fed array: TF reads subnormals as zero)."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __call__(self):
        return HostArray(fed_floats.fed_float(self.tensor), self.tensor.dtype.as_numpy_dtype)


class HostArray:
    """A numpy array inside a segment's trace (see the module docstring)."""

    __array_priority__ = 200  # numpy defers binary ops to us, as it does to tf.Tensor
    janus_host_array = True  # (a HostScalar's operator defers to ours: `s - a`)

    def __init__(self, tensor: tf.Tensor, dtype: np.dtype):
        object.__setattr__(self, "tensor", tensor)
        object.__setattr__(self, "dtype", np.dtype(dtype))

    # -- what numpy would give exactly
    @property
    def shape(self) -> tuple:
        dims = self.tensor.shape.as_list()
        if any(d is None for d in dims):
            return VaryingShape(_UNKNOWN if d is None else d for d in dims)
        return tuple(dims)

    @property
    def ndim(self) -> int:
        return self.tensor.shape.rank

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, key):
        if isinstance(key, HostArray):
            if key.dtype.kind not in "iu" or key.ndim != 1:
                _refuse("indexing with a non-integer or multi-dimensional array")
            n = tf.shape(self.tensor, out_type=tf.int64)[0]
            idx = tf.cast(key.tensor, tf.int64)
            return HostArray(tf.gather(self.tensor, tf.where(idx < 0, idx + n, idx)),
                             self.dtype)
        parts = key if isinstance(key, tuple) else (key,)
        for part in parts:
            if isinstance(part, slice):
                if not all(v is None or type(v) is int or _symbolic_int(v)
                           for v in (part.start, part.stop)) or part.step is not None:
                    _refuse("a slice other than a[i:j] with Python ints")
            elif type(part) is not int and part is not None and not _symbolic_int(part):
                _refuse(f"indexing with {type(part).__name__}")  # (None: numpy's newaxis)
        if any(isinstance(p, slice) and (_symbolic_int(p.start) or _symbolic_int(p.stop))
               for p in parts):  # a varying Python int as a bound (Python's slice rules)
            key = tuple(slice(_tensor_of(p.start), _tensor_of(p.stop)) if isinstance(p, slice)
                        else p for p in parts)
        ints = sum(type(p) is int or _symbolic_int(p) for p in parts)
        if len([p for p in parts if p is not None]) > self.ndim:
            _refuse("indexing with more indices than dimensions")
        key = self._checked_indices(key if isinstance(key, tuple) else (key,))
        if ints == self.ndim == len(parts):  # `a[3]`, `a[1, 2]`, `a[t]`: a numpy scalar
            return HostScalar(self.tensor[key])
        if ints >= self.ndim:
            _refuse("indexing down to a numpy scalar")
        return HostArray(fed_floats.same_items(self.tensor[key], self.tensor), self.dtype)

    def _checked_indices(self, parts: tuple) -> tuple:
        """`parts` with each fed Python int (`a[t]`, `a[t, 0]`, `a[i, j:k]`), and each
        literal one out of range, an index tensor numpy's way: a negative one counts
        from the end; one out of range fails the graph (the call reruns plainly, where
        numpy raises IndexError: a trace raising it would be janus's own error)."""
        dims = self.tensor.shape.as_list()

        def out_of_range(axis: int, part) -> bool:
            return type(part) is int and axis < len(dims) and dims[axis] is not None and \
                not -dims[axis] <= part < dims[axis]

        if not any(_symbolic_int(p) or out_of_range(axis, p) for axis, p in enumerate(parts)):
            return parts
        if any(p is None for p in parts):
            _refuse("a fed or out-of-range int index next to numpy's newaxis")
        checked = []
        for axis, part in enumerate(parts):
            if _symbolic_int(part):
                i = tf.cast(part.tensor, tf.int64)
            elif out_of_range(axis, part):
                i = tf.constant(part, tf.int64)
            else:
                checked.append(part)
                continue
            n = tf.constant(dims[axis], tf.int64) if dims[axis] is not None else \
                tf.shape(self.tensor, out_type=tf.int64)[axis]
            checks.require(tf.logical_and(i >= -n, i < n))
            # (clipped: never out of range where the graph is built; it fails first)
            checked.append(tf.clip_by_value(tf.where(i < 0, i + n, i), 0,
                                            tf.maximum(n - 1, 0)))
        return tuple(checked)

    def __iter__(self):
        """`x, v = a` / `for item in a` over a 1-D array of a fixed length: its numpy
        scalars (a row of a 2-D one stays refused)."""
        if self.ndim != 1 or len(self) > _MAX_UNPACKED:
            _refuse("iterating over it (other than a short 1-D array)")
        return iter([HostScalar(item) for item in tf.unstack(self.tensor, len(self))])

    def tolist(self) -> list:
        """`a.tolist()` of a short 1-D array: its items as Python numbers (numpy converts
        each as `float()`/`int()`/`bool()` of the scalar does: host_scalars.py)."""
        kind = {"f": float, "i": int, "b": bool}.get(self.dtype.kind)
        if kind is None:
            _refuse(f"tolist of a {self.dtype} array")
        return [scalar.number(kind) for scalar in self]

    def astype(self, dtype, copy: bool = True):
        """`a.astype(np.float32)` between float32 and float64 (the graph fails where
        numpy's cast would give a subnormal or an inf with a warning: TF flushes it)."""
        target = np.dtype(dtype)
        if self.dtype == target:
            return HostArray(tf.identity(self.tensor), target)
        if self.dtype.kind != "f" or target not in (np.float32, np.float64):
            _refuse(f"astype from {self.dtype} to {target}")
        cast = tf.cast(self.tensor, tf.as_dtype(target))
        if target == np.float32 and not exact_numbers.items_by_range(self.tensor, tf.float32):
            checks.require(tf.reduce_all(tf.logical_and(
                tf.logical_or(tf.not_equal(cast, 0.0), tf.equal(self.tensor, 0.0)),
                tf.logical_or(tf.math.is_finite(cast), tf.logical_not(tf.math.is_finite(
                    self.tensor))))))
        return HostArray(cast, target)

    # -- reductions of 1-D float arrays, in numpy's order of additions (float_sums.py)
    def sum(self, *args, **kwargs) -> HostScalar:
        """`a.sum()` (np.sum(a)): numpy's pairwise sum."""
        return self._reduce("sum", args, kwargs)

    def mean(self, *args, **kwargs) -> HostScalar:
        """`a.mean()`: the pairwise sum / n (float64's division, rounded to a's dtype)."""
        return self._reduce("mean", args, kwargs)

    def var(self, *args, **kwargs) -> HostScalar:
        """`a.var(ddof=0)`: numpy's `_var`."""
        return self._reduce("var", args, kwargs)

    def std(self, *args, **kwargs) -> HostScalar:
        """`a.std(ddof=0)`: the square root of `var`'s."""
        return self._reduce("std", args, kwargs)

    def _reduce(self, name: str, args: tuple, kwargs: dict) -> HostScalar:
        options = dict(zip(("axis", "dtype", "out", "ddof" if name in ("var", "std") else
                            "keepdims"), args))
        if len(args) > 4 or set(options) & set(kwargs):
            _refuse(f"`.{name}()` with these arguments")
        options.update(kwargs)
        if self.dtype.kind in "bi" and name in ("sum", "mean") and not options:
            return self._count(name)
        ddof = options.pop("ddof", 0)
        if self.ndim != 1 or self.dtype not in (np.float32, np.float64) or \
                options.get("axis") not in (None, 0, -1, (0,)) or \
                options.get("dtype") not in (None, self.dtype) or \
                options.get("out") is not None or options.get("keepdims", False) is not False \
                or set(options) - {"axis", "dtype", "out", "keepdims"} or type(ddof) is not int:
            _refuse(f"`.{name}()` other than of a whole 1-D float array")
        if name == "sum":
            result, ok = float_sums.numpy_sum(self.tensor)
        elif name == "mean":
            result, ok = float_sums.numpy_mean(self.tensor)
        else:
            result, ok = float_sums.numpy_var(self.tensor, ddof, root=name == "std")
        checks.require(ok)
        return HostScalar(result)

    def _count(self, name: str) -> HostScalar:
        """`a.sum()` of a bool or signed int array: numpy's int64 (exact: integer sums
        wrap alike in any order); `a.mean()` of a bool array: the count / n in float64
        (exact below 2**53 items, the division rounded once, as numpy's)."""
        if name == "mean" and self.dtype.kind != "b":
            _refuse("`.mean()` of an int array")  # (a float64 sum of ints: may round)
        total = tf.reduce_sum(tf.cast(self.tensor, tf.int64))
        if name == "sum":
            return HostScalar(total)
        size = tf.cast(tf.size(self.tensor, out_type=tf.int64), tf.float64)
        checks.require(size > 0)  # (numpy warns and gives nan: the call reruns plainly)
        return HostScalar(tf.cast(total, tf.float64) / tf.maximum(size, 1.0))

    def _arith(self, other, op: str, reverse=False):
        if is_tensor(other):
            return NotImplemented
        if self.dtype.kind != "f":
            _refuse("arithmetic on a non-float array")
        if isinstance(other, HostArray):
            if other.dtype != self.dtype:
                _refuse("arithmetic between arrays of different dtypes")
            y = other.tensor
        elif isinstance(other, HostScalar):  # `a - a.mean()`: a scalar of a's dtype
            if other.tensor.dtype != self.tensor.dtype:
                _refuse("arithmetic with a numpy scalar of another dtype")
            y = other.checked_tensor()
        elif type(other) in (int, float):
            y = other  # (numpy casts it to the array's dtype: exact_numbers does too)
        else:
            _refuse(f"arithmetic with {type(other).__name__}")
        x = self.tensor
        dtype = self.tensor.dtype
        return HostArray(exact_numbers.array_arithmetic(op, *((y, x) if reverse else (x, y)),
                                                        dtype), self.dtype)

    def __add__(self, other):
        return self._arith(other, "add")

    def __radd__(self, other):
        return self._arith(other, "add", True)

    def __sub__(self, other):
        return self._arith(other, "sub")

    def __rsub__(self, other):
        return self._arith(other, "sub", True)

    def __mul__(self, other):
        return self._arith(other, "mul")

    def __rmul__(self, other):
        return self._arith(other, "mul", True)

    def __truediv__(self, other):
        return self._arith(other, "truediv")

    def __rtruediv__(self, other):
        return self._arith(other, "truediv", True)

    def __neg__(self):
        if self.dtype.kind != "f":
            _refuse("negating a non-float array")
        return HostArray(-self.tensor, self.dtype)

    # -- everything else is numpy's own: refused
    def __getattr__(self, name):
        if not hasattr(np.ndarray, name):  # numpy arrays lack it too (`__tf_tensor__`...)
            raise AttributeError(f"'numpy.ndarray' object has no attribute '{name}'")
        _refuse(f"`.{name}`")

    def __setattr__(self, name, value):
        _refuse(f"setting `.{name}`")

    def __setitem__(self, key, value):
        _refuse("writing into the array")

    def __bool__(self):
        _refuse("its truth value")

    def __repr__(self):
        _refuse("printing it")

    __str__ = __repr__

    def __format__(self, spec):
        _refuse("formatting it")

    def __array__(self, *args, **kwargs):
        _refuse("handing it to numpy")

    def _compare(self, other):
        _refuse("comparing it")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _compare
    __hash__ = None


_MAX_UNPACKED = 64  # the longest 1-D array iterated item by item


class _UnknownDim:
    """A dimension of a fed array that varies from call to call: any use refuses."""

    def _refuse(self, *args, **kwargs):
        _refuse("a dimension of an array whose shape varies")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __hash__ = __bool__ = _refuse
    __index__ = __int__ = __float__ = __repr__ = __str__ = __format__ = _refuse


_UNKNOWN = _UnknownDim()


class VaryingShape(tuple):
    """`a.shape` of a fed array whose shape varies: a tuple of its rank (`len()`, and
    no `.rank`, as TF's functions probe a numpy shape), whose known dimensions read as
    usual; reading an unknown one, comparing, printing or iterating the shape refuses."""

    def __getitem__(self, key):
        value = tuple.__getitem__(self, key)
        if value is _UNKNOWN or isinstance(value, tuple) and \
                any(v is _UNKNOWN for v in tuple.__iter__(value)):
            _UNKNOWN._refuse()
        return value  # (a slice of known dimensions: a plain tuple)

    def __iter__(self):
        _UNKNOWN._refuse()

    def _refuse(self, *args):
        _UNKNOWN._refuse()

    __add__ = __radd__ = __mul__ = __rmul__ = __contains__ = count = index = _refuse
    __repr__ = __str__ = __format__ = __reduce__ = __hash__ = _refuse
    # (two such shapes share the unknown dimension: tuple's comparison would say equal)
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse


def _symbolic_int(value) -> bool:
    return isinstance(value, SymbolicScalar) and value.kind is int


def _tensor_of(value):
    return value.tensor if isinstance(value, SymbolicScalar) else value


def _refuse(what: str):
    raise ConversionError(f"uses a numpy array as numpy inside a graph segment ({what})")


def _convert(value: HostArray, dtype=None, name=None, as_ref=False):
    # (a numpy array is a constant to a gradient tape: no gradient flows into its value)
    return tf.stop_gradient(as_numpy_converts(value.tensor, dtype, _refuse))


tf.register_tensor_conversion_function(HostArray, _convert)
