"""Beam search over a tiny GRU decoder: Python heapq for the beams, .numpy() to read the
top-k tokens, early exit when every beam has ended."""
import heapq

import keras
import numpy as np
import tensorflow as tf

GRAPHS = False  # (top-k read with .numpy() per beam, token lists of varying length: runs split)
EOS = 0


class State:
    def __init__(self):
        keras.utils.set_random_seed(5)
        self.embed = keras.layers.Embedding(7, 4)
        self.cell = keras.layers.GRUCell(8)
        self.proj = keras.layers.Dense(7)
        self.embed.build((None,))
        self.cell.build((None, 4))
        self.proj.build((None, 8))


def make_state():
    return State()


def step(s, h0, beam_width=2, max_len=4):
    beams = [(0.0, [1], h0)]
    finished = []
    for _ in range(max_len):
        candidates = []
        for score, tokens, h in beams:
            x = s.embed(tf.constant([tokens[-1]]))
            out, new_h = s.cell(x, [h])
            logp = tf.nn.log_softmax(s.proj(out))[0]
            top = tf.math.top_k(logp, k=beam_width)
            for lp, tok in zip(top.values.numpy(), top.indices.numpy()):
                cand = (score - float(lp), tokens + [int(tok)], new_h[0])
                if int(tok) == EOS:
                    finished.append(cand[:2])
                else:
                    heapq.heappush(candidates, (cand[0], len(candidates), cand))
        beams = [c for _, _, c in heapq.nsmallest(beam_width, candidates)]
        if not beams:
            break
    finished.extend((sc, toks) for sc, toks, _ in beams)
    best = min(finished)
    return best[1], round(best[0], 4)


def calls():
    rng = np.random.RandomState(6)
    return [(tf.constant(rng.randn(1, 8).astype(np.float32)),) for _ in range(8)]
