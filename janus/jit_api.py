"""`janus.jit`: what it accepts (functions, methods, partials, callables, descriptors)
and the JitFunction it makes of each (janus/function.py), counted (janus/remade.py)."""
from __future__ import annotations

import copy
import functools
import types

from janus import notes, remade
from janus.fallback import safety
from janus.function import BoundJitFunction, JanusWarning, JitFunction


def jit(fn=None, **options):
    """Make `fn` run as specialized TensorFlow graphs (decorator or call).

    Options override `janus.config` for this function: profile_calls,
    max_specializations, failures_to_generalize, max_generation_failures, strict.

    Other callables are jitted as what calling them runs (`_jit_callable`).
    """
    if fn is None:
        return lambda f: jit(f, **options)
    if isinstance(fn, JitFunction):  # (with other options: a jit of its function that
        changed = {**fn.options, **options}  # has them, its own profile and graphs)
        return fn if changed == fn.options else type(fn)(fn.fn, **changed)
    if isinstance(fn, (staticmethod, classmethod)):  # (a classmethod is not callable)
        return type(fn)(jit(fn.__func__, **options))
    if type(fn) is functools.partialmethod:  # (a descriptor: not callable either)
        made = copy.copy(fn)  # (its arguments shared, as `partial`'s below)
        made.func = jit(fn.func, **options)
        return made
    if not callable(fn):
        raise TypeError(f"janus.jit expects a function, got {type(fn).__name__}")
    made = _jit_callable(fn, options)
    _note_made(made.jit if isinstance(made, BoundJitFunction) else made)
    return made


def _note_made(made) -> None:
    """Count a JitFunction `janus.jit` just made (janus/remade.py): made again and again
    for one function (inside the training loop), janus says so once. (Later ones running
    their first calls plainly was withdrawn: a sweep jitting one step per setting lost its
    graphs.)"""
    if not isinstance(made, JitFunction) or getattr(made, "_noted", False):
        return  # (a partial's own function was noted; a class's jitted `__call__` too)
    made._noted = True
    try:
        message = remade.note(made, made.fn)
    except Exception as exc:  # noqa: BLE001 - janus's: the function is jitted as usual
        if made.config.raise_internal_errors:
            raise safety.internal_error("counting jitted functions", exc)
        return
    if message is not None:
        notes.note(message, JanusWarning, safety.user_stacklevel())


def _jit_callable(fn, options: dict):
    """`janus.jit` of a callable:

        functools.partial(step, scale=2.0)  -> functools.partial(jit(step), scale=2.0),
                                               the partial's own `args` and `keywords`
                                               (read at each call, as the partial does)
        model.step (a bound method)         -> jit(Model.step) bound to `model`
        an object with a Python `__call__`  -> jit(type(obj).__call__) bound to `obj`
        operator.mul, np.add, a C type's instance (no Python source)
                                            -> a JitFunction that runs it as it is
                                               (conversion refuses it: source.py)
    """
    if type(fn) is functools.partial:  # (a subclass may call otherwise: as any callable)
        jitted = jit(fn.func, **options)
        made = functools.partial(jitted)
        made.__setstate__((jitted, fn.args, fn.keywords, fn.__dict__ or None))
        return made
    if isinstance(fn, types.FunctionType):
        return JitFunction(fn, **options)
    if isinstance(fn, types.MethodType) and isinstance(fn.__func__, types.FunctionType):
        return BoundJitFunction(JitFunction(fn.__func__, **options), fn.__self__)
    call = getattr(type(fn), "__call__", None)
    if isinstance(call, JitFunction):  # (a class whose `__call__` is jitted)
        return BoundJitFunction(call, fn)
    if isinstance(call, types.FunctionType) and not isinstance(fn, types.MethodType):
        return BoundJitFunction(JitFunction(call, **options), fn)
    return JitFunction(fn, **options)
