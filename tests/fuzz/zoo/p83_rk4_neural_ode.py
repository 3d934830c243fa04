"""A neural ODE fitted to a damped oscillator: a fixed-step RK4 integrator `rk4(f, y, t0,
dt, n)` taking the vector field as a function argument (a bound method of the model, a
`lambda` closing over a Python `damping` float, or `functools.partial` of a module-level
function, chosen by a Python string `mode` that changes between calls), the state
trajectory collected in a Python list and `tf.stack`ed, early stop of the integration on
a tensor tolerance (`if tf.reduce_max(tf.abs(k1)) < tol: break`), the step count kept
in a `nonlocal` counter of a closure made in setup; a GradientTape around the whole
integration, gradients clipped by global norm, SGD applied by hand; `dt` a Python float
that changes and `n_steps` a Python int; on some calls the initial state is at rest
and the integration stops after `k1` (the
trajectory is just `y0`: every gradient None, and `s.lr * g` raises TypeError).

janus (session 26, when written): diverged at call 4: plain raised TypeError (a None
gradient), janus's graph (one while_loop with the break) gave zero gradients: fixed
(F181, the loop's speculative first iteration checked in-graph). 12 of 18 calls run as
graphs, steady ~8x faster than eager."""
import functools

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 18


class ODEFunc(tf.Module):
    def __init__(self):
        super().__init__()
        rng = np.random.RandomState(83)
        self.w1 = tf.Variable(rng.randn(2, 16).astype(np.float32) * 0.3)
        self.w2 = tf.Variable(rng.randn(16, 2).astype(np.float32) * 0.3)

    def field(self, t, y):
        return tf.tanh(y @ self.w1) @ self.w2 + 0.0 * t


def linear_field(t, y, a):
    return tf.stack([y[:, 1], -y[:, 0] - a * y[:, 1]], axis=1)


def rk4(f, y, t0, dt, n, tol=None):
    ys = [y]
    t = t0
    for _ in range(n):
        k1 = f(t, y)
        if tol is not None and tf.reduce_max(tf.abs(k1)) < tol:
            break
        k2 = f(t + dt / 2, y + dt / 2 * k1)
        k3 = f(t + dt / 2, y + dt / 2 * k2)
        k4 = f(t + dt, y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += dt
        ys.append(y)
    return tf.stack(ys, axis=0)


def make_counter():
    count = 0

    def bump(k):
        nonlocal count
        count += k
        return count
    return bump


class State:
    def __init__(self):
        self.func = ODEFunc()
        self.bump = make_counter()
        self.lr = 0.05
        self.losses = []
        self.lengths = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(830 + i)
    y0 = rng.randn(3, 2).astype(np.float32)
    if i in (4, 9, 12, 16):  # (at rest: the integration stops at once)
        y0 *= 1e-6
    dt = 0.1 if i < 8 else 0.05
    n = 6 + i % 3
    ts = dt * np.arange(n + 1)
    c, s = np.cos(ts)[:, None, None], np.sin(ts)[:, None, None]
    target = (c * y0[None] + s * y0[None, :, ::-1] * np.array([1, -1])) * np.exp(-0.1 * ts)[:, None, None]
    mode = ["net", "net", "lambda", "partial"][i % 4]
    return tf.constant(y0), tf.constant(target.astype(np.float32)), dt, n, mode


@JIT
def train_step(s, y0, target, dt, n_steps, mode="net"):
    damping = 0.2
    if mode == "lambda":
        prior = lambda t, y: linear_field(t, y, damping)  # noqa: E731
    elif mode == "partial":
        prior = functools.partial(linear_field, a=damping)
    else:
        prior = None
    variables = list(s.func.trainable_variables)
    with tf.GradientTape() as tape:
        if prior is None:
            f = s.func.field
        else:
            f = lambda t, y: s.func.field(t, y) + 0.5 * prior(t, y)  # noqa: E731
        traj = rk4(f, y0, 0.0, dt, n_steps, tol=1e-4 if mode == "net" else None)
        k = traj.shape[0]
        loss = tf.reduce_mean(tf.square(traj - target[:k]))
    grads = tape.gradient(loss, variables)
    grads, norm = tf.clip_by_global_norm(grads, 1.0)
    for g, v in zip(grads, variables):
        v.assign_sub(s.lr * g)
    s.lengths.append(k)
    s.losses.append(loss)
    return loss, norm, s.bump(k - 1)


STEP = train_step
