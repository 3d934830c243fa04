"""A small transformer encoder block (MultiHeadAttention, LayerNormalization, FFN,
Dropout) trained with label smoothing on one-hot targets."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14


class TransformerBlock(keras.layers.Layer):
    def __init__(self, d_model=8, heads=2, ff=16, rate=0.1):
        super().__init__()
        self.att = keras.layers.MultiHeadAttention(num_heads=heads, key_dim=d_model // heads)
        self.ffn = keras.Sequential([keras.layers.Dense(ff, activation="relu"),
                                     keras.layers.Dense(d_model)])
        self.ln1 = keras.layers.LayerNormalization(epsilon=1e-6)
        self.ln2 = keras.layers.LayerNormalization(epsilon=1e-6)
        self.drop1 = keras.layers.Dropout(rate)
        self.drop2 = keras.layers.Dropout(rate)

    def call(self, inputs, training=False, mask=None):
        attn = self.att(inputs, inputs, attention_mask=mask)
        out1 = self.ln1(inputs + self.drop1(attn, training=training))
        ffn = self.ffn(out1)
        return self.ln2(out1 + self.drop2(ffn, training=training))


class Classifier(keras.Model):
    def __init__(self):
        super().__init__()
        self.emb = keras.layers.Embedding(10, 8)
        self.block = TransformerBlock()
        self.pool = keras.layers.GlobalAveragePooling1D()
        self.head = keras.layers.Dense(4)

    def call(self, tokens, training=False):
        mask = tf.cast(tokens > 0, tf.bool)[:, tf.newaxis, :]
        h = self.block(self.emb(tokens), training=training, mask=mask)
        return self.head(self.pool(h))


class State:
    def __init__(self):
        self.model = Classifier()
        self.opt = keras.optimizers.Adam(3e-3)
        self.loss_fn = keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1)
        self.train_loss = keras.metrics.Mean(name="train_loss")


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    tokens = rng.randint(0, 10, (3, 5))
    tokens[:, 0] = 1
    return (tf.constant(tokens), tf.constant(rng.randint(0, 4, 3)), i % 4 != 3)


@JIT
def step(s, tokens, labels, training):
    y = tf.one_hot(labels, 4)
    if training:
        with tf.GradientTape() as tape:
            logits = s.model(tokens, training=True)
            loss = s.loss_fn(y, logits)
        grads = tape.gradient(loss, s.model.trainable_variables)
        s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
        s.train_loss(loss)
        return loss
    logits = s.model(tokens, training=False)
    return tf.argmax(logits, axis=-1)


STEP = step
