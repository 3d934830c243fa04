"""A small multi-layer perceptron with explicit variables (used by PPO and the GAN)."""
from __future__ import annotations

import numpy as np
import tensorflow as tf

from models.common import glorot, zeros


class MLP(tf.Module):
    """Tanh hidden layers and a linear output; ``sizes`` = [input, hidden..., output]."""

    def __init__(self, sizes: list[int], rng: np.random.Generator, name: str):
        super().__init__(name=name)
        self.layers = [(glorot(rng, (a, b), f"{name}_W{i}"), zeros((b,), f"{name}_b{i}"))
                       for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:]))]

    def __call__(self, x):
        for W, b in self.layers[:-1]:
            x = tf.tanh(tf.matmul(x, W) + b)
        W, b = self.layers[-1]
        return tf.matmul(x, W) + b

    def numpy_forward(self, x: np.ndarray) -> np.ndarray:
        """The same network in numpy, for cheap rollouts."""
        for W, b in self.layers[:-1]:
            x = np.tanh(x @ W.numpy() + b.numpy())
        W, b = self.layers[-1]
        return x @ W.numpy() + b.numpy()
