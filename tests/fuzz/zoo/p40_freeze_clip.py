"""Fine-tuning with a backbone frozen mid-training: `layer.trainable = False` set at the
7th step (the trainable variable list shrinks), gradients clipped with
tf.clip_by_global_norm, an auxiliary head used only on some batches (its gradients are
None otherwise and are skipped with a list comprehension), the global norms kept in a
Python list of tensors."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14
FREEZE_AT = 6
CLIP = 1.0


class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.backbone = keras.layers.Dense(8, activation="relu", name="backbone")
        self.head = keras.layers.Dense(3, name="head")
        self.aux = keras.layers.Dense(1, name="aux")

    def call(self, x, with_aux=False):
        h = self.backbone(x)
        logits = self.head(h)
        if with_aux:
            return logits, self.aux(h)
        return logits


class State:
    def __init__(self):
        self.model = Net()
        self.model(tf.zeros([1, 4]), with_aux=True)  # build every layer
        self.opt = keras.optimizers.Adam(0.05)
        self.step = 0
        self.norms = []
        self.n_trainable = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    x = rng.randn(6, 4).astype(np.float32)
    return (tf.constant(x * 3.0), tf.constant(rng.randint(0, 3, 6)), i % 3 == 0)


@JIT
def train_step(s, x, y, use_aux):
    if s.step == FREEZE_AT:
        s.model.backbone.trainable = False
        print("froze backbone at step", s.step)
    variables = s.model.trainable_variables
    with tf.GradientTape() as tape:
        if use_aux:
            logits, aux = s.model(x, with_aux=True)
            aux_loss = tf.reduce_mean(tf.square(aux - tf.cast(y, tf.float32)[:, None]))
        else:
            logits = s.model(x)
            aux_loss = 0.0
        ce = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
        loss = ce + 0.1 * aux_loss
    grads = tape.gradient(loss, variables)
    pairs = [(g, v) for g, v in zip(grads, variables) if g is not None]
    clipped, norm = tf.clip_by_global_norm([g for g, _ in pairs], CLIP)
    s.opt.apply_gradients(zip(clipped, [v for _, v in pairs]))
    s.step += 1
    s.norms.append(norm)
    s.n_trainable.append(len(pairs))
    return loss, norm


STEP = train_step
