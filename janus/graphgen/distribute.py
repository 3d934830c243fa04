"""tf.distribute and janus: what a specialization assumes about the distribution context.

- A graph is traced in one distribution context (the current strategy, and whether the
  call is in its cross-replica context); it is only run in that same context
  (`context_key`, compared before a specialization's guards).
- A call in a *replica* context of a strategy (a jitted step run by an eager
  `strategy.run`, possibly in one of MirroredStrategy's replica threads) runs plainly:
  a graph traced there would hold one replica's variable copies, and TF cannot trace a
  `merge_call` (`optimizer.apply_gradients`) inside a nested function.
- Inside a trace (the outer step: `strategy.run(train_step, ...)` + `strategy.reduce`),
  a user function handed to tf.distribute is traced by janus itself, in whichever thread
  TF runs it (MirroredStrategy runs its replica threads one at a time): converted, its
  attribute writes in the trace's ledger, its Python reads guarded. Handed over as is,
  TF would run its Python once while tracing: `self.steps += 1` and the branches it
  takes frozen into the graph. PerReplica arguments are one graph input per replica
  (tracer.py).
"""
from __future__ import annotations

import tensorflow as tf

from janus import user_attributes
from janus.fallback.agreement import multi_worker_strategy
from janus.graphgen import active
from janus.transform.runtime import user_function

_DISTRIBUTE_TYPES = (tf.distribute.Strategy, tf.distribute.StrategyExtended,
                     tf.distribute.ReplicaContext)


def in_replica_context() -> bool:
    """True inside `strategy.run` of a (non-default) strategy, eager or not."""
    return tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context()


def context_key() -> tuple:
    """The distribution context a graph traced now would assume: () without a strategy,
    else (id(strategy), in its cross-replica context); `key and not key[1]`: a call in a
    replica context (`in_replica_context`)."""
    if not tf.distribute.has_strategy():
        return ()
    return (id(tf.distribute.get_strategy()), tf.distribute.in_cross_replica_context())


def is_distribute_call(fn) -> bool:
    module = user_attributes.get(fn, "__module__", None) or ""
    return module.startswith("tensorflow.python.distribute") or \
        isinstance(user_attributes.get(fn, "__self__"), _DISTRIBUTE_TYPES)


def traced_user_functions(runtime, site, fn, args: tuple, kwargs: dict):
    """The arguments of a tf.distribute call made while tracing, each user function
    replaced by one janus traces when TF calls it (see the module docstring)."""
    if not is_distribute_call(fn):
        return args, kwargs
    tracer = runtime.tracer
    tracer.distributed = True
    tracer.collective_strategy = tracer.collective_strategy or multi_worker_strategy(fn)

    def wrap(value):
        if not callable(value) or isinstance(value, type) or \
                user_function(value)[0] is None:
            return value

        def traced(*a, **k):
            if active.get() is tracer:
                return runtime.call(site, value, *a, **k)
            with tracer.active():  # a replica thread of this trace
                return runtime.call(site, value, *a, **k)
        return traced

    return tuple(wrap(a) for a in args), {k: wrap(v) for k, v in kwargs.items()}
