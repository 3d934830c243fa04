"""One MultiWorkerMirroredStrategy worker whose janus decisions would differ from its
peer's (run by test_worker_agreement.py, one process per worker, TF_CONFIG set).

    python divergent_case.py host|ingraph janus|eager STEPS OUT_DIR

host: the distributed step branches on a worker-local Python flag that is True on worker
1 at step 3 only -- a host guard fails there on that worker alone, and the branch it
takes cannot be a graph (it calls .numpy()): alone, that worker would run the step
eagerly while the other runs the graph.
ingraph: the distributed step branches on the values of this worker's rows, negative on
worker 1 at step 3 only -- an in-graph guard would fail on that worker alone.
Writes OUT_DIR/worker-<i>.json: losses, variables, Python state, janus stats.
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

import janus

CASE, EXECUTOR, STEPS, OUT = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
PER_WORKER = 2
ODD_STEP = 3

strategy = tf.distribute.MultiWorkerMirroredStrategy()
index = strategy.cluster_resolver.task_id
workers = strategy.num_replicas_in_sync
GLOBAL = PER_WORKER * workers


class State:
    def __init__(self):
        import keras
        with strategy.scope():
            self.w = tf.Variable(np.linspace(-0.5, 0.5, 4).reshape(4, 1).astype("float32"))
            self.opt = keras.optimizers.SGD(0.1)
        self.flagged = []


state = State()


def replica_step(x, scale):
    with tf.GradientTape() as tape:
        y = tf.matmul(x, state.w) * scale
        loss = tf.reduce_sum(tf.square(y - 1.0)) / GLOBAL
    grads = tape.gradient(loss, [state.w])
    state.opt.apply_gradients(zip(grads, [state.w]))
    return loss


def dist_step(x, flag):
    scale = 1.0
    if CASE == "ingraph" and tf.reduce_sum(strategy.experimental_local_results(x)[0]) < 0.0:
        scale = 3.0  # a test on this worker's own rows
    per_replica = strategy.run(replica_step, args=(x, scale))
    if flag:  # a worker-local Python value; the branch cannot be a graph (.numpy())
        local = strategy.experimental_local_results(x)[0]
        state.flagged.append(int(tf.reduce_sum(local).numpy()))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)


def rows(step: int) -> np.ndarray:
    base = np.arange(PER_WORKER * 4, dtype="float32").reshape(PER_WORKER, 4) / 10.0 + step
    if CASE == "ingraph" and index == 1 and step == ODD_STEP:
        base = -base - 1.0
    return base + index


step_fn = janus.jit(dist_step) if EXECUTOR == "janus" else dist_step
losses = []
for step in range(STEPS):
    x = strategy.experimental_distribute_values_from_function(
        lambda ctx, step=step: tf.constant(rows(step)))
    flag = CASE == "host" and index == 1 and step == ODD_STEP
    losses.append(float(step_fn(x, flag)))
record = {"losses": losses, "variables": state.w.numpy().tolist(),
          "flagged": state.flagged}
if EXECUTOR == "janus":
    stats = janus.stats(step_fn)
    record["stats"] = {"graph_calls": stats.graph_calls, "fallback_calls": stats.fallback_calls,
                       "guard_failures": dict(stats.guard_failures),
                       "explain": janus.explain(step_fn)}
with open(os.path.join(OUT, f"worker-{index}.json"), "w") as f:
    json.dump(record, f)
print(json.dumps({k: v for k, v in record.items() if k != "stats"}), flush=True)
