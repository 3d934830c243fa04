"""Shared training step, expert graph and workload builder for the image classifiers."""
from __future__ import annotations

from typing import Callable, Optional

import tensorflow as tf
import keras

from models import vision_data
from models.common import Workload, seed_everything


class ClassifierState:
    def __init__(self, model: keras.Model, optimizer):
        self.model = model
        self.optimizer = optimizer


def step(state: ClassifierState, images, labels) -> tf.Tensor:
    """One supervised step: softmax cross-entropy, SGD with momentum."""
    model = state.model
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    grads = tape.gradient(loss, model.trainable_variables)
    state.optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def make_expert(state: ClassifierState, jit_compile: bool = False) -> Callable[..., tf.Tensor]:
    """The static-graph version an expert writes: the same step, fixed input signature."""
    model, optimizer = state.model, state.optimizer
    image_shape = tuple(model.inputs[0].shape[1:]) if getattr(model, "inputs", None) else None
    spec = [tf.TensorSpec((None,) + image_shape, tf.float32), tf.TensorSpec([None], tf.int32)]

    @tf.function(input_signature=spec, jit_compile=jit_compile, autograph=False)
    def graph_step(images, labels):
        with tf.GradientTape() as tape:
            logits = model(images, training=True)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return graph_step


def classifier_workload(name: str, build_model: Callable[[], keras.Model], image_shape: tuple,
                        batch: int, size: str, seed: int, data: Optional[tuple] = None,
                        learning_rate: float = 0.01, params: Optional[dict] = None,
                        tolerance: float = 1e-4) -> Workload:
    """A Workload around ``build_model`` on ``data`` (images, labels) or synthetic images."""
    if data is None:
        data = vision_data.synthetic_images(max(256, 4 * batch), image_shape, seed=seed + 1)
    images, labels = data

    def make_state() -> ClassifierState:
        seed_everything(seed)
        model = build_model()
        optimizer = keras.optimizers.SGD(learning_rate, momentum=0.9)
        optimizer.build(model.trainable_variables)
        return ClassifierState(model, optimizer)

    return Workload(
        name=name, category="CNN", make_state=make_state, step=step,
        batches=lambda n: vision_data.image_batches(images, labels, batch, n),
        variables=lambda state: list(state.model.trainable_variables) + list(state.model.non_trainable_variables),
        expert=make_expert, items_per_step=batch, item_name="images", tolerance=tolerance, size=size,
        params=dict(params or {}, batch=batch, image_shape=list(image_shape)),
    )
