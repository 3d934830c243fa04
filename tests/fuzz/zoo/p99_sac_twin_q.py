"""Soft actor-critic updates on a toy continuous-control batch: a Gaussian policy
(keras MLP giving mean and log-std clipped with `tf.clip_by_value`), tanh squashing
with the log-probability correction `log(1 - tanh(u)^2 + 1e-6)`, the reparameterized
sample's noise from a `tf.random.Generator`, twin Q networks (a Python list of two
Sequentials) and their Polyak-averaged targets (`zip` over the weights, tau a Python
float), the entropy temperature learned through a `log_alpha` tf.Variable with its own
optimizer, the target entropy `-float(ACT)`, `min()` over the two Q heads written with
`tf.minimum`, the actor updated only every `policy_delay` calls (a Python counter), and
a dict of Python float diagnostics appended each call.

janus (session 28, h2): agrees on all 14 calls; split at `float(q_loss)` (line 93) and
`float(pi_loss)`; the diagnostics/Polyak lines give up after 4 generations; slower than
plain over 14 calls (14.7 s vs 4.6 s), faster than plain from about call 14 on."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14
OBS, ACT = 4, 2
GAMMA, TAU = 0.95, 0.1


def mlp(out):
    net = keras.Sequential([keras.layers.Dense(16, activation="relu"),
                            keras.layers.Dense(16, activation="relu"),
                            keras.layers.Dense(out)])
    return net


class State:
    def __init__(self):
        self.actor = mlp(2 * ACT)
        self.actor.build((None, OBS))
        self.qs = [mlp(1) for _ in range(2)]
        self.targets = [mlp(1) for _ in range(2)]
        for q, t in zip(self.qs, self.targets):
            q.build((None, OBS + ACT))
            t.build((None, OBS + ACT))
            t.set_weights(q.get_weights())
        self.log_alpha = tf.Variable(0.0)
        self.q_opt = keras.optimizers.Adam(3e-3)
        self.pi_opt = keras.optimizers.Adam(1e-3)
        self.a_opt = keras.optimizers.Adam(1e-2)
        self.gen = tf.random.Generator.from_seed(99)
        self.updates = 0
        self.policy_delay = 2
        self.diag = {"q": [], "pi": [], "alpha": []}


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(990 + i)
    n = 16
    return (tf.constant(rng.randn(n, OBS), tf.float32),
            tf.constant(np.tanh(rng.randn(n, ACT)), tf.float32),
            tf.constant(rng.randn(n), tf.float32),
            tf.constant(rng.randn(n, OBS), tf.float32),
            tf.constant((rng.rand(n) < 0.1).astype(np.float32)))


def sample_action(s, obs):
    out = s.actor(obs)
    mean, log_std = out[:, :ACT], tf.clip_by_value(out[:, ACT:], -5.0, 2.0)
    std = tf.exp(log_std)
    u = mean + std * s.gen.normal(tf.shape(mean))
    a = tf.tanh(u)
    logp = tf.reduce_sum(-0.5 * tf.square((u - mean) / std) - log_std
                         - 0.5 * np.log(2 * np.pi), 1)
    logp -= tf.reduce_sum(tf.math.log(1.0 - tf.square(a) + 1e-6), 1)
    return a, logp


def q_values(nets, obs, act):
    x = tf.concat([obs, act], 1)
    return [tf.squeeze(n(x), 1) for n in nets]


@JIT
def sac_update(s, obs, act, rew, next_obs, done):
    s.updates += 1
    alpha = tf.exp(s.log_alpha)
    next_a, next_logp = sample_action(s, next_obs)
    tq1, tq2 = q_values(s.targets, next_obs, next_a)
    target = rew + GAMMA * (1.0 - done) * (tf.minimum(tq1, tq2) - alpha * next_logp)
    target = tf.stop_gradient(target)
    q_vars = [v for q in s.qs for v in q.trainable_variables]
    with tf.GradientTape() as tape:
        q1, q2 = q_values(s.qs, obs, act)
        q_loss = 0.5 * (tf.reduce_mean(tf.square(q1 - target)) +
                        tf.reduce_mean(tf.square(q2 - target)))
    s.q_opt.apply_gradients(zip(tape.gradient(q_loss, q_vars), q_vars))
    s.diag["q"].append(float(q_loss))
    if s.updates % s.policy_delay == 0:
        with tf.GradientTape(persistent=True) as tape:
            a, logp = sample_action(s, obs)
            p1, p2 = q_values(s.qs, obs, a)
            pi_loss = tf.reduce_mean(alpha * logp - tf.minimum(p1, p2))
            a_loss = -tf.reduce_mean(s.log_alpha * tf.stop_gradient(logp - float(ACT)))
        pv = s.actor.trainable_variables
        s.pi_opt.apply_gradients(zip(tape.gradient(pi_loss, pv), pv))
        s.a_opt.apply_gradients([(tape.gradient(a_loss, s.log_alpha), s.log_alpha)])
        del tape
        s.diag["pi"].append(float(pi_loss))
    for q, t in zip(s.qs, s.targets):
        for tw, qw in zip(t.weights, q.weights):
            tw.assign((1.0 - TAU) * tw + TAU * qw)
    s.diag["alpha"].append(round(float(tf.exp(s.log_alpha)), 6))
    return q_loss


STEP = sac_update
