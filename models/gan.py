"""A small GAN on a 2-D mixture of Gaussians (8 modes on a ring).

One step alternates a discriminator update and a generator update, each with
its own Adam optimizer, and counts steps in a Python attribute.  The expert
version is the same step as a hand-written ``tf.function``.
"""
from __future__ import annotations

from typing import Callable

import keras
import numpy as np
import tensorflow as tf

from models.common import Workload, check_size, run_script
from models.mlp import MLP

SIZES = {
    # size: (batch, hidden, noise dim)
    "full": (256, 128, 16),
    "quick": (128, 64, 16),
    "tiny": (8, 8, 4),
}
MODES, RADIUS, STD = 8, 2.0, 0.05


class GANState:
    def __init__(self, hidden: int, noise: int, seed: int):
        rng = np.random.default_rng(seed)
        self.generator = MLP([noise, hidden, hidden, 2], rng, "generator")
        self.discriminator = MLP([2, hidden, hidden, 1], rng, "discriminator")
        self.g_optimizer = keras.optimizers.Adam(1e-3, beta_1=0.5)
        self.d_optimizer = keras.optimizers.Adam(1e-3, beta_1=0.5)
        self.g_optimizer.build(self.generator.trainable_variables)
        self.d_optimizer.build(self.discriminator.trainable_variables)
        self.steps = 0


def bce(logits, target: float):
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
        labels=tf.fill(tf.shape(logits), target), logits=logits))


def step(state: GANState, real, noise_d, noise_g) -> tf.Tensor:
    """One discriminator step then one (non-saturating) generator step."""
    G, D = state.generator, state.discriminator
    with tf.GradientTape() as tape:
        fake = G(noise_d)
        d_loss = bce(D(real), 1.0) + bce(D(fake), 0.0)
    grads = tape.gradient(d_loss, D.trainable_variables)
    state.d_optimizer.apply_gradients(zip(grads, D.trainable_variables))

    with tf.GradientTape() as tape:
        g_loss = bce(D(G(noise_g)), 1.0)
    grads = tape.gradient(g_loss, G.trainable_variables)
    state.g_optimizer.apply_gradients(zip(grads, G.trainable_variables))
    state.steps += 1
    return d_loss + g_loss


def make_expert(state: GANState, jit_compile: bool = False) -> Callable[..., tf.Tensor]:
    """The same step, hand-written as one tf.function with a fixed signature."""
    G, D = state.generator, state.discriminator
    noise = int(G.layers[0][0].shape[0])
    signature = [tf.TensorSpec([None, 2], tf.float32), tf.TensorSpec([None, noise], tf.float32),
                 tf.TensorSpec([None, noise], tf.float32)]

    @tf.function(input_signature=signature, jit_compile=jit_compile, autograph=False)
    def graph_step(real, noise_d, noise_g):
        with tf.GradientTape() as tape:
            d_loss = bce(D(real), 1.0) + bce(D(G(noise_d)), 0.0)
        grads = tape.gradient(d_loss, D.trainable_variables)
        state.d_optimizer.apply_gradients(zip(grads, D.trainable_variables))
        with tf.GradientTape() as tape:
            g_loss = bce(D(G(noise_g)), 1.0)
        grads = tape.gradient(g_loss, G.trainable_variables)
        state.g_optimizer.apply_gradients(zip(grads, G.trainable_variables))
        return d_loss + g_loss

    def run(real, noise_d, noise_g):
        loss = graph_step(real, noise_d, noise_g)
        state.steps += 1
        return loss

    return run


def sample_batches(n: int, batch: int, noise: int, seed: int) -> list:
    """n (real samples, discriminator noise, generator noise) tensor triples."""
    rng = np.random.default_rng(seed + 5)
    angles = 2 * np.pi * np.arange(MODES) / MODES
    centers = RADIUS * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    out = []
    for _ in range(n):
        real = centers[rng.integers(0, MODES, batch)] + STD * rng.standard_normal((batch, 2))
        out.append(tuple(tf.constant(a.astype(np.float32)) for a in
                         (real, rng.standard_normal((batch, noise)), rng.standard_normal((batch, noise)))))
    return out


def workload(size: str = "full", seed: int = 0) -> Workload:
    batch, hidden, noise = SIZES[check_size(size)]
    return Workload(
        name="gan", category="GAN", make_state=lambda: GANState(hidden, noise, seed), step=step,
        batches=lambda n: sample_batches(n, batch, noise, seed),
        variables=lambda s: list(s.generator.trainable_variables) + list(s.discriminator.trainable_variables),
        expert=make_expert, items_per_step=batch, item_name="samples", tolerance=1e-4, size=size,
        params=dict(batch=batch, hidden=hidden, noise=noise),
    )


if __name__ == "__main__":
    run_script(workload)
