"""Differential testing of janus: the same function, run plainly and under `janus.jit`.

    stats = assert_same(fn, [(x1,), (x2,), ...], make_state=State)

runs a fresh state (from `make_state`) through the plain function and another
fresh state through `janus.jit(fn)`, call by call, and after EVERY call compares:
the return value (tensors with rtol/atol 1e-5, dtypes and Python types exact),
the printed output (exactly), the exception raised (type and message), and the
heap: the state object and the call's arguments (object attributes, lists,
dicts, tf.Variable / Keras variable values, tf.Module / Keras layer variables).
It returns the janus `Stats` so a test can also assert that the steady state
really ran as graphs. `observe=` adds what the snapshot cannot see (RNG states).

Each entry of `calls` is one call:
  * a tuple of arguments; with `make_state` the state is passed first;
  * `Call(*args, **kwargs)`, same, with keyword arguments;
  * a callable `state -> tuple | Call`, for arguments that are parts of the state.
Lists, tuples and dicts in the arguments are copied for each side (tensors and other
objects are shared), so a function that mutates a list argument is compared fairly.
"""
from __future__ import annotations

import contextlib
import io
import types
import warnings

import numpy as np
import tensorflow as tf

import janus
from janus.tensors import is_tensor
from janus.user_attributes import has

RTOL = 1e-5
ATOL = 1e-5


class Call:
    """Arguments of one call, with keywords."""

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs

    def __repr__(self):
        return f"Call(*{self.args!r}, **{self.kwargs!r})"


# -- running one side -------------------------------------------------------------------

def _copy_containers(value):
    """A copy of lists/tuples/dicts (recursively); other objects (tensors...) are shared."""
    if type(value) is list:
        return [_copy_containers(v) for v in value]
    if type(value) is tuple:
        return tuple(_copy_containers(v) for v in value)
    if type(value) is dict:
        return {k: _copy_containers(v) for k, v in value.items()}
    return value


def _arguments(entry, state, has_state: bool) -> Call:
    if callable(entry) and not isinstance(entry, (tuple, Call)):
        entry = entry(state)
        if not isinstance(entry, Call):
            entry = Call(*entry)
        return entry  # parts of the state: not copied
    if not isinstance(entry, Call):
        entry = Call(*entry)
    args = _copy_containers(entry.args)
    kwargs = _copy_containers(entry.kwargs)
    if has_state:
        args = (state,) + args
    return Call(*args, **kwargs)


class Outcome:
    def __init__(self, result=None, error=None, stdout="", heap=None):
        self.result = result
        self.error = error
        self.stdout = stdout
        self.heap = heap


def _run(fn, call: Call, state) -> Outcome:
    out = io.StringIO()
    result, error = None, None
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = fn(*call.args, **call.kwargs)
        except Exception as exc:  # noqa: BLE001 - compared with the other side
            error = exc
    heap = snapshot({"state": state, "args": call.args, "kwargs": call.kwargs})
    return Outcome(result, error, out.getvalue(), heap)


# -- comparable snapshots of values ------------------------------------------------------

_LIBRARIES = ("tensorflow", "keras", "tf_keras", "numpy")


def _is_variable(value) -> bool:
    if isinstance(value, tf.Variable):
        return True
    module = (type(value).__module__ or "").split(".")[0]
    return module in ("keras", "tf_keras") and has(value, "assign") and \
        has(value, "numpy")


def snapshot(value, _seen=None):
    """A plain, comparable description of `value` and everything reachable from it."""
    seen = set() if _seen is None else _seen
    if _is_variable(value):
        return ("variable", tf.as_dtype(value.dtype).name, np.array(value.numpy()))
    if isinstance(value, tf.IndexedSlices):  # (a gradient of a gather: its parts)
        return ("namedtuple", "IndexedSlices", [snapshot(v, seen) for v in (
            value.values, value.indices, value.dense_shape)])
    if isinstance(value, (tf.RaggedTensor, tf.SparseTensor)):  # (composites: their parts)
        return ("namedtuple", type(value).__name__, [
            snapshot(v, seen) for v in tf.nest.flatten(value, expand_composites=True)])
    if is_tensor(value):
        return ("tensor", value.dtype.name, np.array(value.numpy()))
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.name, value.copy())
    if isinstance(value, np.generic):
        return ("npscalar", type(value).__name__, value.item())
    if value is None or isinstance(value, (bool, int, float, str, bytes, complex)):
        return (type(value).__name__, value)
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type,
                          types.ModuleType, types.MethodType)):
        return ("static", getattr(value, "__qualname__", getattr(value, "__name__", "?")))
    if id(value) in seen:
        return ("cycle", type(value).__qualname__)
    seen.add(id(value))
    try:
        if type(value) in (list, tuple):
            return (type(value).__name__, [snapshot(v, seen) for v in value])
        if isinstance(value, tuple) and hasattr(type(value), "_fields"):  # a namedtuple
            return ("namedtuple", type(value).__qualname__, [snapshot(v, seen) for v in value])
        if type(value) is dict:
            return ("dict", [(repr(k), snapshot(v, seen)) for k, v in value.items()])
        if isinstance(value, dict) and (type(value).__module__ or "").split(".")[0] not in \
                _LIBRARIES:  # (a dict subclass of the user's, an AttrDict: items and attributes)
            return ("dict subclass", type(value).__qualname__,
                    [(repr(k), snapshot(v, seen)) for k, v in value.items()],
                    [(k, snapshot(v, seen)) for k, v in sorted(vars(value).items())])
        module = (type(value).__module__ or "").split(".")[0]
        if isinstance(value, tf.Module) or (module in _LIBRARIES and
                                            has(value, "variables")):
            variables = value.variables
            variables = variables() if callable(variables) else variables
            return ("module", type(value).__qualname__,
                    [snapshot(v, seen) for v in variables])
        if module in _LIBRARIES:
            return ("opaque", type(value).__qualname__)
        if has(value, "__dict__"):
            return ("object", type(value).__qualname__,
                    [(k, snapshot(v, seen)) for k, v in sorted(vars(value).items())])
        return ("other", type(value).__qualname__)
    finally:
        seen.discard(id(value))


def assert_snapshots_equal(expected, actual, path: str = "") -> None:
    """Compare two snapshots; tensors/arrays with rtol/atol 1e-5, the rest exactly."""
    where = path or "<value>"
    assert type(actual) is type(expected) and actual[0] == expected[0], \
        f"{where}: expected {_short(expected)}, got {_short(actual)}"
    kind = expected[0]
    if kind in ("variable", "tensor", "ndarray"):
        assert actual[1] == expected[1], f"{where}: dtype {actual[1]} != expected {expected[1]}"
        a, e = actual[2], expected[2]
        assert a.shape == e.shape, f"{where}: shape {a.shape} != expected {e.shape}"
        if e.dtype.kind in "fc":
            np.testing.assert_allclose(a, e, rtol=RTOL, atol=ATOL, err_msg=where)
        else:
            np.testing.assert_array_equal(a, e, err_msg=where)
        return
    if kind in ("list", "tuple"):
        assert len(actual[1]) == len(expected[1]), \
            f"{where}: length {len(actual[1])} != expected {len(expected[1])}"
        for i, (e, a) in enumerate(zip(expected[1], actual[1])):
            assert_snapshots_equal(e, a, f"{path}[{i}]")
        return
    if kind == "namedtuple":
        assert actual[1] == expected[1], f"{where}: type {actual[1]} != expected {expected[1]}"
        return assert_snapshots_equal(("tuple", expected[2]), ("tuple", actual[2]), path)
    if kind == "dict":
        assert [k for k, _ in actual[1]] == [k for k, _ in expected[1]], \
            f"{where}: keys {[k for k, _ in actual[1]]} != expected {[k for k, _ in expected[1]]}"
        for (k, e), (_, a) in zip(expected[1], actual[1]):
            assert_snapshots_equal(e, a, f"{path}[{k}]")
        return
    if kind == "dict subclass":
        assert actual[1] == expected[1], f"{where}: type {actual[1]} != expected {expected[1]}"
        assert_snapshots_equal(("dict", expected[2]), ("dict", actual[2]), path)
        return assert_snapshots_equal(("object", expected[1], expected[3]),
                                      ("object", actual[1], actual[3]), path)
    if kind == "object":
        assert actual[1] == expected[1], f"{where}: type {actual[1]} != expected {expected[1]}"
        names_e, names_a = [k for k, _ in expected[2]], [k for k, _ in actual[2]]
        assert names_a == names_e, f"{where}: attributes {names_a} != expected {names_e}"
        for (k, e), (_, a) in zip(expected[2], actual[2]):
            assert_snapshots_equal(e, a, f"{path}.{k}")
        return
    if kind == "module":
        assert actual[1] == expected[1], f"{where}: type {actual[1]} != expected {expected[1]}"
        assert len(actual[2]) == len(expected[2]), f"{where}: number of variables differs"
        for i, (e, a) in enumerate(zip(expected[2], actual[2])):
            assert_snapshots_equal(e, a, f"{path}.variables[{i}]")
        return
    if kind == "npscalar":  # (exact, NaN equal to NaN: the same numpy type either way)
        e, a = expected[2], actual[2]
        assert actual[1] == expected[1] and (a == e or (a != a and e != e)), \
            f"{where}: {_short(actual)} != expected {_short(expected)}"
        return
    if kind == "float":
        e, a = expected[1], actual[1]
        assert a == e or abs(a - e) <= ATOL + RTOL * abs(e) or (a != a and e != e), \
            f"{where}: {a!r} != expected {e!r}"
        return
    assert actual == expected, f"{where}: {_short(actual)} != expected {_short(expected)}"


def _short(snap) -> str:
    text = repr(snap)
    return text if len(text) < 300 else text[:300] + "..."


def _same_error(expected, actual, where: str) -> None:
    if expected is None:
        assert actual is None, f"{where}: janus raised {type(actual).__name__}: {actual} " \
                               "but the plain function returned normally"
        return
    assert actual is not None, f"{where}: the plain function raised " \
                               f"{type(expected).__name__}: {expected}; janus did not raise"
    assert type(actual) is type(expected), \
        f"{where}: janus raised {type(actual).__name__}: {actual}; plain raised " \
        f"{type(expected).__name__}: {expected}"
    if isinstance(expected, tf.errors.OpError):
        return  # TF words the same error differently in graphs and eagerly: the type must match
    assert str(actual) == str(expected), f"{where}: message {str(actual)!r} != {str(expected)!r}"


def compare_outcomes(expected: Outcome, actual: Outcome, where: str) -> None:
    _same_error(expected.error, actual.error, where)
    assert actual.stdout == expected.stdout, \
        f"{where}: printed output differs\n--- plain:\n{expected.stdout}--- janus:\n{actual.stdout}"
    if expected.error is None:
        assert_snapshots_equal(snapshot(expected.result), snapshot(actual.result),
                               f"{where}: result")
    assert_snapshots_equal(expected.heap, actual.heap, f"{where}: heap")


# -- the entry point ---------------------------------------------------------------------

def assert_same(fn, calls, make_state=None, *, jitted=None, stats_of=None, observe=None,
                **options) -> janus.Stats:
    """Run `calls` plainly and under janus on separate fresh states; compare after each.

    `fn` is the plain function (the reference). `jitted` defaults to
    `janus.jit(fn, **options)`; pass it to reuse a jitted function across phases,
    or a wrapper around a jitted method (then `stats_of` is the jitted function).
    `observe(state)`, if given, is what the heap snapshot cannot see (a numpy RNG's
    state, ...): equal (==) on both sides after every call too.
    Returns `janus.stats(stats_of or jitted)`.
    """
    if jitted is None:
        jitted = janus.jit(fn, **options)
    stats_of = jitted if stats_of is None else stats_of
    has_state = make_state is not None
    plain_state = make_state() if has_state else None
    janus_state = make_state() if has_state else None
    for i, entry in enumerate(calls):
        plain_call = _arguments(entry, plain_state, has_state)
        janus_call = _arguments(entry, janus_state, has_state)
        expected = _run(fn, plain_call, plain_state)
        actual = _run(jitted, janus_call, janus_state)
        where = f"call #{i} ({janus.stats(stats_of)}; {_decision(stats_of)})"
        compare_outcomes(expected, actual, where)
        if observe is not None:
            assert observe(janus_state) == observe(plain_state), \
                f"{where}: observed state {observe(janus_state)} != {observe(plain_state)}"
    return janus.stats(stats_of)


def _decision(jitted) -> str:
    target = getattr(jitted, "jit", jitted)
    return f"last call: {getattr(target, 'last_decision', '?')}"
