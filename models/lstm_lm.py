"""LSTM language model (Zaremba-style, truncated BPTT) with state in an attribute.

The imperative model embeds a [batch, bptt] window of token ids, loops over
the time steps in Python, and carries ``self.hidden`` from one window to the
next.  The expert version is one ``tf.function`` over the fixed-size window
(time loop unrolled at trace time) with the carried state in ``tf.Variable``s.

Data: "full" uses a seeded Zipfian stream over a 10k vocabulary; "quick" and
"tiny" use the shipped text corpus (`models/data/corpus.txt`).
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import tensorflow as tf
import keras

from models import text
from models.common import Workload, check_size, glorot, run_script, zeros
from models.rnn import LSTMCell

SIZES = {
    # size: (vocab (None = whole corpus), embed, hidden, bptt, batch, source)
    "full": (10000, 200, 256, 35, 20, "zipf"),
    "quick": (None, 64, 128, 20, 10, "text"),
    "tiny": (40, 8, 8, 5, 2, "text"),
}
LEARNING_RATE = 1.0
CLIP_NORM = 5.0


class LSTMLM(tf.Module):
    """Embedding -> LSTM -> softmax over the vocabulary; ``self.hidden`` survives calls."""

    def __init__(self, vocab: int, embed: int, hidden: int, batch: int, seed: int = 0):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.embedding = tf.Variable(rng.uniform(-0.1, 0.1, (vocab, embed)).astype(np.float32),
                                     name="embedding")
        self.cell = LSTMCell(embed, hidden, rng)
        self.W_out = glorot(rng, (hidden, vocab), "softmax_W")
        self.b_out = zeros((vocab,), "softmax_b")
        self.hidden_size = hidden
        self.hidden = (tf.zeros([batch, hidden]), tf.zeros([batch, hidden]))

    def __call__(self, inputs, targets):
        embedded = tf.nn.embedding_lookup(self.embedding, inputs)  # [batch, bptt, embed]
        state = self.hidden
        outputs = []
        for x in tf.unstack(embedded, axis=1):
            state = self.cell(state, x)
            outputs.append(state[0])
        self.hidden = state
        output = tf.reshape(tf.stack(outputs, axis=1), [-1, self.hidden_size])
        logits = tf.matmul(output, self.W_out) + self.b_out
        losses = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.reshape(targets, [-1]), logits=logits)
        return tf.reduce_mean(losses)


class LMState:
    def __init__(self, model: LSTMLM, optimizer, bptt: int):
        self.model = model
        self.optimizer = optimizer
        self.bptt = bptt


def step(state: LMState, inputs, targets) -> tf.Tensor:
    """One truncated-BPTT step: forward the window, clip gradients, SGD update."""
    model = state.model
    with tf.GradientTape() as tape:
        loss = model(inputs, targets)
    variables = model.trainable_variables
    grads = tape.gradient(loss, variables)
    grads, _ = tf.clip_by_global_norm(grads, CLIP_NORM)
    state.optimizer.apply_gradients(zip(grads, variables))
    return loss


def make_expert(state: LMState, jit_compile: bool = False) -> Callable[..., tf.Tensor]:
    """Hand-written symbolic step: one graph for the fixed [batch, bptt] window,
    the time loop unrolled at trace time, the carried state in variables.

    (bptt is fixed, so unrolling is what an expert does here: measured on 2 CPU
    cores, a tf.while_loop version of this step is no faster than eager, the
    unrolled one ~1.8x faster.)
    """
    model, optimizer = state.model, state.optimizer
    h_var = tf.Variable(model.hidden[0], trainable=False, name="expert_h")
    c_var = tf.Variable(model.hidden[1], trainable=False, name="expert_c")
    variables = model.trainable_variables
    batch = int(model.hidden[0].shape[0])
    spec = tf.TensorSpec([batch, state.bptt], tf.int32)

    @tf.function(input_signature=[spec, spec], jit_compile=jit_compile, autograph=False)
    def graph_step(inputs, targets):
        with tf.GradientTape() as tape:
            embedded = tf.nn.embedding_lookup(model.embedding, inputs)
            h, c = h_var.read_value(), c_var.read_value()
            outputs = []
            for x in tf.unstack(embedded, num=state.bptt, axis=1):
                h, c = model.cell((h, c), x)
                outputs.append(h)
            output = tf.reshape(tf.stack(outputs, axis=1), [-1, model.hidden_size])
            logits = tf.matmul(output, model.W_out) + model.b_out
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=tf.reshape(targets, [-1]), logits=logits))
        grads = tape.gradient(loss, variables)
        grads, _ = tf.clip_by_global_norm(grads, CLIP_NORM)
        optimizer.apply_gradients(zip(grads, variables))
        h_var.assign(h)
        c_var.assign(c)
        return loss

    return graph_step


def token_rows(seed: int, batch: int, bptt: int, vocab: int | None, source: str,
               n_windows: int, corpus_path: str = text.CORPUS_PATH) -> tuple[np.ndarray, int]:
    """Batchified token ids ([batch, n]) and the vocabulary size actually used.

    source "zipf": a synthetic stream long enough for ``n_windows`` windows;
    "text": the corpus file, vocabulary capped at ``vocab`` (None = all words).
    """
    if source == "zipf":
        ids = text.zipf_stream(batch * (bptt * n_windows + 1), vocab, seed=seed)
        return text.batchify(ids, batch), vocab
    tokens = text.read_corpus(corpus_path)
    voc = text.Vocab.build(tokens, max_size=vocab)
    return text.batchify(voc.encode(tokens), batch), len(voc)


def workload(size: str = "full", seed: int = 0, corpus_path: str | None = None) -> Workload:
    """The LM workload; ``corpus_path`` trains on that text file instead of the size's default."""
    vocab, embed, hidden, bptt, batch, source = SIZES[check_size(size)]
    if corpus_path:
        source = "text"
    rows, vocab = token_rows(seed, batch, bptt, vocab, source, n_windows=64,
                             corpus_path=corpus_path or text.CORPUS_PATH)

    def make_state() -> LMState:
        model = LSTMLM(vocab, embed, hidden, batch, seed=seed)
        optimizer = keras.optimizers.SGD(LEARNING_RATE)
        optimizer.build(model.trainable_variables)
        return LMState(model, optimizer, bptt)

    def batches(n: int) -> list:
        return [(tf.constant(x), tf.constant(y)) for x, y in text.bptt_windows(rows, bptt, n)]

    return Workload(
        name="lstm_lm", category="RNN", make_state=make_state, step=step, batches=batches,
        variables=lambda state: list(state.model.trainable_variables), expert=make_expert,
        items_per_step=batch * bptt, item_name="tokens", tolerance=1e-5, size=size,
        params=dict(vocab=vocab, embed=embed, hidden=hidden, bptt=bptt, batch=batch,
                    source=corpus_path or source),
    )


if __name__ == "__main__":
    run_script(workload)
