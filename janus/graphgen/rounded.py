"""`round()` of a number janus feeds or reads from a tensor, inside a trace.

    round(lr)                 a fed float: an int in the graph (half to even, as
                              Python; a nan or inf reruns the call plainly, where
                              Python raises)
    round(n, 2)               a fed int, digits >= 0: n itself
    s.hist.append(round(float(loss), 4))
    s.best = round(loss.numpy(), 3)
                              a `RoundedLater`: Python's (or numpy's) own round of the
                              number, done after the run where the value is written
                              back, returned or printed

Python rounds a float to decimal digits through its exact decimal conversion, which no
TF op reproduces; a value only stored, returned or printed needs none in the graph.
Anything else done with a `RoundedLater` (arithmetic, a comparison, a TF op, formatting,
a dict key) refuses as the number's own `round()` did before: the number stays guarded,
or the line becomes a graph break.
"""
from __future__ import annotations

import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen import checks, exact_numbers
from janus.graphgen.host_scalars import HostScalar
from janus.graphgen.values import SymbolicScalar, _NotAPythonValue


def answer(args: tuple, kwargs: dict):
    """`round(*args, **kwargs)` of a fed or read number, or None (not such a call)."""
    if kwargs or not 1 <= len(args) <= 2 or \
            not isinstance(args[0], (SymbolicScalar, HostScalar)):
        return None
    value, digits = args[0], (args[1] if len(args) == 2 else None)
    if digits is not None and type(digits) is not int:
        return None  # (fed digits: the number's own refusal)
    if isinstance(value, SymbolicScalar):
        if value.kind is int and (digits is None or digits >= 0):
            return value
        if value.kind is float and digits is None:
            checks.require(tf.abs(value.tensor) < float(exact_numbers.INT_LIMIT))
            return SymbolicScalar(tf.cast(tf.round(value.tensor), tf.int64), int,
                                  bound=exact_numbers.rounded_bound(value.bound))
        if value.kind is not float:
            return None
    return RoundedLater(value, digits)


def refuse_handed(value, to: str, depth: int = 3) -> None:
    """Refuse a RoundedLater handed to a library function (in a list, tuple or dict too):
    only stored, returned or printed values are rounded after the run."""
    if isinstance(value, RoundedLater):
        value._refuse(f"handing it to {to}")
    if depth and type(value) in (list, tuple):
        for item in value:
            refuse_handed(item, to, depth - 1)
    elif depth and type(value) is dict:
        for item in value.values():
            refuse_handed(item, to, depth - 1)


class RoundedLater(_NotAPythonValue):
    """`round(value, digits)`, computed on the host after the run (see the module)."""

    _what = "number rounded after the graph ran"

    def __init__(self, value, digits: int | None):
        self.value, self.digits = value, digits
        kind = value.kind
        self.kind = type(round(kind(0.5), digits))  # (numpy's scalars round to their type)

    def _refuse(self, what: str = "a use"):
        round(self.value, self.digits)  # its own refusal: FedScalarMisuse, ConversionError
        raise ConversionError(f"{what} of a {self._what}")

    def _refused(self, *args):
        self._refuse("arithmetic or a comparison")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refused
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _refused
    __mod__ = __rmod__ = __pow__ = __rpow__ = __divmod__ = __rdivmod__ = _refused
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _refused
    __neg__ = __pos__ = __abs__ = __invert__ = _refused
    __float__ = __int__ = __index__ = __complex__ = __round__ = _refused
    __trunc__ = __floor__ = __ceil__ = __len__ = __iter__ = __getitem__ = _refused

    def __hash__(self):
        self._refuse("a dict key or set member")

    def __getattr__(self, name):  # (`.real`, `.is_integer()`, numpy's methods)
        if name not in _NUMBER_ATTRIBUTES:
            raise AttributeError(name)
        self._refuse(f"`.{name}`")


_NUMBER_ATTRIBUTES = frozenset((
    "as_integer_ratio", "conjugate", "hex", "imag", "is_integer", "real", "item", "tolist",
    "astype", "round", "conj", "tobytes", "view", "max", "min", "sum", "mean", "clip"))
"""A Python or numpy float's own attributes a program may use on a rounded number (not
`shape`/`dtype`, which janus's code asks any value for)."""
