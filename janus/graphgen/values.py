"""Trace-time stand-ins for Python values that have no fixed size in a general graph."""
from __future__ import annotations

import operator

import numpy as np
import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen import active, checks, exact_numbers, in_range, known_numbers
from janus.graphgen.list_indices import as_index
from janus.tensors import is_tensor


class GraphValueInPython(ConversionError):
    """A value whose size only the graph's run knows (the list a loop stopping on a
    tensor grew: graphgen/exits.py) reaches code that needs it as Python: no specialized
    graph fits every call, so the function splits at that line (rather than go back to
    a specialized plan)."""


class _NotAPythonValue:
    """A trace-time stand-in has no Python truth value, equality or text: object defaults
    (always true, identity, `<... object>`) would silently decide what the list's contents
    decide in Python, so every such use fails the trace (the call then runs eagerly)."""

    _error = ConversionError

    def _refuse(self, what: str):
        raise self._error(f"{what} of a {self._what} is not converted")

    def __bool__(self):
        self._refuse("the truth value")

    def __eq__(self, other):
        self._refuse("comparing (==) the contents")

    def __ne__(self, other):
        self._refuse("comparing (!=) the contents")

    def __str__(self):
        self._refuse("printing or formatting")

    def __repr__(self):  # (its text would be janus's, not the list's: drawloop11-F100)
        if active.get() is not None:
            self._refuse("repr()")
        return f"<{type(self).__name__}: a {self._what}>"

    def __format__(self, spec):
        self._refuse("printing or formatting")

    # (Python's own TypeError for these would be taken for the user's error: a refused
    # trace instead, which janus answers with a more specialized plan)
    def __setitem__(self, key, value):
        self._refuse("writing an item")

    def __delitem__(self, key):
        self._refuse("deleting an item")

    def __add__(self, other):
        self._refuse("concatenating (+)")

    def __radd__(self, other):
        self._refuse("concatenating (+)")

    def __iadd__(self, other):
        self._refuse("extending (+=)")

    def __mul__(self, other):
        self._refuse("repeating (*)")

    __rmul__ = __mul__

    def __array__(self, *args, **kwargs):  # (numpy would read it as one object)
        self._refuse("a numpy array")

    __hash__ = object.__hash__


_UNSET = object()


class DynamicList(_NotAPythonValue):
    """A Python list of same-shaped tensors whose length is known only at run time,
    held as one stacked tensor `[n, ...]` (or a tuple of them: `zip` of such lists,
    whose items are tuples)."""

    _what = "list whose length varies from call to call"

    def __init__(self, stacked, kind=None, bound: int | None = None):
        self.stacked = stacked
        # int/float/bool (or a numpy scalar type): a list of numbers; a tuple of them: a
        # list of tuples of numbers (graphgen/number_lists.py); None: of tensors
        self.kind = kind
        self.bound = bound  # a static bound of its ints' magnitude (exact_numbers.py)

    def length(self):
        lengths = [tf.shape(s)[0] for s in tf.nest.flatten(self.stacked)]
        return lengths[0] if len(lengths) == 1 else tf.reduce_min(tf.stack(lengths))

    def _wrap(self, item, kind=_UNSET):
        kind = self.kind if kind is _UNSET else kind
        if kind is None:
            return item
        if isinstance(kind, tuple):
            return tuple(self._wrap(part, k) for part, k in zip(item, kind))
        if kind not in (int, float, bool):
            raise self._error("reading an item of a list of numpy scalars grown in a loop")
        return SymbolicScalar(item, kind, bound=self.bound if kind is int else None)

    def item(self, index):
        """The item at `index`: the loop builders' only use, the position of a loop over
        the list (a tensor `i < length()` in the body: in range by construction,
        graphgen/in_range.py), or 0 for the peeled first iteration (in range only once
        the guard `length() > 0` held: it stays ordered after the guards)."""
        def gather(s):
            item = tf.gather(s, index)
            return item if isinstance(index, int) else in_range.mark(item)

        return self._wrap(tf.nest.map_structure(gather, self.stacked))

    def __getitem__(self, key):
        key = as_index(key)
        if isinstance(key, slice):
            return type(self)(tf.nest.map_structure(lambda s: s[key], self.stacked),
                              self.kind, self.bound)
        return self._wrap(tf.nest.map_structure(lambda s: s[key], self.stacked))

    def __eq__(self, other):
        """`decoded == answer` on lists of ints (or bools): a bool the graph computes;
        Python's answer on the lengths, then item by item (`True == 1`). A tuple is never
        equal to a list; anything else (floats, tensors, objects) is not converted."""
        if isinstance(other, tuple) and not isinstance(other, _NotAPythonValue):
            return False
        mine, theirs = _int_items(self), _int_items(other)
        if mine is None or theirs is None:
            self._refuse("comparing (==) the contents")
        (a, n), (b, m) = mine, theirs
        common = tf.minimum(n, m)
        same = tf.logical_and(tf.equal(n, m),
                              tf.reduce_all(tf.equal(a[:common], b[:common])))
        return SymbolicScalar(same, bool)

    def __ne__(self, other):
        equal = self.__eq__(other)
        return not equal if isinstance(equal, bool) else \
            SymbolicScalar(tf.logical_not(equal.tensor), bool)

    __hash__ = None  # (a list is unhashable)

    def __len__(self):
        raise self._error("len() of a list whose length varies from call to call is a "
                              "tensor here; it cannot be used as a Python int")

    def __iter__(self):
        raise self._error("a list whose length varies from call to call can only be "
                              "iterated by a plain `for` loop without break/return")


def _int_items(value):
    """A list of Python ints/bools as (int64 items, length) tensors, else None."""
    if isinstance(value, DynamicList):
        if value.kind not in (int, bool) or not is_tensor(value.stacked):
            return None
        return tf.cast(value.stacked, tf.int64), value.length()
    if type(value) is not list:
        return None
    tracer = active.get()
    if tracer is not None:  # (a heap list's items compared: read, not untouched: F356)
        tracer.read(value)
    items = []
    for item in value:
        if isinstance(item, SymbolicScalar) and item.kind in (int, bool):
            items.append(tf.cast(item.tensor, tf.int64))
        elif type(item) in (int, bool) and -2 ** 63 <= item < 2 ** 63:
            items.append(tf.constant(int(item), tf.int64))
        else:
            return None
    stacked = tf.stack(items) if items else tf.zeros([0], tf.int64)
    return stacked, tf.constant(len(items))


class Accumulator(_NotAPythonValue):
    """A list being grown inside a `tf.while_loop` body: one TensorArray write per
    iteration. The items go in the order they were added; a list grown at its front
    (`insert(0, x)`, where `fronts` allows it) is reversed once the loop is done."""

    _what = "list grown inside a generalized loop"

    def __init__(self, array: tf.TensorArray, index, fronts: bool = False, base=0):
        self.array = array
        self.index = index
        self.base = base  # items the list had that the array does not hold (None: unknown)
        self.appends = 0
        self.fronts = fronts
        self.mode: str | None = None  # "append" or "prepend", by the body's first write
        self.kinds: set = set()  # the Python number types of the items (None: a tensor)

    def _write(self, value, mode: str):
        if self.mode not in (None, mode):
            raise ConversionError("a list both appended to and grown at its front inside a "
                                  "generalized loop")
        self.mode = mode
        if isinstance(value, SymbolicScalar):
            self.kinds.add(value.kind)
            value = value.tensor
        else:
            self.kinds.add(type(value) if type(value) in (int, float, bool) else None)
        try:
            self.array = self.array.write(
                self.index + self.appends if self.appends else self.index, value)
        except (ValueError, TypeError) as error:  # another dtype or shape than the first
            raise ConversionError(f"an item of another dtype or shape appended to a list "
                                  f"grown inside a generalized loop: {error}") from error
        self.appends += 1

    def append(self, value):
        self._write(value, "append")

    def insert(self, index, value):
        if not self.fronts or type(index) is not int or index != 0:
            raise ConversionError("list.insert other than at the front of a list grown in "
                                  "a loop over a list of varying length")
        self._write(value, "prepend")

    def __iadd__(self, values):
        for value in values:
            self.append(value)
        return self

    def extend(self, values):
        self.__iadd__(values)

    def __len__(self):
        raise ConversionError("len() of a list grown inside a generalized loop")

    def __iter__(self):
        raise ConversionError("reading a list while it is grown inside a generalized loop")


class WrappedByTracker(ConversionError):
    """A copy of a list Keras tracks given containers by `extend`/`insert` (Keras wraps
    them; a copy written back with `[:] =` would not): the trace is redone with the list
    only appended to, its calls replayed on it (`expr`: its source)."""

    def __init__(self, name: str, expr: str):
        super().__init__(f"`{name}` of containers into a list Keras tracks (it wraps them, "
                         "a copy janus writes back would not)")
        self.expr = expr


class FedScalarMisuse(ConversionError):
    """A fed Python number used where only a constant works (a count, an index, a
    condition outside a test): its role (when known) stays guarded and the trace is redone."""

    def __init__(self, reason: str, role: str | None, from_graph: bool = False):
        super().__init__(reason)
        self.role = role
        self.from_graph = from_graph  # a tensor's value (`float(t)`), not a fed number


class SymbolicScalar:
    """A Python int/float whose value changes from call to call, fed as a scalar tensor.

    Arithmetic with Python numbers and other SymbolicScalars keeps Python's typing
    (int op int is int, `/` gives float, comparisons give bool) and stays a
    SymbolicScalar, so a value written back to the heap or returned is a Python
    number again. With a tensor it converts to the tensor's dtype, as a Python
    number would.
    """

    __array_ufunc__ = None  # numpy scalars/arrays defer to the reflected method below

    def __init__(self, tensor, kind: type, role: str | None = None, bound: int | None = None,
                 from_graph: bool = False, wide: bool = False, known=known_numbers.UNKNOWN):
        self.tensor = tensor
        self.known = known  # its value in the call being traced, if known (known_numbers)
        self.kind = kind
        self.wide = wide  # an int fed guarded beyond int32 (TF converts it to int64: F360)
        self.role = role  # the fed role it was read from (None once computed with)
        self.from_graph = from_graph  # a graph tensor's value itself (`float(t)`)
        # a static bound of an int's (or a float's) magnitude (exact_numbers.py; None:
        self.bound = 1 if kind is bool else bound  # unknown)

    def as_dtype(self, dtype) -> tf.Tensor:
        """The number as eager TF converts the Python number to `dtype` (F159: a float to
        an int dtype raises there, `tf.constant(0.5, tf.int32)`, `int_tensor + 0.5`; a
        cast would truncate it)."""
        dtype = tf.as_dtype(dtype)
        if dtype.base_dtype in _CONVERTS[self.kind]:
            return tf.cast(self.tensor, dtype)
        if dtype.is_integer or dtype == tf.bool or dtype == tf.string:
            raise TypeError(f"Cannot convert a Python {self.kind.__name__} to EagerTensor "
                            f"of dtype {dtype.name}")
        raise ConversionError(f"a Python {self.kind.__name__} janus feeds converted to "
                              f"{dtype.name}")

    def default_int(self) -> tf.Tensor:
        """The int as TF converts the Python int when no dtype is asked: int32 if it fits,
        else int64. A fed int beyond int32 is int64; one that may be beyond (`n * 1000`,
        `step % 7` of such a step) is checked to fit int32 (else the call reruns
        plainly)."""
        if self.wide:
            return self.tensor
        if self.bound is None or self.bound > 2 ** 31:
            checks.require(tf.logical_and(self.tensor >= -2 ** 31, self.tensor < 2 ** 31))
        return tf.cast(self.tensor, tf.int32)

    @staticmethod
    def _dtype(kind):
        return tf.float64 if kind is float else tf.bool if kind is bool else tf.int64

    def _binary(self, other, op, reflected=False, kind=None):
        """`self <op> other` (`op` an arithmetic name of exact_numbers.py, or a TF
        comparison), Python's result as a SymbolicScalar."""
        if isinstance(other, np.generic):
            # numpy's promotion (float + np.float64 is np.float64, float + np.float32 is
            # np.float64...) is not Python's: such a mix runs where numpy does
            raise ConversionError(f"arithmetic between a Python {self.kind.__name__} janus "
                                  f"feeds to the graph and a numpy {type(other).__name__}")
        if isinstance(other, SymbolicScalar):
            other_kind = other.kind
        elif isinstance(other, (bool, int, float)):
            other_kind = type(other)
        elif is_tensor(other):
            mine = self.as_dtype(other.dtype)
            op = _ARITHMETIC.get(op, op)
            return op(other, mine) if reflected else op(mine, other)
        else:
            return NotImplemented
        if kind is None:
            kind = float if float in (self.kind, other_kind) else int
        work = float if kind is float or float in (self.kind, other_kind) else int
        a = self._operand(work)
        # (a Python number stays one: not through tf.cast, which would round a Python
        # float to float32 first, F37)
        b = other._operand(work) if isinstance(other, SymbolicScalar) else work(other)
        left, right = (b, a) if reflected else (a, b)
        if isinstance(op, str):
            bounds = (self.bound, other.bound if isinstance(other, SymbolicScalar) else None)
            result, bound = exact_numbers.arithmetic(
                op, left, right, *(bounds[::-1] if reflected else bounds), work,
                (self.kind if reflected else other_kind) is not float)
            return SymbolicScalar(tf.cast(result, self._dtype(kind)), kind, bound=bound,
                                  known=self._known_with(op, other, reflected))
        if work is int and any(type(v) is int and not -2 ** 63 <= v < 2 ** 63
                               for v in (left, right)):
            # (an int past int64 compared with an int64 tensor: its side is known)
            return exact_numbers.beyond_int64(op, left, right)
        left, right = (v if is_tensor(v) else tf.constant(v, self._dtype(work))
                       for v in (left, right))
        return SymbolicScalar(op(left, right), kind,
                              known=self._known_with(op, other, reflected))

    def _known_with(self, op, other, reflected: bool):
        """The known value of `self <op> other` in this call (known_numbers.py)."""
        mine = self.known
        theirs = other.known if isinstance(other, SymbolicScalar) else other
        return known_numbers.combine(op, *((theirs, mine) if reflected else (mine, theirs)))

    def _operand(self, work: type):
        """My tensor as an operand of `work`'s dtype (an int among floats: checked exact)."""
        if work is float and self.kind is not float:
            return exact_numbers.mixed_int(self.tensor, self.bound)
        return tf.cast(self.tensor, self._dtype(work))

    def __add__(self, o): return self._binary(o, "add")
    def __radd__(self, o): return self._binary(o, "add", True)
    def __sub__(self, o): return self._binary(o, "sub")
    def __rsub__(self, o): return self._binary(o, "sub", True)
    def __mul__(self, o): return self._binary(o, "mul")
    def __rmul__(self, o): return self._binary(o, "mul", True)
    def __truediv__(self, o): return self._binary(o, "truediv", kind=float)
    def __rtruediv__(self, o): return self._binary(o, "truediv", True, kind=float)
    def __floordiv__(self, o): return self._binary(o, "floordiv")
    def __rfloordiv__(self, o): return self._binary(o, "floordiv", True)
    def __mod__(self, o): return self._binary(o, "mod")
    def __rmod__(self, o): return self._binary(o, "mod", True)
    def __pow__(self, o): return self._binary(o, "pow")

    def __divmod__(self, o):  # (Python's divmod is its `//` and `%`: F358)
        return NotImplemented if is_tensor(o) else (self // o, self % o)

    def __rdivmod__(self, o):
        return NotImplemented if is_tensor(o) else (o // self, o % self)

    def __rpow__(self, o): return self._binary(o, "pow", True)
    def __eq__(self, o): return self._binary(o, tf.equal, kind=bool)
    def __ne__(self, o): return self._binary(o, tf.not_equal, kind=bool)
    def __lt__(self, o): return self._binary(o, tf.less, kind=bool)
    def __le__(self, o): return self._binary(o, tf.less_equal, kind=bool)
    def __gt__(self, o): return self._binary(o, tf.greater, kind=bool)
    def __ge__(self, o): return self._binary(o, tf.greater_equal, kind=bool)

    def __neg__(self):
        tensor = tf.cast(self.tensor, tf.int64) if self.kind is bool else self.tensor
        result, bound = exact_numbers.negate(tensor, self.kind, self.bound)
        return SymbolicScalar(result, float if self.kind is float else int, bound=bound,
                              known=known_numbers.convert(self.known, operator.neg))

    def __abs__(self):
        # (`abs(dv3) > 1e6`; before, a TypeError at the trace: F338)
        if self.kind is float:
            return SymbolicScalar(tf.abs(self.tensor), float, bound=self.bound)
        tensor = tf.cast(self.tensor, tf.int64) if self.kind is bool else self.tensor
        negated, bound = exact_numbers.negate(tensor, int, self.bound)
        return SymbolicScalar(tf.where(tensor < 0, negated, tensor), int, bound=bound)

    def __hash__(self):
        # A dict key, a set member, `k in d`, `d.get(k)`: Python hashes the number's value,
        # which the trace does not know; an identity hash made janus's stand-in the key
        # in the user's dict (F145). The number stays guarded: one graph per value.
        raise FedScalarMisuse("a Python number that changes per call is used as a dict "
                              "key or set member (hashed)", self.role, self.from_graph)

    def convert(self, kind: type) -> "SymbolicScalar":
        """`bool(s)` / `int(s)` / `float(s)`: the Python number the conversion gives
        (an int of a float truncated toward zero; a nan, an inf or a magnitude past
        2**62 reruns the call plainly, where Python raises or computes a big int)."""
        if kind is self.kind:
            return self
        known = known_numbers.convert(self.known, kind)
        if kind is bool:
            return SymbolicScalar(tf.not_equal(self.tensor, tf.zeros([], self.tensor.dtype)),
                                  bool, known=known)
        if self.kind is bool:
            return SymbolicScalar(tf.cast(self.tensor, self._dtype(kind)), kind, bound=1,
                                  known=known)
        if kind is float:
            return SymbolicScalar(exact_numbers.mixed_int(self.tensor, self.bound), float,
                                  bound=self.bound, known=known)
        checks.require(tf.abs(self.tensor) < float(exact_numbers.INT_LIMIT))
        return SymbolicScalar(tf.cast(self.tensor, tf.int64), int,
                              bound=exact_numbers.rounded_bound(self.bound), known=known)

    def __bool__(self):
        raise FedScalarMisuse("a Python number that changes per call is used as a condition "
                              "outside an `if`/`while` test", self.role, self.from_graph)

    def __index__(self):
        raise FedScalarMisuse("a Python int that changes per call is used as an index or "
                              "count", self.role, self.from_graph)

    __int__ = __float__ = __index__

    def __round__(self, ndigits=None):
        if self.kind is int and ndigits is None:
            return self
        # (a float's round() is an int Python computes exactly, whatever its size)
        raise FedScalarMisuse(f"round() of a Python {self.kind.__name__} that changes per "
                              "call", self.role, self.from_graph)

    def __format__(self, spec):
        tracer = active.get()
        if tracer is None:  # (an exception raised in the trace, formatted after it: F35)
            return repr(self)
        return tracer.format_marker(self, "f", spec)

    def __repr__(self):
        tracer = active.get()
        if tracer is None:
            role = f" ({self.role})" if self.role else ""
            return f"<a Python {self.kind.__name__} janus fed to a graph{role}>"
        return tracer.format_marker(self, "r", "")

    __str__ = __repr__


class MixedBool:
    """An `or`/`and`/`if-else` value that is a bool of one type on one path and of another
    on the other (`abs(x) > 2.4 or steps >= n`: a numpy bool or a Python bool, whichever
    operand Python returns). The graph knows its truth, not its type: it serves only
    where the type does not matter (an `if`/`while` test, `bool()`, `int()`, `float()`,
    `not`, an operand of `and`/`or`); any other use fails the trace (the call runs plainly).
    """

    kind = bool

    def __init__(self, tensor):
        object.__setattr__(self, "tensor", tensor)

    def _refuse(self, *args, **kwargs):
        raise ConversionError("uses a value whose type (a numpy or a Python bool) depends on "
                              "which operand of an `and`/`or`/`if-else` Python returns")

    __getattr__ = __setattr__ = __format__ = __repr__ = __str__ = __hash__ = _refuse
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __iter__ = __len__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __neg__ = _refuse
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = _refuse
    __rmod__ = __pow__ = __rpow__ = __and__ = __rand__ = __or__ = __ror__ = _refuse
    __xor__ = __rxor__ = __invert__ = __abs__ = __index__ = __array__ = _refuse
    __bool__ = __int__ = __float__ = _refuse

    def truth(self) -> "SymbolicScalar":
        """`bool(value)`: the Python bool (`int()`/`float()` of it: 0 or 1 either way)."""
        return SymbolicScalar(self.tensor, bool)


def tensor_index(key):
    """The index of a tensor (`x[i]`, `x[i:j, 0]`) with the fed ints in it as their
    tensors: TF's indexing takes an int or a scalar tensor, not a stand-in (a `range`
    loop's item in a tf.while_loop is one: `y = x[i]`)."""
    return tuple(_index_part(k) for k in key) if type(key) is tuple else _index_part(key)


def _index_part(k):
    if isinstance(k, SymbolicScalar):
        return k.tensor if k.kind is int else k
    if isinstance(k, slice) and any(isinstance(p, SymbolicScalar)
                                    for p in (k.start, k.stop, k.step)):
        return slice(*(_index_part(p) for p in (k.start, k.stop, k.step)))
    return k


_ARITHMETIC = {"add": tf.add, "sub": tf.subtract, "mul": tf.multiply,
               "truediv": tf.math.truediv, "floordiv": tf.math.floordiv,
               "mod": tf.math.floormod, "pow": tf.pow}
"""With a tensor, a fed number is converted to its dtype and TF's op runs, as eagerly."""


def _convert_scalar(value, dtype=None, name=None, as_ref=False):
    """As TF converts the Python number: int32 for an int (fed ints are guarded to fit),
    float32 for a float, unless a dtype is asked for; a constant to a gradient tape, as
    the Python number is."""
    if dtype is None and value.kind is float:
        return tf.stop_gradient(default_float(value.tensor))
    if dtype is None and value.kind is int:
        return tf.stop_gradient(value.default_int())
    return tf.stop_gradient(value.as_dtype(dtype or _DEFAULT_DTYPES[value.kind]))


_DEFAULT_DTYPES = {int: tf.int32, float: tf.float32, bool: tf.bool}
_FLOATS = (tf.float32, tf.float64, tf.complex64, tf.complex128)
_CONVERTS = {  # the dtypes a cast converts a fed number to as eager TF does
    int: (tf.int8, tf.int16, tf.int32, tf.int64, tf.uint8, tf.uint16, tf.uint32, tf.uint64,
          tf.float16) + _FLOATS,  # (int64 to a float dtype: one rounding, as TF's)
    float: _FLOATS + (tf.float16, tf.bfloat16),  # (a float64 cast to a half type rounds
    # as eager TF converts the Python float: checked bit for bit, ties too, F391)
    bool: (tf.bool, tf.int32, tf.float32)}


def default_float(value: tf.Tensor) -> tf.Tensor:
    """Python floats (`value`, float64) converted as TF converts them when no dtype is
    asked: float32, and a ValueError for a finite one beyond float32 (`tf.constant(1e300)`;
    with a dtype asked it is inf, `x * 1e300`): the graph fails there, the call reruns
    plainly (F158)."""
    narrowed = tf.cast(value, tf.float32)
    checks.require(tf.reduce_all(tf.math.is_finite(narrowed) | ~tf.math.is_finite(value)))
    return narrowed


def pack_scalars(value):
    """A list/tuple (nested) holding SymbolicScalars, as a TF op given it would see the
    Python numbers: each becomes a tensor of the dtype TF would pack the list to (the dtype
    of a tensor in it, else float32 if any float, else int32 — int64 if a Python int in
    it needs it). Other values as they are."""
    if type(value) not in (list, tuple):
        return value
    leaves = tf.nest.flatten(value)
    if not any(isinstance(v, SymbolicScalar) for v in leaves):
        return value
    dtype = next((v.dtype for v in leaves if is_tensor(v)), None)
    if dtype is None:
        kinds = {v.kind if isinstance(v, SymbolicScalar) else type(v) for v in leaves}
        if bool in kinds and len(kinds) > 1:  # (eager TF raises for `[True, 2]`, takes
            # `[2, True]`: its converter's order, not a graph's int32, F390)
            raise ConversionError("a list of a Python bool and other values janus feeds "
                                  "handed to TensorFlow")
        wide = any(type(v) is int and not -2 ** 31 <= v < 2 ** 31 or
                   isinstance(v, SymbolicScalar) and v.wide for v in leaves)
        dtype = tf.float32 if float in kinds else tf.bool if kinds == {bool} else \
            tf.int64 if wide else tf.int32
    if dtype is tf.float32 and not any(is_tensor(v) for v in leaves):
        # (a float as TF packs a Python float; an int beside it as TF converts the int:
        # `tf.constant([n + 1, 0.5])`, fuzz v71 seed 2910137)
        convert = lambda v: default_float(v.tensor) if v.kind is float else \
            v.as_dtype(dtype)  # noqa: E731
    elif dtype is tf.int32 and not any(is_tensor(v) for v in leaves):
        # (ints TF packs to int32 only if each fits: checked, F360)
        convert = lambda v: v.default_int() if v.kind is int else v.as_dtype(dtype)  # noqa: E731
    else:
        convert = lambda v: v.as_dtype(dtype)  # noqa: E731
    return tf.nest.map_structure(
        lambda v: convert(v) if isinstance(v, SymbolicScalar) else v, value)


tf.register_tensor_conversion_function(SymbolicScalar, _convert_scalar)

STAND_INS = (_NotAPythonValue, SymbolicScalar, MixedBool)
"""The trace-time stand-ins defined here: values of the trace itself, never the heap's."""


def dynamic_length(items: DynamicList) -> SymbolicScalar:
    """`len()` of a DynamicList: a Python int known at run time only. It compares, computes
    and converts to the dtype it meets as a Python int would (`tf.add_n(losses) /
    len(losses)`, `if len(xs) == 1:`), and is never a Python int at trace time."""
    return SymbolicScalar(tf.cast(items.length(), tf.int64), int)
