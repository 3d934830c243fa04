"""A PPO update on a batch of rollouts: advantages by GAE computed in a Python loop over
`reversed(range(T))` on Python lists of tensors (rewards, values, dones), advantages
normalized, then K epochs of minibatches drawn from a numpy permutation (a seeded
`np.random.default_rng` owned by the state), the clipped surrogate with an entropy bonus
and a value loss clipped around the old values, `approx_kl` per minibatch, and an early
stop of *all* epochs (`break` out of the inner loop and a flag tested by the outer one)
when the KL exceeds `1.5 * target_kl` (a tensor test); the number of minibatch updates
done, clip fractions and KLs go into a Python dict of lists, and the entropy coefficient
decays as a Python float on the state.

janus (session 27, h4): agrees on all 14 calls; runs split at the numpy permutation
(host randomness): the GAE prologue, the minibatch forward and the update run as
segment graphs; steady ~7x faster than plain."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14
OBS, ACTIONS, T = 4, 3, 12
GAMMA, LAM, CLIP = 0.97, 0.9, 0.2


class ActorCritic(keras.Model):
    def __init__(self):
        super().__init__()
        self.body = keras.layers.Dense(16, activation="tanh")
        self.pi = keras.layers.Dense(ACTIONS)
        self.v = keras.layers.Dense(1)

    def call(self, obs):
        h = self.body(obs)
        return self.pi(h), tf.squeeze(self.v(h), -1)


class State:
    def __init__(self):
        self.ac = ActorCritic()
        self.ac(tf.zeros([1, OBS]))
        self.opt = keras.optimizers.Adam(3e-3)
        self.gen = np.random.default_rng(93)
        self.ent_coef = 0.02
        self.log = {"updates": [], "clipfrac": [], "kl": [], "stopped": []}


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(930 + i)
    obs = tf.constant(rng.randn(T, OBS).astype(np.float32))
    actions = tf.constant(rng.randint(0, ACTIONS, T))
    rewards = [tf.constant(float(r)) for r in rng.randn(T) * 0.5]
    dones = [float(d) for d in rng.rand(T) < 0.15]
    old_logp = tf.constant(0.01 * rng.randn(T).astype(np.float32))  # behaviour-policy lag
    epochs = 2 + i % 3
    target_kl = 0.004 if i % 4 == 3 else 0.02
    return obs, actions, rewards, dones, old_logp, epochs, target_kl


def gae(rewards, values, dones, last_value):
    adv = [None] * len(rewards)
    running = tf.constant(0.0)
    for t in reversed(range(len(rewards))):
        next_v = last_value if t == len(rewards) - 1 else values[t + 1]
        delta = rewards[t] + GAMMA * next_v * (1.0 - dones[t]) - values[t]
        running = delta + GAMMA * LAM * (1.0 - dones[t]) * running
        adv[t] = running
    return tf.stack(adv)


@JIT
def ppo_update(s, obs, actions, rewards, dones, old_logp, epochs, target_kl, mb=4):
    logits0, values = s.ac(obs)
    old_logp = tf.gather(tf.nn.log_softmax(logits0), actions, batch_dims=1) + old_logp
    vals = tf.unstack(values)
    adv = gae(rewards, vals, dones, tf.constant(0.0))
    returns = adv + values
    adv = (adv - tf.reduce_mean(adv)) / (tf.math.reduce_std(adv) + 1e-8)
    n_updates, stop = 0, False
    for epoch in range(epochs):
        order = s.gen.permutation(T)
        for start in range(0, T, mb):
            idx = order[start:start + mb]
            with tf.GradientTape() as tape:
                logits, v = s.ac(tf.gather(obs, idx))
                logp_all = tf.nn.log_softmax(logits)
                logp = tf.gather(logp_all, tf.gather(actions, idx), batch_dims=1)
                ratio = tf.exp(logp - tf.gather(old_logp, idx))
                a = tf.gather(adv, idx)
                surr = tf.minimum(ratio * a, tf.clip_by_value(ratio, 1 - CLIP, 1 + CLIP) * a)
                v_old = tf.gather(values, idx)
                v_clip = v_old + tf.clip_by_value(v - v_old, -CLIP, CLIP)
                ret = tf.gather(returns, idx)
                v_loss = tf.reduce_mean(tf.maximum((v - ret) ** 2, (v_clip - ret) ** 2))
                entropy = -tf.reduce_mean(tf.reduce_sum(tf.exp(logp_all) * logp_all, -1))
                loss = -tf.reduce_mean(surr) + 0.5 * v_loss - s.ent_coef * entropy
            kl = tf.reduce_mean(tf.gather(old_logp, idx) - logp)
            s.log["kl"].append(kl)
            s.log["clipfrac"].append(
                tf.reduce_mean(tf.cast(tf.abs(ratio - 1.0) > CLIP, tf.float32)))
            if kl > 1.5 * target_kl:
                stop = True
                break
            grads = tape.gradient(loss, s.ac.trainable_variables)
            grads, _ = tf.clip_by_global_norm(grads, 0.5)
            s.opt.apply_gradients(zip(grads, s.ac.trainable_variables))
            n_updates += 1
        if stop:
            break
    s.ent_coef *= 0.95
    s.log["updates"].append(n_updates)
    s.log["stopped"].append(stop)
    return loss, n_updates
STEP = ppo_update
