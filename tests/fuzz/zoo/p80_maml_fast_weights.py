"""MAML-style meta-learning on sine-like regression tasks: a small MLP written as a pure
function of a Python list of weights (`forward(params, x)`), an inner loop in Python
(`for _ in range(inner_steps)`) adapting *fast weights* rebuilt as a new list each step
(`[w - alpha * g for w, g in zip(fast, grads)]`) under an outer GradientTape that
watches the meta-parameters (second-order: the inner tape's gradients stay on the outer
tape), tasks passed as a Python list of (support, query) tuples whose length changes,
`inner_steps` a Python int that changes, `first_order` a bool that switches on
`tf.stop_gradient`, the meta-update with a keras optimizer, per-task losses kept in a
dict of lists keyed by the task index, and `alpha` sometimes None (defaulting to the
state's value).

janus (this session): agrees on all 16 calls; 9 run as graphs (nested tapes, second-order
gradients through the fast-weight list traced fine); a graph per (number of tasks, inner
steps) pair, 8 generations (~1 s of tracing each), 5 calls eager once
max_specializations is reached ('limit reached'); steady state about even with eager.
(With `float(loss_q)` in the per-task log the whole function runs eagerly instead.)"""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16
HID = 16


def init_params(rng):
    shapes = [(1, HID), (HID,), (HID, HID), (HID,), (HID, 1), (1,)]
    return [tf.Variable(rng.randn(*sh).astype(np.float32) * (0.5 if len(sh) == 2 else 0.0),
                        name=f"p{k}") for k, sh in enumerate(shapes)]


def forward(params, x):
    h = x
    for k in range(0, len(params) - 2, 2):
        h = tf.nn.relu(h @ params[k] + params[k + 1])
    return h @ params[-2] + params[-1]


def mse(params, x, y):
    return tf.reduce_mean(tf.square(forward(params, x) - y))


class State:
    def __init__(self):
        self.params = init_params(np.random.RandomState(80))
        self.opt = keras.optimizers.Adam(0.003)
        self.alpha = 0.05
        self.task_losses = {}
        self.meta_step = 0
        self.history = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(800 + i)
    n_tasks = 2 + i % 3
    tasks = []
    for _ in range(n_tasks):
        amp, phase = rng.uniform(0.5, 2.0), rng.uniform(0, np.pi)
        xs = rng.uniform(-3, 3, (10, 1)).astype(np.float32)
        ys = (amp * np.sin(xs + phase)).astype(np.float32)
        tasks.append(((tf.constant(xs[:5]), tf.constant(ys[:5])),
                      (tf.constant(xs[5:]), tf.constant(ys[5:]))))
    inner = 1 if i < 4 else (2 if i % 2 else 3)
    alpha = None if i % 4 == 0 else 0.02 + 0.01 * (i % 3)
    return tasks, inner, alpha, i >= 12


@JIT
def meta_step(s, tasks, inner_steps, alpha=None, first_order=False):
    alpha = s.alpha if alpha is None else alpha
    with tf.GradientTape() as outer:
        meta_loss = 0.0
        for t, ((xs, ys), (xq, yq)) in enumerate(tasks):
            fast = list(s.params)
            for _ in range(inner_steps):
                with tf.GradientTape() as inner:
                    inner.watch(fast)
                    loss_s = mse(fast, xs, ys)
                grads = inner.gradient(loss_s, fast)
                if first_order:
                    grads = [tf.stop_gradient(g) for g in grads]
                fast = [w - alpha * g for w, g in zip(fast, grads)]
            loss_q = mse(fast, xq, yq)
            s.task_losses.setdefault(t, []).append(loss_q)
            meta_loss += loss_q
        meta_loss /= len(tasks)
    meta_grads = outer.gradient(meta_loss, s.params)
    s.opt.apply_gradients(zip(meta_grads, s.params))
    s.meta_step += 1
    s.history.append((s.meta_step, len(tasks), inner_steps))
    return meta_loss, tf.linalg.global_norm(meta_grads)


STEP = meta_step
