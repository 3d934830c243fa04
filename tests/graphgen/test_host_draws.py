"""numpy random draws inside graphs (janus/graphgen/host_draws.py): drawn ahead, fed,
rewound. Every test runs plain Python on one RNG and janus on a twin seeded alike, call
by call, and compares results bit for bit and the RNGs' states after every call.
"""
import numpy as np
import pytest
import tensorflow as tf

import janus
from janus import source
from janus.transform import breaks

RS, GEN = np.random.RandomState, np.random.default_rng


def _state(rng):
    if isinstance(rng, Holder):
        return _state(rng.rng)
    if isinstance(rng, np.random.RandomState):
        kind, keys, pos, has_gauss, gauss = rng.get_state()
        return kind, keys.tolist(), pos, has_gauss, gauss
    return repr(rng.bit_generator.state)


def _same(a, b):
    """Results equal: numpy's and Python's values exactly (same types, same bits)."""
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, tf.Tensor):  # (TF's own arithmetic: Grappler may regroup sums)
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
    elif isinstance(a, np.ndarray):
        assert type(b) is np.ndarray and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    else:
        assert type(a) is type(b) and (a == b or a != a and b != b), (a, b)


def _outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except Exception as exc:  # noqa: BLE001 - compared
        return type(exc), str(exc)


def run_twins(fn, make_rngs, calls, **jit_options):
    """Plain `fn(*rngs, *call)` and janus's on twin RNGs; returns janus's stats."""
    plain_rngs, jit_rngs = make_rngs(), make_rngs()
    jitted = janus.jit(fn, **jit_options)
    for i, call in enumerate(calls):
        expected = _outcome(fn, *plain_rngs, *call)
        actual = _outcome(jitted, *jit_rngs, *call)
        assert expected[0] == actual[0], (i, expected, actual)
        if expected[0] == "ok":
            _same(expected[1], actual[1])
        else:
            assert expected[1] == actual[1]
        for p, j in zip(plain_rngs, jit_rngs):
            assert _state(p) == _state(j), f"call {i}: the RNG's state differs"
    return janus.stats(jitted)


# -- the claims the method rests on ---------------------------------------------------

@pytest.mark.parametrize("seed", range(40))
def test_k_draws_at_once_are_k_single_draws_and_the_formulas_are_numpys(seed):
    """`random_sample(K)` / `random(K)` give the numbers K single draws give and leave
    the same state; uniform and choice are numpy's formulas on those uniforms."""
    rs, twin = RS(seed), RS(seed)
    if seed % 2:  # a cached gaussian (RandomState) stays cached either way
        rs.standard_normal(), twin.standard_normal()
    many = rs.random_sample(7)
    assert [twin.random_sample() for _ in range(7)] == many.tolist()
    assert _state(rs) == _state(twin)
    low, high = np.random.RandomState(1000 + seed).uniform(-1e3, 1e3, 2)
    saved = rs.get_state()
    u = rs.random_sample(3)
    rs_after = RS(0)
    rs_after.set_state(saved)
    assert rs_after.uniform(low, high, 3).tolist() == (low + (high - low) * u).tolist()
    g, gtwin = GEN(seed), GEN(seed)
    if seed % 2:  # a buffered 32-bit half (PCG64's has_uint32) is not used by doubles
        g.random(dtype=np.float32), gtwin.random(dtype=np.float32)
    assert [gtwin.random() for _ in range(5)] == g.random(5).tolist()
    assert _state(g) == _state(gtwin)
    p = np.random.RandomState(seed).dirichlet(np.ones(5)).astype(np.float32)
    cdf = p.astype(np.float64).cumsum()
    cdf /= cdf[-1]
    u = RS(seed).random_sample()
    assert RS(seed).choice(5, p=p) == int(cdf.searchsorted(u, side="right"))


def draws_all(rs, g, x, low, p):
    a = rs.uniform(-1.0, 2.0)
    b = g.uniform(low, 0.05, size=4)
    c = rs.random_sample((2, 3))
    k = rs.choice(3, p=p)
    d = rs.rand(2)
    e = g.random()
    f = rs.uniform(low, 3.0, size=2)
    return x * a + tf.reduce_sum(c) + k, k, b, a, d, e, f


def test_every_method_matches_numpy_bit_for_bit_over_many_calls():
    calls = [(tf.constant(float(i), tf.float64), -0.05 - i * 0.01, [0.2, 0.5, 0.3])
             for i in range(30)]
    stats = run_twins(draws_all, lambda: (RS(3), GEN(4)), calls)
    assert stats.graph_calls >= 10, stats


def chooses(rs, x, logits):
    probs = tf.nn.softmax(logits)
    action = rs.choice(4, p=probs[0])
    picked = probs[0, action]
    if action == 1:
        picked = picked * 2.0
    return x + picked, action


@pytest.mark.parametrize("seed", range(3))
def test_choice_from_a_tensor_indexes_and_compares(seed):
    data = np.random.RandomState(seed)
    calls = [(tf.constant(1.0, tf.float64), tf.constant(data.normal(size=(1, 4)), tf.float64))
             for _ in range(24)]
    stats = run_twins(chooses, lambda: (RS(seed),), calls)
    assert stats.graph_calls >= 5, stats


def choice_of_array(rs, p):
    return rs.choice(3, p=p)


def test_p_numpy_refuses_makes_the_call_raise_as_numpy_and_keeps_the_rng():
    good = np.array([0.25, 0.25, 0.5], np.float32)
    calls = [(good,)] * 6 + [(np.array([0.3, 0.3, 0.5], np.float32),),
                             (np.array([0.5, 0.6, -0.1], np.float32),),
                             (np.array([np.nan, 0.5, 0.5], np.float32),), (good,),
                             (np.array([0.3334, 0.3333, 0.3333], np.float32),),
                             (np.array([0.5, 0.5, 1e-42], np.float32),), (good,)]
    stats = run_twins(choice_of_array, lambda: (RS(0),), calls)
    assert stats.graph_calls >= 3, stats


def guarded(rs, x):
    u = rs.random_sample(3)
    if tf.reduce_sum(x) > 0:  # specialized: the graph fails where the sign flips
        return x + tf.reduce_sum(u), rs.uniform(0.0, 1.0)
    return x - tf.reduce_sum(u), rs.uniform(0.0, 1.0)


def test_a_failed_guard_leaves_the_rng_where_plain_python_leaves_it():
    calls = [(tf.constant([float(i)], tf.float64),) for i in range(1, 8)] + \
        [(tf.constant([v], tf.float64),) for v in (-1.0, 2.0, -3.0, 4.0)]
    stats = run_twins(guarded, lambda: (RS(5),), calls)
    assert stats.graph_calls >= 3, stats


def interleaved(a, b, g, x):
    total = x
    for i in range(3):  # a Python loop janus unrolls
        total = total + a.uniform(0.0, 1.0) * b.random_sample() + g.random()
        total = total * b.uniform(-1.0, 1.0)
    return total, a.random_sample(2), g.uniform(size=(2, 2))


def test_two_rngs_interleaved_in_an_unrolled_loop():
    calls = [(tf.constant(float(i), tf.float64),) for i in range(12)]
    stats = run_twins(interleaved, lambda: (RS(1), RS(2), GEN(3)), calls)
    assert stats.graph_calls >= 4, stats


def while_draws(rs, x):
    total = x
    while tf.reduce_sum(total) < 5.0:  # a tf.while_loop: draws there refuse
        total = total + rs.uniform(0.0, 1.0)
    return total


def test_draws_in_a_generalized_loop_run_plainly():
    calls = [(tf.constant(float(i % 3), tf.float64),) for i in range(8)]
    run_twins(while_draws, lambda: (RS(4),), calls)


def unsupported(rs, g, x):
    return x + rs.normal() + g.integers(0, 5) + rs.choice(3)


def test_other_methods_stay_plain():
    calls = [(tf.constant(1.0, tf.float64),)] * 6
    run_twins(unsupported, lambda: (RS(4), GEN(5)), calls)


class Env:
    def __init__(self, seed):
        self.rng = GEN(seed)
        self.state = np.zeros(4)

    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, size=4)
        return self.state.astype(np.float32)


def resets(env, x):
    obs = env.reset()
    return x + tf.reduce_sum(tf.convert_to_tensor(obs))


def test_a_method_drawing_into_the_heap():
    plain, jit_env = Env(7), Env(7)
    jitted = janus.jit(resets)
    for i in range(10):
        x = tf.constant(float(i))
        _same(resets(plain, x), jitted(jit_env, x))
        np.testing.assert_array_equal(plain.state, jit_env.state)
        assert type(jit_env.state) is np.ndarray
        assert _state(plain.rng) == _state(jit_env.rng)
    assert janus.stats(jitted).graph_calls >= 3


def test_supported_draws_are_no_static_break():
    def fn(s, x):
        a = s.rng.uniform(-1.0, 1.0, size=4)
        b = s.rng.choice(2, p=x)
        c = s.rng.choice(2)
        d = s.rng.normal()
        return a, b, c, d

    class S:
        rng = None

    s = S()
    s.rng = RS(0)
    node, _ = source.parse_function(fn)
    found = breaks.static_breaks(node, {}, {"s": s})
    lines = sorted(found)
    assert len(lines) == 2 and all("RandomState" in found[n] for n in lines), found


def policy(rs, x, w):
    probs = tf.nn.softmax(tf.matmul(x, w))
    action = rs.choice(2, p=probs.numpy()[0])
    return tf.math.log(probs[0, action]), action


def test_choice_of_a_tensor_s_numpy_value_stays_in_the_graph():
    """`rng.choice(2, p=probs.numpy()[0])` (actor-critic's sampling): p is float32, so
    numpy allows its sum sqrt(float32 eps) from 1; the array never leaves the graph."""
    node, _ = source.parse_function(policy)
    assert not breaks.static_breaks(node, policy.__globals__, {"rs": RS(0)})
    data = np.random.RandomState(9)
    w = tf.constant(data.normal(size=(3, 2)), tf.float32)
    calls = [(tf.constant(data.normal(size=(1, 3)), tf.float32), w) for _ in range(20)]
    stats = run_twins(policy, lambda: (RS(2),), calls)
    assert stats.graph_calls >= 5, stats


def generator_choice(g, x):
    return g.choice(2, p=tf.nn.softmax(x).numpy()[0])


def test_a_numpy_read_for_an_unsupported_choice_is_still_a_break():
    node, _ = source.parse_function(generator_choice)
    found = breaks.static_breaks(node, generator_choice.__globals__, {"g": GEN(0)})
    assert list(found.values()) == ["calls Generator.choice (host randomness: it stays on "
                                    "the host)"]
    calls = [(tf.constant([[0.5, -0.5]], tf.float64),)] * 6
    run_twins(generator_choice, lambda: (GEN(1),), calls)


def choice_of_many(rs, p):
    return [rs.choice(len(p), p=p) for _ in range(5)]


@pytest.mark.parametrize("n", [2, 7, 50])
def test_long_and_lopsided_p_choose_as_numpy(n):
    """The Kahan sum, the cumulative sum and its normalization as numpy computes them:
    lopsided p (most mass on few items) puts u near the CDF's steps."""
    data = np.random.RandomState(n)
    calls = [(data.dirichlet(np.full(n, 0.05 if i % 2 else 1.0)),) for i in range(24)]
    stats = run_twins(choice_of_many, lambda: (RS(n),), calls)
    assert stats.graph_calls >= 8, stats


class MyRandomState(np.random.RandomState):
    def uniform(self, low=0.0, high=1.0, size=None):
        return super().uniform(low, high, size) * 2.0


class Holder:
    def __init__(self, rng):
        self.rng = rng


def aliased_and_local(h, rng, x):
    a = h.rng.uniform(-1.0, 1.0)  # the same RNG as `rng`: one stream
    b = rng.random_sample()
    c = np.random.RandomState(3).random_sample()  # made in the call: stays plain
    return x + a * b, a, b, c


def test_one_rng_through_two_paths_and_an_rng_made_in_the_call():
    def make():
        rng = RS(11)
        return Holder(rng), rng

    calls = [(tf.constant(float(i), tf.float64),) for i in range(8)]
    run_twins(aliased_and_local, make, calls)


def sub_draw(rng, x):
    return x + rng.uniform(-1.0, 1.0)


def test_a_subclass_s_draws_are_its_own_and_stay_plain():
    calls = [(tf.constant(float(i), tf.float64),) for i in range(6)]
    stats = run_twins(sub_draw, lambda: (MyRandomState(5),), calls)
    assert stats.graph_calls == 0, stats
    stats = run_twins(sub_draw, lambda: (RS(5),), calls)
    assert stats.graph_calls >= 2, stats


def split_around(rs, g, x):
    total = tf.reduce_sum(x * 2.0)
    for _ in range(40):  # (enough work for a segment's graph to pay)
        total = tf.tanh(total) * 1.5 + g.random()
    noise = g.uniform(-0.1, 0.1, size=3)
    host = x.numpy().sum()  # a graph break: the draws live in the segments around it
    y = total + tf.reduce_sum(tf.constant(noise)) + rs.uniform(0.0, host)
    for _ in range(40):
        y = tf.tanh(y) * 1.5 + rs.random_sample()
    return y, noise


def test_draws_in_the_segments_of_a_split_function(any_size):
    calls = [(tf.constant([1.0, float(i), 0.5], tf.float64),) for i in range(1, 20)]
    stats = run_twins(split_around, lambda: (RS(8), GEN(9)), calls)
    assert stats.segment_graph_calls >= 3, stats


def twice(rs, x):
    return x + rs.uniform(0.0, 1.0, low=0.5)


def test_an_argument_given_twice_raises_as_numpy():
    calls = [(tf.constant(1.0, tf.float64),)] * 5
    run_twins(twice, lambda: (RS(1),), calls)


def choice_of_constants(rs, x):
    return x + 1.0, rs.choice(2, p=[1e-310, 1.0]), rs.choice(2, p=[0.25, 0.75])


def test_a_subnormal_constant_probability_is_refused_and_the_rest_match():
    """TF reads a subnormal constant p as zero (numpy does not): such a p stays plain."""
    calls = [(tf.constant(float(i), tf.float64),) for i in range(8)]
    run_twins(choice_of_constants, lambda: (RS(4),), calls)


def test_choice_of_a_float32_numpy_read_at_extreme_probabilities():
    """p from `probs.numpy()[0]` is checked once (the slice is of the checked read), and
    its float32 items need no check of the Kahan sum's exactness: zeros, the smallest
    normal probabilities and ones, as plain Python draws them."""
    w = tf.constant([[1.0, -1.0], [0.0, 0.0], [0.0, 0.0]], tf.float32)
    calls = [(tf.constant([[v, 0.0, 0.0]], tf.float32), w)
             for v in (0.1, 60.0, -60.0, 43.0, -43.6, 0.0, 200.0, -0.3, 44.0, -200.0, 1.0)]
    stats = run_twins(policy, lambda: (RS(6),), calls)
    assert stats.graph_calls >= 4, stats
