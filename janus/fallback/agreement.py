"""Workers of a multi-worker strategy take the same path through every jitted call.

Under `MultiWorkerMirroredStrategy` each worker process runs its own janus. A call whose
graph contains collectives (the gradient all-reduce of `strategy.run`) must run as that
graph on every worker or on none: if worker 0 runs the graph while worker 1's host guard
fails and it runs the step eagerly, their all-reduces do not pair up (a hang, or sums of
mismatched tensors). Host guards read Python values, and those may differ per worker
(its data, its rows of a batch, a worker-local flag), so janus does not assume they agree:

- A function that called tf.distribute with a strategy spanning several workers (seen
  while profiling or tracing) is *collective*. Before each of its calls acts, the
  workers agree on the decision: each proposes the specialization it would run (or
  "generate a graph", or "not a graph") and one small all-reduce (min and max of the
  proposals, on a group of its own, outside the strategy's keys) tells every worker
  whether all proposed the same. If not, every worker runs this call plainly -- the
  collective-safe fallback: plain Python issues the same collectives on every worker,
  as it does without janus. After agreeing to generate, the workers agree again on the
  result (a generation may fail on one worker only).
- A graph of a collective function has no in-graph guards: an in-graph guard failing on
  one worker only would leave that worker rerunning the step eagerly while the others
  committed theirs. Such a trace is refused (a conversion limit, so the ladder retreats
  to a more specialized graph or the function runs plainly, on every worker alike).

The cost is one small cross-worker all-reduce per call of a collective function
(measured ~1-7 ms over loopback on a loaded 2-core machine).
"""
from __future__ import annotations

import itertools
import threading
from typing import Optional

import tensorflow as tf

from janus import user_attributes

GROUP_KEY = 0x4A414E  # janus's own collective group; the strategies' keys count up from 1
TIMEOUT_S = 600.0     # a peer that never proposes (it crashed): fail instead of hanging

_DISTRIBUTE_TYPES = (tf.distribute.Strategy, tf.distribute.StrategyExtended,
                     tf.distribute.ReplicaContext)
_instance_keys = itertools.count(1)  # every worker makes the same sequence of agreements
_keys_lock = threading.Lock()


def strategy_of(fn) -> Optional[tf.distribute.Strategy]:
    """The strategy a tf.distribute call (`strategy.run`, `ctx.all_reduce`, ...) belongs
    to, or None."""
    owner = user_attributes.get(fn, "__self__")
    if isinstance(owner, tf.distribute.Strategy):
        return owner
    if isinstance(owner, tf.distribute.ReplicaContext):
        return owner.strategy
    if isinstance(owner, tf.distribute.StrategyExtended):
        return getattr(owner, "_container_strategy", lambda: None)()
    return None


def workers_of(strategy: Optional[tf.distribute.Strategy]) -> int:
    return int(getattr(getattr(strategy, "extended", None), "_num_workers", 1) or 1)


def multi_worker_strategy(fn) -> Optional[tf.distribute.Strategy]:
    """The strategy of this call if it spans several worker processes, else None."""
    strategy = strategy_of(fn)
    return strategy if workers_of(strategy) > 1 else None


def _local_device(strategy: tf.distribute.Strategy) -> str:
    resolver = strategy.cluster_resolver
    return f"/job:{resolver.task_type}/replica:0/task:{resolver.task_id}/device:CPU:0"


def all_propose(strategy: tf.distribute.Strategy, proposal: int) -> bool:
    """True iff every worker of `strategy` proposed `proposal` (a blocking all-reduce)."""
    with _keys_lock:
        key = next(_instance_keys)
    with tf.device(_local_device(strategy)):
        value = tf.constant([proposal, -proposal], tf.int64)
        low, neg_high = tf.raw_ops.CollectiveReduceV2(
            input=value, group_size=workers_of(strategy), group_key=GROUP_KEY,
            instance_key=key, ordering_token=[], merge_op="Min", final_op="Id",
            communication_hint="auto", timeout_seconds=TIMEOUT_S).numpy()
    return int(low) == -int(neg_high) == proposal
