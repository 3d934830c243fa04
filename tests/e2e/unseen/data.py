"""Small fixed data sets the programs share (same arrays on both sides)."""
import numpy as np
import tensorflow as tf


def classification(n_batches: int, batch: int = 8, features: int = 6, classes: int = 3,
                   seed: int = 0):
    rng = np.random.RandomState(seed)
    return [(tf.constant(rng.randn(batch, features).astype(np.float32)),
             tf.constant(rng.randint(0, classes, size=batch).astype(np.int64)))
            for _ in range(n_batches)]


def regression(n_batches: int, batch: int = 8, features: int = 4, seed: int = 1):
    rng = np.random.RandomState(seed)
    return [(tf.constant(rng.randn(batch, features).astype(np.float32)),
             tf.constant(rng.randn(batch, 1).astype(np.float32)))
            for _ in range(n_batches)]
