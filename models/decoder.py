"""Seq2seq with Bahdanau attention: a teacher-forced training step, then a greedy decode.

Written the way the TensorFlow "neural machine translation with attention" tutorial
writes it: a GRU encoder, an additive (Bahdanau) attention, a GRU decoder fed
[context, embedding]; the training step runs the decoder in a Python ``for`` loop over
the target positions inside one ``tf.GradientTape`` (teacher forcing, padding masked);
the greedy "translate" loop calls ``tf.argmax(...).numpy()`` on each prediction, stops
on EOS with a Python ``if`` and collects the tokens in a Python list.  Each step trains
on a batch, then greedily decodes one probe sentence and keeps the result in the state
(``last_decoded``, ``exact_matches``: Python state).

Task: reverse a random token sequence (synthetic, from a seeded numpy RNG; variable
lengths padded with 0).  Token ids: 0 pad, 1 start, 2 end, 3.. words.

The expert is one ``tf.function(autograph=False)``: the same training step (target loop
unrolled at trace time: the padded length is fixed), then the greedy decode as a
``tf.while_loop`` that stops on EOS in-graph and returns the tokens; the host turns them
into the same Python list and bookkeeping.
"""
from __future__ import annotations

from typing import Callable

import keras
import numpy as np
import tensorflow as tf

from models.common import Workload, check_size, glorot, run_script, zeros

SIZES = {
    # size: (vocab, embed, units, batch, min_len, max_len)
    "full": (40, 64, 256, 64, 6, 16),
    "quick": (20, 32, 64, 16, 4, 10),
    "tiny": (10, 8, 8, 4, 2, 5),
}
PAD, START, END = 0, 1, 2


class GRUCell(tf.Module):
    """A GRU cell (reset gate applied before the recurrent matmul of the candidate)."""

    def __init__(self, input_size: int, units: int, rng: np.random.Generator, name: str):
        super().__init__(name=name)
        self.W = glorot(rng, (input_size, 3 * units), f"{name}_W")
        self.U = glorot(rng, (units, 3 * units), f"{name}_U")
        self.b = zeros((3 * units,), f"{name}_b")

    def __call__(self, x, h):
        xz, xr, xh = tf.split(tf.matmul(x, self.W) + self.b, 3, axis=1)
        Uz, Ur, Uh = tf.split(self.U, 3, axis=1)
        z = tf.sigmoid(xz + tf.matmul(h, Uz))
        r = tf.sigmoid(xr + tf.matmul(h, Ur))
        candidate = tf.tanh(xh + tf.matmul(r * h, Uh))
        return z * h + (1.0 - z) * candidate


class Encoder(tf.Module):
    def __init__(self, vocab: int, embed: int, units: int, rng: np.random.Generator):
        super().__init__(name="encoder")
        self.units = units
        self.embedding = tf.Variable(rng.uniform(-0.05, 0.05, (vocab, embed)).astype(np.float32),
                                     name="enc_embedding")
        self.gru = GRUCell(embed, units, rng, "enc_gru")

    def __call__(self, x, hidden):
        x = tf.nn.embedding_lookup(self.embedding, x)
        outputs = []
        for t in range(x.shape[1]):
            hidden = self.gru(x[:, t], hidden)
            outputs.append(hidden)
        return tf.stack(outputs, axis=1), hidden

    def initialize_hidden_state(self, batch: int):
        return tf.zeros((batch, self.units))


class BahdanauAttention(tf.Module):
    def __init__(self, units: int, rng: np.random.Generator):
        super().__init__(name="attention")
        self.W1 = glorot(rng, (units, units), "attn_W1")
        self.W2 = glorot(rng, (units, units), "attn_W2")
        self.V = glorot(rng, (units, 1), "attn_V")

    def __call__(self, query, values):
        query_with_time_axis = tf.expand_dims(query, 1)          # [batch, 1, units]
        score = tf.matmul(tf.tanh(tf.matmul(values, self.W1) +
                                  tf.matmul(query_with_time_axis, self.W2)), self.V)
        attention_weights = tf.nn.softmax(score, axis=1)         # [batch, time, 1]
        context_vector = tf.reduce_sum(attention_weights * values, axis=1)
        return context_vector, attention_weights


class Decoder(tf.Module):
    def __init__(self, vocab: int, embed: int, units: int, rng: np.random.Generator):
        super().__init__(name="decoder")
        self.embedding = tf.Variable(rng.uniform(-0.05, 0.05, (vocab, embed)).astype(np.float32),
                                     name="dec_embedding")
        self.gru = GRUCell(units + embed, units, rng, "dec_gru")
        self.attention = BahdanauAttention(units, rng)
        self.W_out = glorot(rng, (units, vocab), "dec_out_W")
        self.b_out = zeros((vocab,), "dec_out_b")

    def __call__(self, x, hidden, enc_output):
        context_vector, attention_weights = self.attention(hidden, enc_output)
        x = tf.nn.embedding_lookup(self.embedding, x)            # [batch, 1, embed]
        x = tf.concat([context_vector, tf.squeeze(x, 1)], axis=-1)
        state = self.gru(x, hidden)
        logits = tf.matmul(state, self.W_out) + self.b_out
        return logits, state, attention_weights


class Seq2SeqState:
    def __init__(self, vocab: int, embed: int, units: int, seed: int):
        rng = np.random.default_rng(seed)
        self.encoder = Encoder(vocab, embed, units, rng)
        self.decoder = Decoder(vocab, embed, units, rng)
        self.variables = list(self.encoder.trainable_variables) + \
            list(self.decoder.trainable_variables)
        self.optimizer = keras.optimizers.Adam()
        self.optimizer.build(self.variables)
        self.last_decoded = []
        self.exact_matches = 0


def loss_function(real, pred):
    mask = tf.math.logical_not(tf.math.equal(real, PAD))
    loss_ = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=real, logits=pred)
    mask = tf.cast(mask, dtype=loss_.dtype)
    loss_ *= mask
    return tf.reduce_mean(loss_)


def train_step(state: Seq2SeqState, inp, targ):
    loss = 0
    batch = inp.shape[0]
    with tf.GradientTape() as tape:
        enc_output, enc_hidden = state.encoder(inp, state.encoder.initialize_hidden_state(batch))
        dec_hidden = enc_hidden
        dec_input = tf.expand_dims([START] * batch, 1)
        for t in range(1, targ.shape[1]):  # teacher forcing: feed the target as next input
            predictions, dec_hidden, _ = state.decoder(dec_input, dec_hidden, enc_output)
            loss += loss_function(targ[:, t], predictions)
            dec_input = tf.expand_dims(targ[:, t], 1)
    batch_loss = loss / int(targ.shape[1])
    gradients = tape.gradient(loss, state.variables)
    state.optimizer.apply_gradients(zip(gradients, state.variables))
    return batch_loss


def translate(state: Seq2SeqState, sentence, max_length: int) -> list:
    """Greedy decoding of one source sentence ([1, length] ids) into a list of ids."""
    hidden = state.encoder.initialize_hidden_state(1)
    enc_out, enc_hidden = state.encoder(sentence, hidden)
    dec_hidden = enc_hidden
    dec_input = tf.expand_dims([START], 0)
    result = []
    for t in range(max_length):
        predictions, dec_hidden, attention_weights = state.decoder(dec_input, dec_hidden, enc_out)
        predicted_id = tf.argmax(predictions[0]).numpy()
        if predicted_id == END:
            break
        result.append(int(predicted_id))
        dec_input = tf.expand_dims([predicted_id], 0)
    return result


def step(state: Seq2SeqState, inp, targ, probe, probe_answer) -> tf.Tensor:
    """Train on a batch, then greedily decode the probe sentence; returns the batch loss."""
    batch_loss = train_step(state, inp, targ)
    decoded = translate(state, probe, targ.shape[1])
    state.last_decoded = decoded
    if decoded == probe_answer:
        state.exact_matches += 1
    return batch_loss


# -- the expert --------------------------------------------------------------------------

def make_expert(state: Seq2SeqState, jit_compile: bool = False) -> Callable[..., tf.Tensor]:
    """Training step and greedy decode in one graph; the host keeps the bookkeeping."""
    enc, dec, variables = state.encoder, state.decoder, state.variables

    def train(inp, targ):
        batch, length = inp.shape[0], targ.shape[1]
        with tf.GradientTape() as tape:
            enc_output, hidden = enc(inp, tf.zeros((batch, enc.units)))
            dec_input = tf.fill([batch, 1], START)
            loss = tf.constant(0.0)
            for t in range(1, length):
                logits, hidden, _ = dec(dec_input, hidden, enc_output)
                loss += loss_function(targ[:, t], logits)
                dec_input = targ[:, t:t + 1]
        grads = tape.gradient(loss, variables)
        state.optimizer.apply_gradients(zip(grads, variables))
        return loss / length

    def decode(probe, max_length):
        enc_out, hidden = enc(probe, tf.zeros((1, enc.units)))

        def body(t, token, hidden, done, tokens):
            logits, hidden, _ = dec(tf.reshape(token, [1, 1]), hidden, enc_out)
            token = tf.argmax(logits[0], output_type=tf.int32)
            done = tf.equal(token, END)
            return t + 1, token, hidden, done, tokens.write(t, token)

        t, _, _, done, tokens = tf.while_loop(
            lambda t, token, hidden, done, tokens: tf.logical_and(t < max_length,
                                                                  tf.logical_not(done)),
            body, (tf.constant(0), tf.constant(START), hidden, tf.constant(False),
                   tf.TensorArray(tf.int32, size=max_length)))
        return tokens.stack()[:tf.where(done, t - 1, t)]  # the END token is not kept

    @tf.function(jit_compile=jit_compile, autograph=False)
    def graph_step(inp, targ, probe):
        loss = train(inp, targ)  # automatic control dependencies: decode reads the new weights
        return loss, decode(probe, targ.shape[1])

    def run(inp, targ, probe, probe_answer) -> tf.Tensor:
        loss, tokens = graph_step(inp, targ, probe)
        decoded = [int(i) for i in tokens.numpy()]
        state.last_decoded = decoded
        if decoded == probe_answer:
            state.exact_matches += 1
        return loss

    return run


def reverse_task(rng: np.random.Generator, n: int, vocab: int, min_len: int,
                 max_len: int) -> tuple[np.ndarray, np.ndarray]:
    """n source rows [n, max_len] and targets [n, max_len + 2] = START reversed END, 0-padded."""
    src = np.zeros((n, max_len), np.int32)
    tgt = np.zeros((n, max_len + 2), np.int32)
    for i in range(n):
        length = int(rng.integers(min_len, max_len + 1))
        words = rng.integers(3, vocab, size=length)
        src[i, :length] = words
        tgt[i, :length + 2] = np.concatenate([[START], words[::-1], [END]])
    return src, tgt


def workload(size: str = "full", seed: int = 0) -> Workload:
    """Reverse-a-sequence batches; each step also greedily decodes one probe sentence."""
    vocab, embed, units, batch, min_len, max_len = SIZES[check_size(size)]

    def batches(n: int) -> list:
        rng = np.random.default_rng(seed + 1)
        out = []
        for _ in range(n):
            src, tgt = reverse_task(rng, batch + 1, vocab, min_len, max_len)
            answer = [int(i) for i in tgt[batch, 1:] if i not in (PAD, END)]
            out.append((tf.constant(src[:batch]), tf.constant(tgt[:batch]),
                        tf.constant(src[batch:]), answer))
        return out

    return Workload(
        name="decoder", category="RNN", make_state=lambda: Seq2SeqState(vocab, embed, units, seed),
        step=step, batches=batches, variables=lambda state: list(state.variables),
        expert=make_expert, items_per_step=batch, item_name="sentences", tolerance=1e-4,
        size=size, params=dict(vocab=vocab, embed=embed, units=units, batch=batch,
                               min_len=min_len, max_len=max_len),
    )


if __name__ == "__main__":
    run_script(workload)
