"""A small ResNet (basic residual blocks, batch norm) on CIFAR-shaped 32x32x3 images."""
from __future__ import annotations

from typing import Optional

import keras

from models import vision_data
from models.classifier import classifier_workload
from models.common import Workload, check_size, run_script

SIZES = {
    # size: (batch, stage widths, blocks per stage)
    "full": (32, (16, 32, 64), 2),
    "quick": (16, (16, 32, 64), 1),
    "tiny": (4, (4, 8), 1),
}
# (tiny's batch is even when split over 2 workers: TF 2.21's oneDNN gradient of a strided
# 1x1 convolution corrupts the heap for odd batches -- see janus/distributed.py)


class ResidualBlock(keras.layers.Layer):
    """conv-bn-relu-conv-bn plus a shortcut (1x1 conv when the shape changes), then relu."""

    def __init__(self, filters: int, stride: int = 1, **kwargs):
        super().__init__(**kwargs)
        self.conv1 = keras.layers.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False)
        self.bn1 = keras.layers.BatchNormalization()
        self.conv2 = keras.layers.Conv2D(filters, 3, padding="same", use_bias=False)
        self.bn2 = keras.layers.BatchNormalization()
        self.filters, self.stride = filters, stride
        self.projection = None
        self.projection_bn = None

    def build(self, input_shape):
        if self.stride != 1 or input_shape[-1] != self.filters:
            self.projection = keras.layers.Conv2D(self.filters, 1, strides=self.stride, use_bias=False)
            self.projection_bn = keras.layers.BatchNormalization()

    def call(self, x, training=False):
        y = keras.activations.relu(self.bn1(self.conv1(x), training=training))
        y = self.bn2(self.conv2(y), training=training)
        shortcut = x
        if self.projection is not None:
            shortcut = self.projection_bn(self.projection(x), training=training)
        return keras.activations.relu(y + shortcut)


def build_resnet(widths=(16, 32, 64), blocks: int = 2, classes: int = 10) -> keras.Model:
    """Stem conv, one stage per width (stride 2 between stages), global pooling, dense."""
    inputs = keras.Input((32, 32, 3))
    x = keras.layers.Conv2D(widths[0], 3, padding="same", use_bias=False)(inputs)
    x = keras.activations.relu(keras.layers.BatchNormalization()(x))
    for stage, width in enumerate(widths):
        for b in range(blocks):
            x = ResidualBlock(width, stride=2 if stage > 0 and b == 0 else 1)(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    return keras.Model(inputs, keras.layers.Dense(classes)(x), name="resnet")


def workload(size: str = "full", seed: int = 0, cifar_dir: Optional[str] = None) -> Workload:
    """Small-ResNet training; ``cifar_dir`` switches to real CIFAR-10 python batches.

    Tolerance 1e-2: graph and eager kernels differ in the last float32 bits and
    training with batch norm amplifies that to ~1e-3 relative within ~15 steps.
    """
    batch, widths, blocks = SIZES[check_size(size)]
    data = vision_data.load_cifar10(cifar_dir) if cifar_dir else None
    return classifier_workload("resnet", lambda: build_resnet(widths, blocks), (32, 32, 3), batch,
                               size, seed, data=data, learning_rate=0.01, tolerance=1e-2,
                               params=dict(widths=list(widths), blocks=blocks))


if __name__ == "__main__":
    run_script(workload)
