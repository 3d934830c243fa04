"""Parameter-efficient fine-tuning: a user `LoRADense` keras layer wrapping a frozen
kernel (`add_weight(trainable=False)`) with low-rank `A`/`B` adapters whose rank and
`alpha / rank` scaling come from a config dict, an adapter dropout applied with
`training=`, a `merge()` method that folds `B @ A` into the kernel (called on the host
at the end of fine-tuning, a Python flag `merged` makes `call` skip the adapters), and
gradual magnitude pruning of the frozen kernel: the sparsity target follows a cubic
Python schedule of the step, the mask computed with `tf.sort` and a threshold at a
Python int index (`int(sparsity * size)`), kept in a non-trainable mask variable;
only adapters are trained (`[v for v in model.trainable_variables if "lora" in v.path]`)
and the kept sparsity is logged to a Python list.

janus (session 28, h2): agrees on all 16 calls; split at `float(tf.reduce_mean(l.mask))`
(line 102); 4 segment graph runs; steady about even with plain."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16
CONFIG = {"rank": 2, "alpha": 4.0, "dropout": 0.1, "final_sparsity": 0.5,
          "prune_start": 2, "prune_end": 10, "merge_at": 13}


class LoRADense(keras.layers.Layer):
    def __init__(self, units, rank, alpha, dropout, **kw):
        super().__init__(**kw)
        self.units, self.rank, self.scale = units, rank, alpha / rank
        self.drop = keras.layers.Dropout(dropout, seed=100)
        self.merged = False

    def build(self, shape):
        d = shape[-1]
        self.kernel = self.add_weight(shape=(d, self.units), trainable=False, name="kernel",
                                      initializer="glorot_uniform")
        self.mask = self.add_weight(shape=(d, self.units), trainable=False, name="mask",
                                    initializer="ones")
        self.lora_a = self.add_weight(shape=(self.rank, self.units), name="lora_a",
                                      initializer="random_normal")
        self.lora_b = self.add_weight(shape=(d, self.rank), name="lora_b", initializer="zeros")

    def call(self, x, training=False):
        y = x @ (self.kernel * self.mask)
        if not self.merged:
            y = y + self.scale * (self.drop(x, training=training) @ self.lora_b) @ self.lora_a
        return y

    def merge(self):
        self.kernel.assign(self.kernel * self.mask + self.scale * self.lora_b @ self.lora_a)
        self.mask.assign(tf.ones_like(self.mask))
        self.merged = True


class State:
    def __init__(self):
        c = CONFIG
        self.l1 = LoRADense(12, c["rank"], c["alpha"], c["dropout"], name="l1")
        self.l2 = LoRADense(3, c["rank"], c["alpha"], c["dropout"], name="l2")
        self.l1.build((None, 6))
        self.l2.build((None, 12))
        self.opt = keras.optimizers.AdamW(1e-2, weight_decay=1e-3)
        self.step = 0
        self.sparsity = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(1000 + i)
    return tf.constant(rng.randn(12, 6), tf.float32), tf.constant(rng.randint(0, 3, 12))


def target_sparsity(step):
    c = CONFIG
    if step < c["prune_start"]:
        return 0.0
    frac = min(1.0, (step - c["prune_start"]) / (c["prune_end"] - c["prune_start"]))
    return c["final_sparsity"] * (1.0 - (1.0 - frac) ** 3)


def prune(layer, sparsity):
    flat = tf.reshape(tf.abs(layer.kernel), [-1])
    k = int(sparsity * int(flat.shape[0]))
    if k == 0:
        return
    threshold = tf.sort(flat)[k - 1]
    layer.mask.assign(tf.cast(tf.abs(layer.kernel) > threshold, tf.float32))


@JIT
def finetune_step(s, x, y):
    s.step += 1
    layers = [s.l1, s.l2]
    with tf.GradientTape() as tape:
        logits = s.l2(tf.nn.relu(s.l1(x, training=True)), training=True)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
    params = [v for l in layers for v in l.trainable_variables if "lora" in v.path]
    s.opt.apply_gradients(zip(tape.gradient(loss, params), params))
    if not s.l1.merged:
        sp = target_sparsity(s.step)
        for layer in layers:
            prune(layer, sp)
        kept = sum(float(tf.reduce_mean(l.mask)) for l in layers) / len(layers)
        s.sparsity.append(round(1.0 - kept, 4))
    if s.step == CONFIG["merge_at"]:
        for layer in layers:
            layer.merge()
    return loss


STEP = finetune_step
