"""A fastText-style sentence classifier trained on raw string tensors: text normalized with
`tf.strings.lower` and `tf.strings.regex_replace`, tokenized with `tf.strings.split` into a
RaggedTensor, word bigrams from `tf.strings.ngrams`, the hashing trick
(`tf.strings.to_hash_bucket_fast`) into an embedding table gathered with
`tf.ragged.map_flat_values` and mean-pooled; hashed-bucket frequencies accumulated in a
tf.Variable with `tf.math.bincount`; the most confident sentence of each batch kept as a
string tensor in a Python list, a log line built with `tf.strings.join` /
`tf.strings.as_string`; the batch size and sentence lengths change between calls."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 18
BUCKETS = 64
DIM = 8
WORDS = ["The", "movie", "was", "great!", "awful,", "plot", "acting", "boring", "loved",
         "it", "NOT", "good.", "really", "terrible", "fun", "and", "but", "Brilliant"]
GOOD = {"great!", "loved", "good.", "fun", "Brilliant"}


class State:
    def __init__(self):
        rng = np.random.RandomState(70)
        self.emb = tf.Variable(rng.randn(BUCKETS, DIM).astype(np.float32) * 0.1)
        self.w = tf.Variable(tf.zeros([DIM, 1]))
        self.b = tf.Variable([0.0])
        self.freq = tf.Variable(tf.zeros([BUCKETS], tf.int32))
        self.confident = []
        self.log = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    n = 4 + i % 3
    texts, labels = [], []
    for _ in range(n):
        words = list(rng.choice(WORDS, size=rng.randint(3, 8)))
        texts.append(" ".join(words))
        labels.append(float(sum(w in GOOD for w in words) > sum(w in ("awful,", "boring",
                                                                       "terrible") for w in words)))
    return tf.constant(texts), tf.constant(labels)[:, None]


def featurize(texts):
    clean = tf.strings.regex_replace(tf.strings.lower(texts), r"[^a-z ]", "")
    tokens = tf.strings.split(clean)
    bigrams = tf.strings.ngrams(tokens, 2, separator="_")
    grams = tf.concat([tokens, bigrams], axis=1)
    return tf.strings.to_hash_bucket_fast(grams, BUCKETS)


@JIT
def train_step(s, texts, labels):
    ids = featurize(texts)
    s.freq.assign_add(tf.math.bincount(tf.cast(ids.flat_values, tf.int32), minlength=BUCKETS,
                                       maxlength=BUCKETS))
    with tf.GradientTape() as tape:
        vectors = tf.ragged.map_flat_values(tf.gather, s.emb, ids)
        pooled = tf.reduce_mean(vectors, axis=1)
        logits = pooled @ s.w + s.b
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels, logits))
    grads = tape.gradient(loss, [s.emb, s.w, s.b])
    for g, v in zip(grads, [s.emb, s.w, s.b]):
        v.assign_sub(0.5 * tf.convert_to_tensor(g))
    probs = tf.sigmoid(logits[:, 0])
    best = tf.argmax(tf.abs(probs - 0.5))
    s.confident.append(texts[best])
    s.log.append(tf.strings.join(["loss=", tf.strings.as_string(loss, precision=4),
                                  " n=", tf.strings.as_string(tf.size(texts))]))
    return loss, probs


STEP = train_step
