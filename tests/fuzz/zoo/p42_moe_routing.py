"""A mixture-of-experts block trained for a few steps: a gating network, top-1 routing with
tf.math.top_k, a Python loop over experts that gathers each expert's tokens with
tf.boolean_mask / tf.where (an expert with no token skipped by `continue` on a tensor
test), tf.tensor_scatter_nd_update writing the expert outputs back, a load-balancing
auxiliary loss, per-expert token counts accumulated in a Python list."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14
N_EXPERTS = 4
DIM = 6


class MoE:
    def __init__(self, n_experts=N_EXPERTS, k=1):
        self.k = k
        self.gate = keras.layers.Dense(n_experts, use_bias=False)
        self.experts = [keras.layers.Dense(DIM, activation="relu") for _ in range(n_experts)]
        self.gate.build((None, DIM))
        for expert in self.experts:  # (an expert may get no token in the first batch)
            expert.build((None, DIM))

    @property
    def trainable_variables(self):
        return self.gate.trainable_variables + [v for e in self.experts
                                                for v in e.trainable_variables]

    def __call__(self, x):
        probs = tf.nn.softmax(self.gate(x), axis=-1)
        top_p, top_i = tf.math.top_k(probs, k=self.k)
        expert_of, weight = top_i[:, 0], top_p[:, 0]
        out = tf.zeros_like(x)
        counts = []
        for e, expert in enumerate(self.experts):
            mask = tf.equal(expert_of, e)
            idx = tf.where(mask)  # [n_e, 1] int64
            tokens = tf.boolean_mask(x, mask)
            counts.append(tf.shape(tokens)[0])
            if counts[-1] == 0:
                continue
            y = expert(tokens) * tf.boolean_mask(weight, mask)[:, None]
            out = tf.tensor_scatter_nd_update(out, idx, y)
        # load balancing (Switch Transformer): fraction routed times mean gate probability
        frac = tf.reduce_mean(tf.one_hot(expert_of, len(self.experts)), axis=0)
        aux = len(self.experts) * tf.reduce_sum(frac * tf.reduce_mean(probs, axis=0))
        return out, aux, counts


class State:
    def __init__(self):
        self.moe = MoE()
        self.readout = keras.layers.Dense(1)
        self.readout.build((None, DIM))
        self.opt = keras.optimizers.Adam(0.03)
        # (the optimizer sees every expert, also one whose gradient is None at the first step)
        self.opt.build(self.moe.trainable_variables + self.readout.trainable_variables)
        self.usage = [0] * N_EXPERTS


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    n = 8 + (i % 3) * 2
    x = rng.randn(n, DIM).astype(np.float32)
    return (tf.constant(x), tf.constant(x.sum(axis=1, keepdims=True) ** 2 * 0.1, tf.float32))


@JIT
def train_step(s, x, y):
    with tf.GradientTape() as tape:
        h, aux, counts = s.moe(x)
        pred = s.readout(h + x)
        mse = tf.reduce_mean(tf.square(pred - y))
        loss = mse + 0.01 * aux
    variables = s.moe.trainable_variables + s.readout.trainable_variables
    grads = tape.gradient(loss, variables)
    s.opt.apply_gradients([(g, v) for g, v in zip(grads, variables) if g is not None])
    for e, c in enumerate(counts):
        s.usage[e] += c
    return mse, aux, tf.stack(counts)


STEP = train_step
