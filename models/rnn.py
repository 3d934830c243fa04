"""LSTM RNN over variable-length Python lists of tensors (the JANUS paper's RNN).

The imperative model keeps its recurrent state in an object attribute
(``self.state``) across calls and loops over a Python list whose length changes
from call to call.  The expert version stacks the sequence into one
``[T, batch, input]`` tensor, runs a ``tf.while_loop`` and keeps the state in
``tf.Variable``s, inside one ``tf.function`` with a dynamic ``T``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import tensorflow as tf
import keras

from models.common import Workload, check_size, glorot, run_script, zeros

SIZES = {
    # size: (hidden, batch, input, min_len, max_len)
    "full": (256, 32, 128, 10, 50),
    "quick": (64, 16, 32, 10, 30),
    "tiny": (8, 2, 4, 3, 6),
}
LEARNING_RATE = 0.05


class LSTMCell(tf.Module):
    """A plain LSTM cell: one matmul on [x, h], gates i, f, g, o (forget bias 1)."""

    def __init__(self, input_size: int, hidden: int, rng: np.random.Generator):
        super().__init__()
        self.W = glorot(rng, (input_size + hidden, 4 * hidden), "lstm_W")
        self.b = zeros((4 * hidden,), "lstm_b")

    def __call__(self, state, x):
        h, c = state
        z = tf.matmul(tf.concat([x, h], axis=1), self.W) + self.b
        i, f, g, o = tf.split(z, 4, axis=1)
        c = tf.sigmoid(f + 1.0) * c + tf.sigmoid(i) * tf.tanh(g)
        h = tf.sigmoid(o) * tf.tanh(c)
        return h, c


class RNNModel(tf.Module):
    """LSTM + linear read-out predicting the next input; state kept in ``self.state``."""

    def __init__(self, input_size: int, hidden: int, batch: int, seed: int = 0):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.cell = LSTMCell(input_size, hidden, rng)
        self.W_out = glorot(rng, (hidden, input_size), "out_W")
        self.b_out = zeros((input_size,), "out_b")
        self.state = (tf.zeros([batch, hidden]), tf.zeros([batch, hidden]))

    def __call__(self, sequence, targets):
        state = self.state
        outputs = []
        for item in sequence:
            state = self.cell(state, item)
            outputs += [state[0]]
        self.state = state
        losses = []
        for h, target in zip(outputs, targets):
            prediction = tf.matmul(h, self.W_out) + self.b_out
            losses.append(tf.reduce_mean(tf.square(prediction - target)))
        return tf.add_n(losses) / len(losses)


def train_step(model: RNNModel, sequence, targets, optimizer) -> tf.Tensor:
    """One SGD step on one (variable-length) sequence batch."""
    with tf.GradientTape() as tape:
        loss = model(sequence, targets)
    variables = model.trainable_variables
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))
    return loss


class RNNState:
    """What one executor owns: the model (with its Python-side state) and the optimizer."""

    def __init__(self, model: RNNModel, optimizer):
        self.model = model
        self.optimizer = optimizer


def step(state: RNNState, sequence, targets) -> tf.Tensor:
    """The benchmarked step: unmodified imperative code."""
    return train_step(state.model, sequence, targets, state.optimizer)


def make_batches(n: int, batch: int, input_size: int, min_len: int, max_len: int,
                 seed: int = 0) -> list[tuple[list, list]]:
    """n (sequence, targets) pairs of Python lists of [batch, input] tensors.

    Each sequence is a noisy sum of sine waves; targets are the next items.
    Lengths are drawn uniformly from [min_len, max_len].
    """
    rng = np.random.default_rng(seed + 1000)
    out = []
    for _ in range(n):
        length = int(rng.integers(min_len, max_len + 1))
        t = np.arange(length + 1, dtype=np.float32)[:, None, None]
        freq = rng.uniform(0.05, 0.5, size=(1, batch, input_size))
        phase = rng.uniform(0, 2 * np.pi, size=(1, batch, input_size))
        x = np.sin(freq * t + phase) + 0.1 * rng.standard_normal((length + 1, batch, input_size))
        x = x.astype(np.float32)
        sequence = [tf.constant(x[i]) for i in range(length)]
        targets = [tf.constant(x[i + 1]) for i in range(length)]
        out.append((sequence, targets))
    return out


def make_expert(state: RNNState, jit_compile: bool = False,
                stacked: bool = False) -> Callable[..., tf.Tensor]:
    """Hand-written symbolic RNN step: stacked input, tf.while_loop, state in variables.

    The per-step losses are summed inside the loop (no TensorArray), so the
    same graph also compiles with XLA (once per sequence length).
    """
    model, optimizer = state.model, state.optimizer
    cell = model.cell
    h_var = tf.Variable(model.state[0], trainable=False, name="expert_h")
    c_var = tf.Variable(model.state[1], trainable=False, name="expert_c")
    variables = model.trainable_variables
    batch, input_size = int(model.state[0].shape[0]), int(model.W_out.shape[1])
    spec = tf.TensorSpec([None, batch, input_size], tf.float32)

    @tf.function(input_signature=[spec, spec], jit_compile=jit_compile, autograph=False)
    def graph_step(xs, ys):
        length = tf.shape(xs)[0]
        with tf.GradientTape() as tape:
            def body(t, h, c, loss_sum):
                h, c = cell((h, c), xs[t])
                prediction = tf.matmul(h, model.W_out) + model.b_out
                return t + 1, h, c, loss_sum + tf.reduce_mean(tf.square(prediction - ys[t]))

            _, h, c, loss_sum = tf.while_loop(
                lambda t, *_: t < length, body,
                (tf.constant(0), h_var.read_value(), c_var.read_value(), tf.constant(0.0)),
                maximum_iterations=length)
            loss = loss_sum / tf.cast(length, tf.float32)
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables))
        h_var.assign(h)
        c_var.assign(c)
        return loss

    if stacked:  # (a batch already one [T, batch, input] tensor: models/rnn_steps.py)
        return graph_step

    def run(sequence, targets):
        return graph_step(tf.stack(sequence), tf.stack(targets))

    return run


def workload(size: str = "full", seed: int = 0, hidden: int | None = None) -> Workload:
    """The RNN workload; ``hidden`` overrides the size's hidden width (e.g. 64 vs 256)."""
    default_hidden, batch, input_size, min_len, max_len = SIZES[check_size(size)]
    name = "rnn" if hidden is None else f"rnn_h{hidden}"
    hidden = hidden or default_hidden

    def make_state() -> RNNState:
        model = RNNModel(input_size, hidden, batch, seed=seed)
        optimizer = keras.optimizers.SGD(LEARNING_RATE)
        optimizer.build(model.trainable_variables)
        return RNNState(model, optimizer)

    return Workload(
        name=name,
        category="RNN",
        make_state=make_state,
        step=step,
        batches=lambda n: make_batches(n, batch, input_size, min_len, max_len, seed),
        variables=lambda state: list(state.model.trainable_variables),
        expert=make_expert,
        items_per_step=batch,
        item_name="sequences",
        tolerance=1e-5,
        size=size,
        params=dict(hidden=hidden, batch=batch, input=input_size, min_len=min_len, max_len=max_len),
    )


if __name__ == "__main__":
    run_script(workload)
