"""One MirroredStrategy training run, as a script (logical devices must be configured
before TensorFlow initializes, so each run is its own process).

    python mirrored_case.py outer|inner counting|plain STEPS

`outer`: `@janus.jit` on the distributed step (`strategy.run` + `strategy.reduce`);
`inner`: `@janus.jit` on the per-replica step, `strategy.run` called eagerly. janus is
imported before the two logical CPUs are configured. The same run is done plainly
(the reference) and with janus; prints one JSON line with both records.
"""
import json
import sys

import numpy as np
import tensorflow as tf

import janus

STEPS = int(sys.argv[3])
GLOBAL_BATCH = 8


class Trainer:
    """Imperative Python inside the step: a list of layers and of activations, attribute
    writes (`self.steps`, `self.last_loss`), a Python branch on that state."""

    def __init__(self, strategy):
        import keras
        rng = np.random.default_rng(0)
        with strategy.scope():
            self.layers = [(tf.Variable(rng.normal(size=(4, 6)).astype("float32") * 0.5),
                            tf.Variable(np.zeros(6, "float32"))),
                           (tf.Variable(rng.normal(size=(6, 1)).astype("float32") * 0.5),
                            tf.Variable(np.zeros(1, "float32")))]
            self.opt = keras.optimizers.SGD(0.1)
        self.steps = 0
        self.last_loss = None
        self.log = []

    @property
    def variables(self):
        return [v for layer in self.layers for v in layer]

    def loss(self, x, y):
        activations = []
        h = x
        for W, b in self.layers[:-1]:
            h = tf.tanh(tf.matmul(h, W) + b)
            activations.append(h)
        W, b = self.layers[-1]
        out = tf.matmul(activations[-1], W) + b
        self.activations = activations
        loss = tf.reduce_sum((out - y) ** 2) / GLOBAL_BATCH
        if self.steps < 4:  # a Python branch on Python state: warm-up weighting
            loss = loss * 0.5
        return loss

    def train_step(self, x, y):
        with tf.GradientTape() as tape:
            loss = self.loss(x, y)
        activations = self.activations
        grads = tape.gradient(loss, self.variables)
        self.opt.apply_gradients(zip(grads, self.variables))
        if self.counting:  # otherwise the Python state the branch reads never changes
            self.steps += 1
        self.last_loss = loss
        self.log.append(len(activations))
        return loss


def run(strategy, mode: str, jit, counting: bool) -> dict:
    """Train STEPS steps; the record of losses, variables after each step, Python state."""
    methods = {"counting": counting}
    if mode == "inner":  # the per-replica step is jitted, strategy.run is eager
        methods["train_step"] = jit(Trainer.train_step)
    trainer = type("RunTrainer", (Trainer,), methods)(strategy)

    def dist_step(x, y):
        per_replica = strategy.run(trainer.train_step, args=(x, y))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    if mode == "outer":
        dist_step = jit(dist_step)
    rng = np.random.default_rng(1)
    xs = rng.normal(size=(GLOBAL_BATCH * STEPS, 4)).astype("float32")
    ys = rng.normal(size=(GLOBAL_BATCH * STEPS, 1)).astype("float32")
    data = tf.data.Dataset.from_tensor_slices((xs, ys)).batch(GLOBAL_BATCH)
    losses, variables = [], []
    for x, y in strategy.experimental_distribute_dataset(data):
        losses.append(float(dist_step(x, y)))
        variables.append([v.numpy().tolist() for v in trainer.variables])
    jitted = dist_step if mode == "outer" else methods.get("train_step")
    return {"losses": losses, "variables": variables, "steps": trainer.steps,
            "log": len(trainer.log), "last_loss": float(trainer.last_loss),
            "stats": str(janus.stats(jitted)) if hasattr(jitted, "stats") else "",
            "failures": [list(map(str, f)) for f in getattr(jitted, "failures", [])][:4]}


def main():
    mode, counting = sys.argv[1], sys.argv[2] == "counting"
    if sys.argv[4:] == ["gpu"]:  # one replica per visible GPU (tests/distribute/test_gpu.py)
        strategy = tf.distribute.MirroredStrategy()
    else:
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    print(json.dumps({"eager": run(strategy, mode, lambda fn: fn, counting),
                      "janus": run(strategy, mode, janus.jit, counting)}))


if __name__ == "__main__":
    main()
