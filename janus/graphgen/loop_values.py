"""Values a generalized loop carries from one iteration to the next, as `tf.while_loop`
state: tensors and nests of them as they are, a stand-in for a Python or numpy number, a
numpy array or a bool of either type (SymbolicScalar, HostScalar, HostArray, MixedBool) as
its tensor, rebuilt around the loop's tensor in the body and after the loop (`from_loop`,
with the value of the peeled first iteration as template). An item a loop appends to a list is a tensor and the kind
of Python number it stands for (`element`), so the list after the loop reads back as
numbers of that kind. A `tf.TensorArray` made in the graph (`out = out.write(t, x)`) is
carried as its flow (the TensorList it stands for) and rebuilt around the loop's flow.
"""
from __future__ import annotations

import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen import active, tensor_arrays
from janus.graphgen.host_arrays import HostArray
from janus.graphgen.host_scalars import HostScalar
from janus.graphgen.tensor_arrays import is_array
from janus.graphgen.value_kinds import is_symbolic
from janus.graphgen.values import MixedBool, SymbolicScalar
from janus.tensors import is_tensor

SCALARS = (SymbolicScalar, HostScalar)  # stand-ins for Python/numpy numbers: a tensor each
STAND_INS = SCALARS + (HostArray, MixedBool)  # (MixedBool: a bool of either type)


class _NotCarried:
    """What a name a loop does not carry holds when an iteration starts (transform/
    control_flow.py: no iteration reads it before binding it): any use fails the trace."""

    def _fail(self, *args, **kwargs):
        raise ConversionError("janus: a loop variable left uncarried was read")

    __tf_tensor__ = __bool__ = __iter__ = __len__ = __getitem__ = __call__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = _fail
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __neg__ = __array__ = _fail
    __hash__ = None

    def __getattr__(self, name):
        self._fail()

    def __repr__(self) -> str:
        return "<janus: not carried>"


NOT_CARRIED = _NotCarried()


def _leaf_to_loop(value):
    return value.flow if is_array(value) else tf.convert_to_tensor(value)


def to_loop(value):
    """A carried value as while_loop state (a stand-in for a number or array: its tensor;
    a TensorArray: its flow)."""
    if isinstance(value, STAND_INS):
        return value.tensor
    return tf.nest.map_structure(_leaf_to_loop, value)


def _rebuilt(template, value):
    return tensor_arrays.rebuilt(active.get(), template, value) if is_array(template) else value


def from_loop(template, value):
    """The loop's tensor `value` as what `template` (the same name's value) stands for.
    A Python or numpy value carries no gradient (to a tape it is a constant): cut here,
    TF's while_loop gradient would otherwise backpropagate zeros through every
    iteration's host arithmetic (a numpy environment's physics)."""
    if isinstance(template, STAND_INS) and value.dtype.is_floating:
        value = tf.stop_gradient(value)
    if isinstance(template, MixedBool):
        return MixedBool(value)
    if isinstance(template, SymbolicScalar):
        return SymbolicScalar(value, template.kind)
    if isinstance(template, HostScalar):
        return HostScalar(value)
    if isinstance(template, HostArray):
        return HostArray(value, template.dtype)
    if is_array(template) or isinstance(template, (list, tuple, dict)) and any(
            is_array(leaf) for leaf in tf.nest.flatten(template)):
        return tf.nest.map_structure(_rebuilt, template, value)
    return value


def _leaves(value) -> list | None:
    """The leaves of a tuple/dict nest (a value itself otherwise); None for a dict whose
    keys do not sort (`{0: t, "n": 1}`: tf.nest sorts a dict's keys)."""
    if not isinstance(value, (tuple, dict)):
        return [value]
    try:
        return tf.nest.flatten(value)
    except TypeError:
        return None


def all_symbolic(value) -> bool:
    """A tensor, or a tuple/list/dict nest whose leaves are all tensors."""
    if isinstance(value, (list, tuple, dict)) and not value:
        return False
    leaves = _leaves(value)
    return leaves is not None and all(is_symbolic(leaf) for leaf in leaves)


def same_kind(template, value) -> bool:
    """Whether a carried `value` stands for what `template` (the value after the loop's
    first iteration) stands for: a Python number of the same type, a numpy scalar or
    array of the same dtype, a tensor (a number that later iterations turn into a tensor,
    or back, is no loop state: Python would see its type change); a TensorArray of the
    same dtype."""
    if is_array(template) or is_array(value):
        return is_array(template) and is_array(value) and template.dtype == value.dtype
    if not (isinstance(template, STAND_INS) or isinstance(value, STAND_INS)):
        return True
    if type(template) is not type(value):
        return False
    if isinstance(value, MixedBool):
        return True
    same = template.tensor.dtype == value.tensor.dtype
    if isinstance(value, SymbolicScalar):
        return same and template.kind is value.kind
    if isinstance(value, HostArray):
        return same and template.dtype == value.dtype
    return same


def carries(value) -> bool:
    """Whether a loop can carry `value` as its state."""
    if isinstance(value, STAND_INS) or all_symbolic(value):
        return True
    if isinstance(value, (list, tuple, dict)) and not value:
        return False
    leaves = _leaves(value)
    return leaves is not None and all(is_symbolic(leaf) or is_array(leaf) for leaf in leaves)


def element(value, what: str):
    """(tensor, kind) of an item appended to a list the loop grows (kind: the Python or
    numpy number type it stands for, None for a tensor)."""
    if isinstance(value, SCALARS):
        return value.tensor, value.kind
    if type(value) in (int, float, bool):
        return tf.constant(value, tf.float64 if type(value) is float else
                           tf.bool if type(value) is bool else tf.int64), type(value)
    if is_tensor(value) and not isinstance(value, tf.Variable):
        return value, None
    raise ConversionError(f"{what} appends a {type(value).__name__} to a list")


def choose(stop, x, y):
    """`tf.where(stop, x, y)`, without the op where both are one value (the same tensor,
    equal constants, equal Python numbers): an op per carried name and exit test on every
    iteration otherwise. A TensorArray's flow (a variant) is chosen by a `tf.cond`: the
    gradient of a select makes zeros of the variant dtype, which TF cannot, so a caller's
    tape could not record the graph (F336; it ran plainly: F357); a cond's gradient
    passes the chosen branch's on."""
    if x is y or _same_constant(x, y):
        return y
    if is_tensor(x) and is_tensor(y) and x.dtype == tf.variant:
        return tf.cond(tf.reshape(stop, []), lambda: tf.identity(x), lambda: tf.identity(y))
    return tf.where(stop, x, y)


def _same_constant(x, y) -> bool:
    if type(x) in (int, bool) and type(y) is type(x):
        return x == y
    if not (is_tensor(x) and is_tensor(y)) or x.dtype != y.dtype:
        return False
    a, b = tf.get_static_value(x), tf.get_static_value(y)
    return a is not None and b is not None and a.shape == b.shape and \
        a.tobytes() == b.tobytes()  # (bitwise: -0.0 is not 0.0, nan is itself)
