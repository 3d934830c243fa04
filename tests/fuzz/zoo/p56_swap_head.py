"""Fine-tuning with a user's temperature-scaled classifier head whose Python
`temperature` is annealed between calls, the backbone frozen/unfrozen by toggling
`trainable`, and the head swapped for a new one (`net.head = CosineHead(...)`) halfway
through; each head counts its calls in Python.

janus (zoo-layers run): agrees; the head built inside the step at call 8 (variables
created while tracing) makes the whole function eager from then on: slower than eager."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16


class TempHead(keras.layers.Layer):
    def __init__(self, classes, temperature=1.0):
        super().__init__()
        self.fc = keras.layers.Dense(classes)
        self.temperature = temperature
        self.calls = 0

    def call(self, h):
        self.calls += 1
        return self.fc(h) / self.temperature


class CosineHead(keras.layers.Layer):
    def __init__(self, classes, temperature=0.2):
        super().__init__()
        self.classes = classes
        self.temperature = temperature
        self.calls = 0

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.classes), name="w",
                                 initializer=keras.initializers.GlorotUniform(seed=5))

    def call(self, h):
        self.calls += 1
        h = tf.math.l2_normalize(h, axis=-1)
        w = tf.math.l2_normalize(self.w, axis=0)
        return tf.matmul(h, w) / self.temperature


class Classifier:
    """A plain Python holder (Keras forbids new sublayers on a built Model)."""
    def __init__(self):
        self.backbone = keras.Sequential([keras.layers.Dense(10, activation="relu"),
                                          keras.layers.Dense(6, activation="relu")])
        self.head = TempHead(3)

    def __call__(self, x):
        return self.head(self.backbone(x))

    @property
    def trainable_variables(self):
        return self.backbone.trainable_variables + self.head.trainable_variables


class State:
    def __init__(self):
        self.net = Classifier()
        self.opt = keras.optimizers.Adam(1e-2)
        self.net(tf.zeros([1, 4]))
        self.opt.build(self.net.trainable_variables)
        self.heads = [self.net.head]


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(300 + i)
    x = rng.randn(12, 4).astype(np.float32)
    y = np.argmax(x[:, :3], axis=1).astype(np.int32)
    return tf.constant(x), tf.constant(y), i


def schedule(s, i):
    if i == 8:
        s.net.head = CosineHead(3)
        s.heads.append(s.net.head)
        s.net.head(s.net.backbone(tf.zeros([1, 4])))  # build it, then a fresh optimizer
        s.opt = keras.optimizers.Adam(5e-3)
        s.opt.build(s.net.backbone.variables + s.net.head.trainable_variables)
    s.net.backbone.trainable = i % 6 >= 3
    s.net.head.temperature = max(0.5, 2.0 - 0.25 * i)


@JIT
def step(s, x, y, i):
    schedule(s, i)
    with tf.GradientTape() as tape:
        logits = s.net(x)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
    grads = tape.gradient(loss, s.net.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.net.trainable_variables))
    return loss, len(s.net.trainable_variables)


def STEP(s, *args):
    out = step(s, *args)
    return out, [(type(h).__name__, h.calls, h.temperature) for h in s.heads]


def JITTED(s):
    return step
