"""numpy's float reductions and Python's sum() inside janus graphs, bit for bit
(graphgen/float_sums.py, reductions.py).

The algorithms are checked directly against numpy/Python over every length 0..600 (and
longer ones) in a graph whose length is unknown when it is built; the janus tests run
each function plainly and under `janus.jit` on the same inputs, call by call, and compare
results by their bits and types, and check that graphs ran."""
import struct
import sys
import warnings

import numpy as np
import pytest
import tensorflow as tf

import janus
from janus.errors import ConversionError
from janus.graphgen import float_sums, reductions
from janus.graphgen.values import SymbolicScalar

EPS = float(np.finfo(np.float32).eps)
LENGTHS = list(range(0, 601)) + [777, 1024, 1031, 2049, 4097, 5000]


def _bits(value):
    """A comparable description of `value`: its type and exact bits (tuples item by item)."""
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, [_bits(v) for v in value])
    if type(value) is float:
        return ("float", struct.pack("<d", value))
    if tf.is_tensor(value):
        value = value.numpy()
        return ("tensor", value.dtype.name, value.shape, value.tobytes())
    if isinstance(value, (np.ndarray, np.generic)):
        return (type(value).__name__, value.dtype.name, np.shape(value), value.tobytes())
    return (type(value).__name__, value)


def _compare(fn, calls, **jit_options):
    """Run `fn` plainly and jitted on each call's arguments; the same bits every call."""
    jitted = janus.jit(fn, **jit_options)
    for args in calls:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = fn(*args)
            got = jitted(*args)
        assert _bits(got) == _bits(want), (args, got, want)
    return janus.stats(jitted)


def _random(n: int, dtype, rng, kind: int):
    scale = 10 ** rng.uniform(-3, 3, n) if kind == 0 else 1.0
    values = rng.standard_normal(n) * scale + (rng.uniform(-5, 5) if kind == 1 else 0.0)
    if kind == 2:
        values = np.round(values * 4)  # exact zeros, cancellations, ties
    return values.astype(dtype)


# -- the algorithms, directly ------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pairwise_sum_is_numpy_s_for_every_length(dtype):
    summed = tf.function(float_sums.numpy_sum, autograph=False,
                         input_signature=[tf.TensorSpec([None], dtype)])
    rng = np.random.default_rng(7)
    for n in LENGTHS:
        a = _random(n, dtype, rng, n % 3)
        total, ok = summed(tf.constant(a))
        assert ok and total.numpy().tobytes() == np.add.reduce(a).tobytes(), n
        assert np.sum(a).tobytes() == a.sum().tobytes() == np.add.reduce(a).tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mean_var_std_are_numpy_s(dtype):
    @tf.function(autograph=False, input_signature=[tf.TensorSpec([None], dtype)])
    def moments(x):
        return [float_sums.numpy_mean(x), float_sums.numpy_var(x),
                float_sums.numpy_var(x, root=True), float_sums.numpy_var(x, 1, root=True)]

    rng = np.random.default_rng(8)
    for n in list(range(0, 140)) + [255, 256, 257, 600, 1031, 5000]:
        a = _random(n, dtype, rng, n % 3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = [a.mean(), a.var(), a.std(), a.std(ddof=1)]
        for k, (value, ok) in enumerate(moments(tf.constant(a))):
            if n == 0 or k == 3 and n == 1:  # numpy warns (nan): refused
                assert not ok
                continue
            assert ok and type(want[k]) is dtype, (n, k)
            assert value.numpy().tobytes() == want[k].tobytes(), (n, k, value, want[k])


def _special(n: int, dtype, rng):
    """Items with signed zeros, infs and nans among ordinary ones (kind by n)."""
    a = _random(n, dtype, rng, n % 3)
    if n and n % 4 == 1:
        a[rng.integers(0, n, max(1, n // 3))] = -0.0
    if n and n % 4 == 2:
        a[:] = -0.0 if n % 8 == 2 else 0.0
    if n and n % 5 == 3:
        a[rng.integers(0, n)] = rng.choice([np.inf, -np.inf, np.nan])
    if n > 1 and n % 7 == 4:
        a[rng.integers(0, n, 2)] = [np.inf, -np.inf]
    return a


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("static", [False, True])
def test_unchecked_sum_is_numpy_s_bit_for_bit(dtype, static):
    """The unchecked sum (items checked by range elsewhere) of every length 0..300, with
    signed zeros, infs and nans: numpy's bits wherever the sum is finite, refused (ok
    False) where it is not; a length known when the graph is built too."""
    def unchecked(x):
        return float_sums._numpy_sum(x, checked=False)

    dynamic = tf.function(unchecked, autograph=False,
                          input_signature=[tf.TensorSpec([None], dtype)])
    rng = np.random.default_rng(12)
    for n in range(0, 301) if not static else list(range(0, 20)) + [63, 64, 127, 128, 129]:
        a = _special(n, dtype, rng)
        summed = tf.function(unchecked, autograph=False) if static else dynamic
        total, ok = summed(tf.constant(a))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = np.add.reduce(a)
        assert bool(ok) == bool(np.isfinite(want)), (n, a)
        if ok:
            assert total.numpy().tobytes() == want.tobytes(), (n, total, want)
        else:
            assert not np.isfinite(total.numpy()) or np.isnan(want)


def test_subnormal_overflowing_and_infinite_sums_are_refused():
    summed = tf.function(float_sums.numpy_sum, autograph=False,
                         input_signature=[tf.TensorSpec([None], tf.float32)])
    tiny = float(np.finfo(np.float32).tiny)
    for values in ([1.5 * tiny, -tiny], [1.5 * tiny, -tiny] + [0.0] * 30, [3e38, 3e38],
                   [1.0, float("inf")], [float("nan")]):
        assert not summed(tf.constant(values, tf.float32))[1], values
    for values in ([-0.0] * 3, [-0.0] * 30, [], [1.0, -1.0], [tiny, -tiny]):
        total, ok = summed(tf.constant(values, tf.float32))
        assert ok and total.numpy().tobytes() == np.sum(np.array(values, np.float32)).tobytes()


def test_python_float_sum_adds_in_order():
    summed = tf.function(float_sums.python_float_sum, autograph=False,
                         input_signature=[tf.TensorSpec([None], tf.float64),
                                          tf.TensorSpec([], tf.float64)])
    rng = np.random.default_rng(9)
    for n in list(range(0, 70)) + [128, 129, 500]:
        values = [float(v) for v in _random(n, np.float64, rng, n % 3)]
        for start in (0.0, -0.0, 2.5):
            # (a tensor of its own: TF's cache of converted Python numbers has 0.0 == -0.0)
            total, ok = summed(tf.constant(values, tf.float64), tf.constant([start], tf.float64)[0])
            assert ok and struct.pack("<d", total.numpy()) == struct.pack(
                "<d", sum(values, start)), (n, start)
    tiny = sys.float_info.min
    assert not summed(tf.constant([1.5 * tiny, -tiny], tf.float64), 0.0)[1]


def test_python_int_sum_is_exact_or_refused():
    summed = tf.function(float_sums.python_int_sum, autograph=False,
                         input_signature=[tf.TensorSpec([None], tf.int64)])
    big = 2 ** 62
    for values in ([], [1, 2, 3], [big, big - 1, -big], [2 ** 63 - 1, 1, -5],
                   [-2 ** 63, -1, 2], list(range(-1000, 3000, 7))):
        total, ok = summed(tf.constant(values, tf.int64))
        exact = sum(values)
        assert bool(ok) == (-2 ** 63 <= exact < 2 ** 63), values
        if ok:
            assert int(total) == exact


def test_sum_of_fed_floats_is_refused_where_python_compensates(monkeypatch):
    x = SymbolicScalar(tf.constant(0.5, tf.float64), float)
    assert not reductions.handles(sum, ([x, 1.0],), {}) or sys.version_info >= (3, 12)
    monkeypatch.setattr(reductions, "_COMPENSATED", True)
    assert reductions.handles(sum, ([x, 1.0],), {})
    with pytest.raises(ConversionError):
        reductions.dispatch(sum, ([x, 1.0],), {})


# -- in janus graphs ---------------------------------------------------------------------

def normalized(a):
    """A fed array's reductions, as an RL update normalizes its returns."""
    return ((a - a.mean()) / (a.std() + EPS), a.sum(), np.mean(a), np.var(a),
            np.std(a, ddof=1), a.var(ddof=0), np.sum(a) * 2.0)


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reductions_of_a_fed_array_whose_length_varies(dtype):
    rng = np.random.default_rng(10)
    lengths = [5, 9, 130, 7, 300, 64, 2, 1000, 17, 129, 8, 3, 256, 41]
    calls = [(_random(n, dtype, rng, k % 3),) for k, n in enumerate(lengths)]
    stats = _compare(normalized, calls)
    assert stats.graph_calls >= len(calls) - 4, stats


def test_numpy_warnings_and_subnormals_rerun_plainly():
    """An empty array's mean (numpy warns, nan), a var of one item with ddof=1, a sum
    that is subnormal: the graph fails, the call reruns plainly (the same results)."""
    tiny = float(np.finfo(np.float32).tiny)

    def moments(a):
        return a.mean(), a.sum(), np.std(a, ddof=1)

    calls = [(np.arange(n, dtype=np.float32),) for n in (3, 5, 8, 2, 9)] + [
        (np.zeros(0, np.float32),), (np.ones(1, np.float32),),
        (np.array([1.5 * tiny, -tiny, 0.0], np.float32),), (np.arange(4, dtype=np.float32),)]
    stats = _compare(moments, calls)
    assert stats.graph_calls >= 3, stats


def episode(x, limit, values):
    """A loop that stops on a tensor's value appends Python floats (a list whose length
    only the graph knows); then numpy and Python sum them (models/actor_critic.py)."""
    rewards = []
    for t in range(40):
        r = float(tf.reduce_sum(x[t]))
        rewards.append(r)
        if r > limit:
            break
    returns = np.array(rewards, dtype=np.float32)
    returns = (returns - returns.mean()) / (returns.std() + EPS)
    advantage = returns - values[:tf.size(returns)]  # numpy defers to the tensor
    return returns, advantage, sum(rewards), sum(rewards, 0.5), np.array(rewards).mean()


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_returns_of_an_episode_whose_length_varies():
    rng = np.random.default_rng(11)
    calls = [(tf.constant(rng.standard_normal((40, 3))), float(rng.uniform(0.5, 4.0)),
              tf.constant(rng.standard_normal(40), tf.float32)) for _ in range(14)]
    stats = _compare(episode, calls)
    assert stats.graph_calls >= 8, stats


def counts(x, limit):
    """Python ints and bools a loop appended: their sum is an int, exact."""
    steps, flags = [], []
    for t in range(30):
        v = int(tf.reduce_sum(x[t]))
        steps.append(v)
        flags.append(v > 0)
        if v > limit:
            break
    return sum(steps), sum(flags), sum(steps, 10)


def test_int_sums_of_a_list_whose_length_varies():
    rng = np.random.default_rng(12)
    calls = [(tf.constant(rng.integers(-3, 5, (30, 2)), tf.int64), int(rng.integers(2, 8)))
             for _ in range(10)]
    big = tf.constant(np.full((30, 2), 2 ** 61), tf.int64)  # overflows int64: rerun
    stats = _compare(counts, calls[:6] + [(big, 2 ** 63 - 1)] + calls[6:])
    assert stats.graph_calls >= 5, stats


def static_sum(x, y, k):
    """A static list of fed numbers: CPython 3.11's sum, stand-in by stand-in."""
    return sum([x, y, 0.25]), sum([k, x]), sum([k, k, 3]), sum((y, x), 1.5)


def test_sum_of_a_static_list_of_fed_numbers():
    rng = np.random.default_rng(13)
    calls = [(float(rng.standard_normal()), float(rng.standard_normal() * 1e10),
              int(rng.integers(-100, 100))) for _ in range(8)] + [(-0.0, -0.0, 0)]
    stats = _compare(static_sum, calls)
    assert stats.graph_calls >= 4, stats


def shapes(a, b):
    """`a.shape` of a fed array whose length varies: its rank and known dimensions read,
    TF's reductions probe it (`.shape.rank`: a numpy shape has none); comparing an
    unknown dimension refuses (the shape is then specialized)."""
    out = [len(a.shape), a.shape[1], tf.reduce_sum(a), tf.reduce_mean(b),
           isinstance(a.shape, tuple), tf.reduce_sum(b.sum(axis=None) - b)]
    if a.shape[:1] == (3,):
        out.append(a.shape == (3, 2))
    return out


def test_shape_of_an_array_whose_length_varies():
    calls = [(np.full((n, 2), 0.5 * n, np.float32), np.arange(n, dtype=np.float32))
             for n in (3, 4, 5, 6, 3, 7, 8, 3, 9)]
    stats = _compare(shapes, calls)
    assert stats.graph_calls >= 4, stats


def test_discounted_returns_of_the_actor_critic_model():
    """models/actor_critic.py's returns: a static list of fed floats per length (one
    graph each), np.array(..., dtype=np.float32), (r - r.mean()) / (r.std() + EPS)."""
    from models.actor_critic import GAMMA, discounted_returns

    rng = np.random.default_rng(14)
    lengths = [5, 5, 5, 9, 9, 9, 5, 30, 30, 31, 31, 12, 12]
    calls = [([float(v) for v in rng.standard_normal(n)], GAMMA) for n in lengths]
    stats = _compare(discounted_returns, calls)
    assert stats.graph_calls >= 6, stats


def two_shapes(a, b):
    """Two arrays whose lengths vary: their shapes must not compare equal by the unknown
    dimension they share in the trace."""
    return a.shape == b.shape, a.shape[1:], tf.reduce_sum(a) + tf.reduce_sum(b)


def test_shapes_of_two_arrays_whose_lengths_vary():
    calls = [(np.ones((n, 2), np.float32), np.ones((m, 2), np.float32))
             for n, m in [(3, 3), (4, 5), (5, 5), (6, 2), (3, 3), (7, 1), (2, 2), (4, 4)]]
    _compare(two_shapes, calls)


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_an_array_of_one_block_is_summed_without_a_loop():
    """A fed array whose length varies is summed in a `tf.cond`: up to numpy's 128-item
    block without any while loop, with its items checked by range only; longer ones by
    the recursion's loops (both sides compared with numpy above)."""
    rng = np.random.default_rng(12)
    lengths = [5, 9, 7, 64, 2, 17, 128, 3, 41]
    calls = [(_random(n, np.float32, rng, 1),) for n in lengths]
    jitted = janus.jit(normalized)
    for (a,) in calls:
        assert _bits(jitted(a)) == _bits(normalized(a))
    spec = jitted.specializations[0]
    top = [node.op for node in spec.concrete.graph.as_graph_def().node]
    assert "If" in top or "StatelessIf" in top, sorted(set(top))
    assert not {"While", "StatelessWhile"} & set(top), sorted(set(top))


def sums_from(x, limit, start):
    """Python floats a loop grew (its length known only when the graph runs), summed
    from a start (graphgen/float_sums.python_float_sum)."""
    rewards = []
    for t in range(8):
        r = float(x[t])
        rewards.append(r)
        if r > limit:
            break
    return sum(rewards, start), sum(rewards)


def test_python_sum_from_a_signed_zero_or_a_subnormal_start():
    """-0.0 only where every addend is; a start out of the range check (-1e-300: F134,
    it was rounded to float32), a subnormal start (refused: TF reads it as zero)."""
    rows = [[-0.0] * 8, [1.5, -1.5, 3.0, 9.0, 0, 0, 0, 0], [-0.0, -0.0, 5.0, 0, 0, 0, 0, 0],
            [2.0 ** -499, 2.0, 7.0, 0, 0, 0, 0, 0], [0.5, 0.25, 0.125, 4.0, 0, 0, 0, 0]]
    stats = None
    for start in (-0.0, 0.5, 12345.5, -1e-300, 1e-310):  # (a start per function:
        calls = [(tf.constant(row, tf.float64), 3.0, start)  # one that varies is refused)
                 for row in [rows[0]] * 3 + rows]
        stats = _compare(sums_from, calls)
        assert stats.graph_calls >= 3 or start == 1e-310, (start, stats)
