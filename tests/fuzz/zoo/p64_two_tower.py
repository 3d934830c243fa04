"""A two-tower retrieval model as a keras.Model subclass with its own `train_batch(batch,
*, temperature=..., l2=...)` method called directly: nested dict batches
({"user": {"dense": ..., "ids": ...}, "item": {...}}) cast with `tf.nest.map_structure`,
towers as dicts of lists of layers run with `enumerate`, an in-batch softmax contrastive
loss, per-tower gradient norms grouped with `zip` over variable lists and
`tf.nest.pack_sequence_as`, a Keras Mean tracker, extra `*aux` tensors added to the loss,
and a `try`/`finally` that always records the step in Python."""
import dataclasses

import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16
DIM = 6


@dataclasses.dataclass
class History:
    steps: list = dataclasses.field(default_factory=list)
    norms: list = dataclasses.field(default_factory=list)


class TwoTower(keras.Model):
    def __init__(self):
        super().__init__()
        self.embed = {k: keras.layers.Embedding(10, 3, name=f"{k}_emb") for k in ("user", "item")}
        self.towers = {k: [keras.layers.Dense(8, activation="relu", name=f"{k}_h"),
                           keras.layers.Dense(DIM, name=f"{k}_out")] for k in ("user", "item")}
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.optimizer_ = keras.optimizers.Adam(0.01)
        # (a small holder keeps the lists plain; as attributes of the Model they become
        # TrackedLists, which janus copies too: tests/fallback/test_tracked_list_appends.py)
        self.history = History()

    def encode(self, side, feats):
        h = tf.concat([feats["dense"], self.embed[side](feats["ids"])], axis=-1)
        for i, layer in enumerate(self.towers[side]):
            h = layer(h)
            if i == len(self.towers[side]) - 1:
                h = tf.math.l2_normalize(h, axis=-1)
        return h

    def call(self, batch):
        return {side: self.encode(side, batch[side]) for side in ("user", "item")}

    @JIT
    def train_batch(self, batch, *aux, temperature=0.2, l2=1e-3):
        batch = tf.nest.map_structure(
            lambda t: tf.cast(t, tf.float32) if t.dtype == tf.float64 else t, batch)
        try:
            with tf.GradientTape() as tape:
                emb = self(batch)
                logits = tf.matmul(emb["user"], emb["item"], transpose_b=True) / temperature
                labels = tf.range(tf.shape(logits)[0])
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
                loss += l2 * tf.add_n([tf.reduce_sum(w ** 2) for w in self.trainable_weights
                                       if "kernel" in w.path])
                for a in aux:
                    loss += tf.reduce_mean(a)
            per_side = {side: [v for layer in self.towers[side] for v in layer.trainable_variables]
                        for side in ("user", "item")}
            flat_vars = tf.nest.flatten(per_side)
            grads = tape.gradient(loss, flat_vars)
            self.optimizer_.apply_gradients(zip(grads, flat_vars))
            grad_tree = tf.nest.pack_sequence_as(per_side, grads)
            norms = {side: tf.linalg.global_norm(g) for side, g in grad_tree.items()}
            self.history.norms.append(norms)
            self.loss_tracker.update_state(loss)
            return {"loss": self.loss_tracker.result(), **norms}
        finally:
            self.history.steps.append(len(self.history.steps))


def setup():
    model = TwoTower()
    rng = np.random.RandomState(5)
    model(inputs(0)[0])  # build
    return model


def inputs(i):
    rng = np.random.RandomState(i)
    n = 4 + (i % 2)
    batch = {side: {"dense": rng.randn(n, 3).astype(np.float64 if side == "user" else np.float32),
                    "ids": rng.randint(0, 10, n).astype(np.int32)} for side in ("user", "item")}
    batch = tf.nest.map_structure(tf.constant, batch)
    aux = (tf.constant([0.01 * i], tf.float32),) if i % 3 == 2 else ()
    return (batch,) + aux


def STEP(model, batch, *aux):
    return model.train_batch(batch, *aux, temperature=0.2 if len(aux) else 0.5)


def JITTED(model):
    return vars(TwoTower)["train_batch"]
