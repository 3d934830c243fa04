"""LSTM RNN over the time steps of one stacked tensor: `for t in range(xs.shape[0])`.

The model of models/rnn.py written the other usual way: a batch is one
``[T, batch, input]`` tensor whose length ``T`` changes from batch to batch, and the
step loops over ``range(xs.shape[0])`` reading ``xs[t]``, summing the per-step losses
and dividing by the length. janus reads the varying length as a fed int and the loop as
one ``tf.while_loop`` (janus/graphgen/dynamic_sizes.py); it made a graph per length
before. The expert is models/rnn.py's hand-written ``tf.while_loop`` on the same tensors.
"""
from __future__ import annotations

import keras
import tensorflow as tf

from models import rnn
from models.common import Workload, check_size, run_script


class StepsModel(rnn.RNNModel):
    """RNNModel whose call loops over the time steps of stacked tensors."""

    def __call__(self, xs, ys):
        state = self.state
        total = 0.0
        for t in range(xs.shape[0]):
            state = self.cell(state, xs[t])
            prediction = tf.matmul(state[0], self.W_out) + self.b_out
            total += tf.reduce_mean(tf.square(prediction - ys[t]))
        self.state = state
        return total / xs.shape[0]


def step(state: rnn.RNNState, xs, ys) -> tf.Tensor:
    """The benchmarked step: unmodified imperative code."""
    return rnn.train_step(state.model, xs, ys, state.optimizer)


def make_batches(n: int, batch: int, input_size: int, min_len: int, max_len: int,
                 seed: int = 0) -> list[tuple[tf.Tensor, tf.Tensor]]:
    """models/rnn.py's batches, each sequence and its targets stacked into one tensor."""
    return [(tf.stack(sequence), tf.stack(targets)) for sequence, targets in
            rnn.make_batches(n, batch, input_size, min_len, max_len, seed)]


def workload(size: str = "full", seed: int = 0) -> Workload:
    hidden, batch, input_size, min_len, max_len = rnn.SIZES[check_size(size)]

    def make_state() -> rnn.RNNState:
        model = StepsModel(input_size, hidden, batch, seed=seed)
        optimizer = keras.optimizers.SGD(rnn.LEARNING_RATE)
        optimizer.build(model.trainable_variables)
        return rnn.RNNState(model, optimizer)

    return Workload(
        name="rnn_steps",
        category="RNN",
        make_state=make_state,
        step=step,
        batches=lambda n: make_batches(n, batch, input_size, min_len, max_len, seed),
        variables=lambda state: list(state.model.trainable_variables),
        expert=lambda state, jit_compile=False: rnn.make_expert(state, jit_compile,
                                                                stacked=True),
        items_per_step=batch,
        item_name="sequences",
        tolerance=1e-5,
        size=size,
        params=dict(hidden=hidden, batch=batch, input=input_size, min_len=min_len,
                    max_len=max_len, loop="range(xs.shape[0])"),
    )


if __name__ == "__main__":
    run_script(workload)
