"""Start N local training workers under MultiWorkerMirroredStrategy (loopback, TF_CONFIG).

    python -m janus.distributed --workers 2 --model lenet --steps 10

The launcher picks free ports on 127.0.0.1 (binding port 0), starts one process per
worker with its TF_CONFIG, prints the chief's per-step losses, and stops every worker
when it finishes, fails, is interrupted or runs past `--timeout`. Each worker trains a
model of `models/` (the classifiers lenet and resnet, or the LSTM language model
lstm_lm, whose recurrent state is a Python attribute carried across windows) with a
`janus.jit` distributed step (`strategy.run` + `strategy.reduce`: after two profiled
calls it runs as a janus graph that includes the per-replica step); `--executor
eager|function` runs the same step plainly or under `tf.function` for comparison. The
global batch is split evenly over the workers (a worker always gets the same rows, so
the LM's carried state stays its own), and each replica's loss is weighted by its share
of the global batch, so N workers compute what one worker computes with the whole
batch.

GPUs use the same code path: each worker's strategy takes the GPUs it sees (one
replica per GPU); on a CPU-only machine each worker is one replica.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

MODELS = ("lenet", "resnet", "lstm_lm")
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # janus/ and models/


def free_ports(n: int) -> list[int]:
    """n distinct ports free on 127.0.0.1 now (the OS picks them)."""
    sockets = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def tf_config(ports: list[int], index: int) -> str:
    return json.dumps({"cluster": {"worker": [f"127.0.0.1:{p}" for p in ports]},
                       "task": {"type": "worker", "index": index}})


# -- the launcher ------------------------------------------------------------------------

def launch(workers: int, model: str, steps: int, size: str = "tiny", executor: str = "janus",
           out: str | None = None, timeout: float = 600.0, echo: bool = True) -> int:
    """Run `workers` worker processes to completion; 0 when all succeeded."""
    ports = free_ports(workers)
    procs = []
    deadline = time.monotonic() + timeout
    try:
        for index in range(workers):
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(
                [_ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
            env.pop("TF_CONFIG", None)
            if workers > 1:
                env["TF_CONFIG"] = tf_config(ports, index)
            cmd = [sys.executable, "-m", "janus.distributed", "--worker", str(index),
                   "--workers", str(workers), "--model", model, "--steps", str(steps),
                   "--size", size, "--executor", executor] + (["--out", out] if out else [])
            procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True,
                                          start_new_session=True))
        logs = [[] for _ in procs]
        readers = [threading.Thread(target=_pump, args=(p.stderr, logs[i], None), daemon=True)
                   for i, p in enumerate(procs)]
        readers += [threading.Thread(target=_pump, args=(
            p.stdout, logs[i], sys.stdout if echo and i == 0 else None), daemon=True)
            for i, p in enumerate(procs)]
        for reader in readers:
            reader.start()
        while any(p.poll() is None for p in procs):
            failed = [i for i, p in enumerate(procs) if p.poll() not in (None, 0)]
            if failed or time.monotonic() > deadline:
                why = f"worker {failed[0]} failed" if failed else f"timeout after {timeout:.0f} s"
                print(f"janus.distributed: {why}; stopping the workers", file=sys.stderr)
                _stop(procs)
                for i in failed or range(len(procs)):
                    print(f"--- worker {i} (last lines)\n" + "".join(logs[i][-30:]),
                          file=sys.stderr)
                return 1
            time.sleep(0.2)
        for reader in readers:
            reader.join(timeout=5)
        bad = [i for i, p in enumerate(procs) if p.returncode != 0]
        for i in bad:
            print(f"--- worker {i} exited with {procs[i].returncode}\n" +
                  "".join(logs[i][-30:]), file=sys.stderr)
        return 1 if bad else 0
    finally:
        _stop(procs)


def _pump(stream, lines: list, echo) -> None:
    for line in stream:
        lines.append(line)
        if echo is not None:
            echo.write(line)
            echo.flush()


def _stop(procs) -> None:
    """Terminate each worker's process group (the workers and anything they started)."""
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait(timeout=10)


# -- a TensorFlow bug the workers refuse to walk into ------------------------------------

def onednn_odd_batch_hazard(model, per_replica_batch: int) -> str | None:
    """Why this model would crash TensorFlow with this per-replica batch, or None.

    TensorFlow 2.21 on CPU with oneDNN (the default, TF_ENABLE_ONEDNN_OPTS unset or 1)
    corrupts the heap in the gradient of a 1x1 convolution with stride 2 (the filter
    gradient, Conv2DBackpropFilter) when the batch is odd: "malloc(): corrupted top size",
    SIGSEGV/SIGABRT, eagerly, under tf.function and in janus graphs alike, in a thread or
    not, with or without tf.distribute (reproduced with a single `tf.nn.conv2d`). ResNet's
    projection shortcuts are such convolutions, so a tiny ResNet whose batch of 2 is split
    over 2 workers (1 example each) crashed every executor.
    """
    if per_replica_batch % 2 == 0 or os.environ.get("TF_ENABLE_ONEDNN_OPTS", "1") == "0":
        return None
    for layer in getattr(model, "_flatten_layers", lambda: [])():
        if type(layer).__name__ == "Conv2D" and tuple(layer.kernel_size) == (1, 1) and \
                max(layer.strides) > 1:
            return (f"{layer.name} is a 1x1 convolution with strides {layer.strides}: with oneDNN, "
                    f"TensorFlow's gradient of it corrupts the heap for an odd batch "
                    f"({per_replica_batch} per replica). Use an even per-replica batch, or "
                    "TF_ENABLE_ONEDNN_OPTS=0")
    return None


# -- the per-replica steps --------------------------------------------------------------------------

def classifier_replica_step(state, global_batch: int):
    """A classifier's step: the loss summed over this replica's examples / the global batch."""
    import tensorflow as tf

    model_ = state.model

    def replica_step(x, y):
        with tf.GradientTape() as tape:
            logits = model_(x, training=True)
            per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                         logits=logits)
            loss = tf.reduce_sum(per_example) / global_batch
        grads = tape.gradient(loss, model_.trainable_variables)
        state.optimizer.apply_gradients(zip(grads, model_.trainable_variables))
        return loss

    return replica_step


def lm_replica_step(state, global_batch: int):
    """`models.lstm_lm.step` per replica: the window's mean loss weighted by this replica's
    share of the batch; the gradients clipped by the global norm of the *summed* gradients
    (what one worker clips). The Keras optimizer sums gradients over replicas itself (it
    cannot be told not to), so each replica hands it its 1/N of the clipped sum."""
    import tensorflow as tf

    from models.lstm_lm import CLIP_NORM

    model = state.model

    def replica_step(x, y):
        context = tf.distribute.get_replica_context()
        with tf.GradientTape() as tape:
            loss = model(x, y) * tf.cast(tf.shape(x)[0], tf.float32) / global_batch
        variables = model.trainable_variables
        grads = [tf.convert_to_tensor(g) for g in tape.gradient(loss, variables)]
        grads = context.all_reduce(tf.distribute.ReduceOp.SUM, grads)
        grads, _ = tf.clip_by_global_norm(grads, CLIP_NORM)
        share = 1.0 / context.num_replicas_in_sync
        state.optimizer.apply_gradients(zip([g * share for g in grads], variables))
        return loss

    return replica_step


# -- one worker --------------------------------------------------------------------------

def worker(index: int, workers: int, model: str, steps: int, size: str, executor: str,
           out: str | None) -> None:
    """Train `steps` steps as worker `index` of `workers`; the chief prints the losses."""
    import numpy as np
    import tensorflow as tf

    import janus

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    workload = importlib.import_module(f"models.{model}").workload(size)
    with strategy.scope():
        state = workload.make_state()
    batches = workload.batches(steps)
    global_batch = int(batches[0][0].shape[0])
    replicas = strategy.num_replicas_in_sync
    if global_batch % replicas:
        raise SystemExit(f"global batch {global_batch} does not split over {replicas} replicas")
    hazard = onednn_odd_batch_hazard(state.model, global_batch // replicas)
    if hazard:
        raise SystemExit(f"janus.distributed: {model}: {hazard}")
    if model == "lstm_lm":  # the carried LSTM state holds this replica's rows only
        state.model.hidden = tuple(h[:global_batch // replicas] for h in state.model.hidden)
    inputs = np.stack([b[0].numpy() for b in batches])  # [steps, global batch, ...]
    targets = np.stack([b[1].numpy() for b in batches])

    def shard(context: tf.distribute.InputContext):
        per = global_batch // context.num_input_pipelines  # this worker's rows of each batch
        lo = context.input_pipeline_id * per
        data = tf.data.Dataset.from_tensor_slices((inputs[:, lo:lo + per],
                                                   targets[:, lo:lo + per]))
        return data.unbatch().batch(context.get_per_replica_batch_size(global_batch))

    replica_step = (lm_replica_step if model == "lstm_lm" else classifier_replica_step)(
        state, global_batch)

    def dist_step(x, y):
        per_replica = strategy.run(replica_step, args=(x, y))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    if executor == "janus":
        dist_step = janus.jit(dist_step)
    elif executor == "function":
        dist_step = tf.function(dist_step)
    losses, start = [], time.perf_counter()
    ends = []  # when each step finished (the float() waits for it)
    for step, (x, y) in enumerate(strategy.distribute_datasets_from_function(shard)):
        losses.append(float(dist_step(x, y)))
        ends.append(time.perf_counter() - start)
        if index == 0:
            print(f"step {step} loss {losses[-1]:.6f}", flush=True)
    elapsed = time.perf_counter() - start
    if index == 0:
        print(f"{steps} steps in {elapsed:.2f} s ({steps / elapsed:.2f} steps/s, {workers} "
              f"worker(s), {replicas} replica(s), executor {executor})", flush=True)
        if executor == "janus":
            print(f"janus: {janus.stats(dist_step)}", flush=True)
    if out:
        record = {"losses": losses, "seconds": elapsed, "step_ends": ends, "replicas": replicas,
                  "variables": [v.numpy().tolist() for v in workload.variables(state)]}
        with open(os.path.join(out, f"worker-{index}.json"), "w") as f:
            json.dump(record, f)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m janus.distributed", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--model", choices=MODELS, default="lenet")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--size", choices=("tiny", "quick", "full"), default="tiny")
    parser.add_argument("--executor", choices=("janus", "eager", "function"), default="janus")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds before every worker is stopped (default 600)")
    parser.add_argument("--out", help="directory for each worker's worker-<i>.json record")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)  # set by the launcher
    args = parser.parse_args(argv)
    if args.workers < 1 or args.steps < 1:
        parser.error("--workers and --steps must be positive")
    if args.worker is not None:
        worker(args.worker, args.workers, args.model, args.steps, args.size, args.executor,
               args.out)
        return 0
    return launch(args.workers, args.model, args.steps, args.size, args.executor, args.out,
                  args.timeout)


if __name__ == "__main__":
    sys.exit(main())
