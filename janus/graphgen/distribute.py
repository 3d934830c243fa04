"""tf.distribute and janus: what a specialization assumes about the distribution context.

- A graph is traced in one distribution context (the current strategy, and whether the
  call is in its cross-replica context); it is only run in that same context
  (`context_key`, compared before a specialization's guards).
- A call in a *replica* context of a strategy (a step run by `strategy.run`, possibly in
  one of MirroredStrategy's replica threads) runs plainly: a graph traced there would
  hold one replica's variable copies, and TF cannot trace a `merge_call`
  (`optimizer.apply_gradients`) inside a nested function.
- Inside a trace, handing a Python function of the user to tf.distribute
  (`strategy.run(train_step, ...)`, `merge_call(fn)`) is refused: TF would run its
  Python once while tracing, in other threads janus does not trace, so its effects
  (`self.steps += 1`) and Python branches would be frozen into the graph. The caller
  then runs eagerly (converted, its callees as graphs), `train_step` as plain Python.
"""
from __future__ import annotations

import tensorflow as tf

from janus.errors import ConversionError
from janus.transform.runtime import user_function

_DISTRIBUTE_TYPES = (tf.distribute.Strategy, tf.distribute.StrategyExtended,
                     tf.distribute.ReplicaContext)


def in_replica_context() -> bool:
    """True inside `strategy.run` of a (non-default) strategy, eager or not."""
    return tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context()


def context_key() -> tuple:
    """The distribution context a graph traced now would assume."""
    if not tf.distribute.has_strategy():
        return ()
    return (id(tf.distribute.get_strategy()), tf.distribute.in_cross_replica_context())


def _is_distribute_call(fn) -> bool:
    module = getattr(fn, "__module__", None) or ""
    return module.startswith("tensorflow.python.distribute") or \
        isinstance(getattr(fn, "__self__", None), _DISTRIBUTE_TYPES)


def refuse_user_functions(fn, args, kwargs) -> None:
    """`strategy.run(train_step, ...)` inside a trace: refused (see the module docstring)."""
    if not _is_distribute_call(fn):
        return
    for value in list(args) + list(kwargs.values()):
        if callable(value) and not isinstance(value, type) and \
                user_function(value)[0] is not None:
            name = getattr(fn, "__qualname__", getattr(fn, "__name__", repr(fn)))
            raise ConversionError(
                f"passes the Python function {getattr(value, '__name__', value)!r} to {name}: "
                "tf.distribute would run its Python once while janus traces, in threads "
                "janus does not trace (its effects and branches would be frozen into the "
                "graph); the call runs eagerly, the function as plain Python")
