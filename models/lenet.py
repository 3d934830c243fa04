"""LeNet-5 on MNIST-shaped 28x28x1 images (synthetic unless an MNIST directory is given)."""
from __future__ import annotations

from typing import Optional

import keras

from models import vision_data
from models.classifier import classifier_workload
from models.common import Workload, check_size, run_script

SIZES = {"full": 64, "quick": 32, "tiny": 4}  # batch size


def build_lenet(classes: int = 10) -> keras.Model:
    """The classic LeNet-5 layout (tanh, average pooling)."""
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        keras.layers.Conv2D(6, 5, padding="same", activation="tanh"),
        keras.layers.AveragePooling2D(2),
        keras.layers.Conv2D(16, 5, activation="tanh"),
        keras.layers.AveragePooling2D(2),
        keras.layers.Flatten(),
        keras.layers.Dense(120, activation="tanh"),
        keras.layers.Dense(84, activation="tanh"),
        keras.layers.Dense(classes),
    ], name="lenet5")


def workload(size: str = "full", seed: int = 0, mnist_dir: Optional[str] = None) -> Workload:
    """LeNet-5 training; ``mnist_dir`` switches from synthetic to real MNIST IDX files."""
    batch = SIZES[check_size(size)]
    data = vision_data.load_mnist(mnist_dir) if mnist_dir else None
    return classifier_workload("lenet", build_lenet, (28, 28, 1), batch, size, seed, data=data,
                               learning_rate=0.01)


if __name__ == "__main__":
    run_script(workload)
