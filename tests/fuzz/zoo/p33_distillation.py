"""Knowledge distillation: a frozen teacher (training=False), a student trained on a mix
of the hard-label loss and KL divergence at temperature T, both Keras models."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14


class Distiller:
    def __init__(self, alpha=0.3, temperature=3.0):
        self.teacher = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                                         keras.layers.Dense(3)])
        self.student = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
        self.opt = keras.optimizers.Adam(0.02)
        self.alpha, self.temperature = alpha, temperature
        self.kl = keras.losses.KLDivergence()
        self.ce = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @JIT
    def train_step(self, x, y):
        teacher_logits = self.teacher(x, training=False)
        with tf.GradientTape() as tape:
            student_logits = self.student(x, training=True)
            hard = self.ce(y, student_logits)
            soft = self.kl(tf.nn.softmax(teacher_logits / self.temperature, axis=1),
                           tf.nn.softmax(student_logits / self.temperature, axis=1))
            loss = self.alpha * hard + (1 - self.alpha) * soft * self.temperature ** 2
        grads = tape.gradient(loss, self.student.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.student.trainable_variables))
        return {"hard": hard, "soft": soft, "loss": loss}


def setup():
    return Distiller()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.randn(6, 4), tf.float32), tf.constant(rng.randint(0, 3, 6)))


def STEP(d, x, y):
    return d.train_step(x, y)


def JITTED(d):
    return vars(Distiller)["train_step"]
