"""`.numpy()` of a scalar tensor inside a graph (janus/graphgen/host_scalars.py): the
numpy scalar stays a tensor while the code only compares it, converts it with
int()/float()/bool() or hands it to TensorFlow; anything else splits the function
there. Every test compares janus with plain Python."""
import numpy as np
import tensorflow as tf

import janus
from janus.transform import breaks
from janus import source
from tests.differential import assert_same

END = 2
W = tf.constant(np.random.default_rng(0).normal(size=(5, 5)).astype(np.float32))


def greedy(x, n):
    tokens = []
    h = x
    inp = tf.constant([[1]])
    for t in range(n):
        h = tf.tanh(h @ W + tf.cast(inp, tf.float32))
        token = tf.argmax(h[0]).numpy()
        if token == END:
            break
        tokens.append(int(token))
        inp = tf.expand_dims([token], 0)
    return tokens


def inputs(count=16, seed=1):
    rng = np.random.default_rng(seed)
    return [(tf.constant(rng.normal(size=(1, 5)).astype(np.float32)), 8) for _ in range(count)]


def test_a_greedy_decode_loop_is_one_graph_and_returns_python_ints():
    stats = assert_same(greedy, inputs())
    assert stats.graph_calls + stats.plain_calls >= 8
    fn = janus.jit(greedy)
    for args in inputs(6, seed=2):
        out = fn(*args)
        assert all(type(v) is int for v in out)
    assert fn.stats.graph_calls + fn.stats.plain_calls >= 2


def test_the_read_is_no_static_break():
    node, _ = source.parse_function(greedy)
    assert not breaks.static_breaks(node, greedy.__globals__)


def returns_the_read(x):
    m = tf.reduce_max(x).numpy()
    if m > 1.5:
        x = x * 2.0
    return x, m


def test_a_returned_read_is_the_numpy_scalar():
    xs = [(tf.constant([v, 1.0]),) for v in (0.5, 2.0, 3.0, 1.0, 0.2, 4.0)]
    assert_same(returns_the_read, xs)
    fn = janus.jit(returns_the_read)
    for (x,) in xs:
        _, m = fn(x)
        assert type(m) is np.float32


def formats_it(x):
    k = tf.argmax(x).numpy()
    print(f"best {k} of {x.shape[0]}", k)
    return float(k) * 2.0


def test_printed_and_converted():
    assert_same(formats_it, [(tf.constant([v, 1.0, 0.0]),) for v in (0.5, 2.0, -1.0, 3.0)])


def arithmetic(x):
    k = tf.argmax(x).numpy()
    y = k + 1  # numpy arithmetic: a graph break
    return x * float(y)


def numpy_use(x):
    k = tf.argmax(x).numpy()
    if k == 1:
        x = x + 1.0
    return x, np.int64(k) * 3


def test_numpy_work_on_the_read_runs_as_python():
    xs = [(tf.constant([v, 1.0, 0.0]),) for v in (0.5, 2.0, -1.0, 3.0, 0.0, 1.5)]
    assert_same(arithmetic, xs)
    assert_same(numpy_use, xs)


def compares_floats(x):
    v = tf.reduce_sum(x).numpy()
    if v < 0.1:  # 0.1 is not a float32: numpy's comparison, not janus's
        return x * 2.0
    return x


def test_a_comparison_janus_cannot_match_exactly_is_left_to_python():
    assert_same(compares_floats, [(tf.constant([v]),) for v in (0.1, 0.05, 0.2, 0.1, -1.0)])


def isinstance_of_read(x):
    k = tf.argmax(x).numpy()
    if isinstance(k, np.integer):
        return x + 1.0
    return x


def test_isinstance_sees_the_numpy_type():
    assert_same(isinstance_of_read, [(tf.constant([v, 1.0]),) for v in (0.5, 2.0, 3.0, 0.0)])


def test_in_graph_reads_accepts_only_the_uses_a_graph_keeps():
    def kept(x):
        a = x.numpy()
        b = x.numpy()
        c = x.numpy()
        d = x.numpy()
        if a == 3 or int(b) > 2:
            pass
        return tf.stack([c, 1]), bool(d)

    def not_kept(x, xs):
        a = x.numpy()
        b = x.numpy()
        c = x.numpy()
        xs.insert(0, a)
        xs.append(xs[int(x)])  # (a read where it stands, used as an index)
        return b << 1, c.item()  # (a shift: not arithmetic a graph keeps; `//` is: F461)

    def kept_in_tests(x, xs):
        if int(x[0]) == 3 or x.numpy() > 2.0:
            xs.append(float(x))  # (not in a test, only stored: kept too, F456)
        while not bool(x):
            x = x + 1
        return x

    # (`int(b)` in `kept`: a conversion in a test, besides b's read; `bool(d)`, only
    # returned, is kept where it stands: F456)
    for fn, expected in ((kept, 6), (not_kept, 0), (kept_in_tests, 4)):
        node, _ = source.parse_function(fn)
        assert len(breaks.in_graph_reads(node, fn.__globals__)) == expected


class Tally:
    def __init__(self):
        self.matches = 0
        self.last = []


def decode_and_score(tally, x, answer):
    tokens = greedy(x, 8)
    tally.last = tokens
    if tokens == answer:  # compared in the graph (values.DynamicList.__eq__)
        tally.matches += 1
    return tf.reduce_sum(x)


def test_the_decoded_list_compared_with_a_python_list_stays_in_the_graph():
    calls = [(x, answer) for (x, _), answer in zip(inputs(14, seed=3),
                                                   [[], [1], [0, 4], [3, 3, 3]] * 4)]
    calls += [(lambda s, x=x: (x, greedy(x, 8))) for x, _ in inputs(4, seed=4)]
    stats = assert_same(decode_and_score, calls, make_state=Tally)
    assert stats.graph_calls >= 8  # (it split at the comparison before: session 27)


def greedy_int(x, n):
    tokens = []
    h = x
    for t in range(n):
        h = tf.tanh(h @ W + 0.1)
        token = int(tf.argmax(h[0]))
        if token == END:
            break
        tokens.append(token)
        h = h + tf.one_hot([token], 5)
    return tokens


def test_int_of_a_scalar_tensor_stays_in_the_graph_too():
    stats = assert_same(greedy_int, inputs(14, seed=5))
    assert stats.graph_calls + stats.plain_calls >= 8


def floats_kept(x):
    loss = float(tf.reduce_sum(x * x))
    if loss > 2.0:
        x = x * 0.5
    return x, loss


def test_float_of_a_scalar_tensor_is_a_python_float_after_the_run():
    xs = [(tf.constant([v, 1.0]),) for v in (0.5, 2.0, 3.0, 1.0, 0.2, 4.0, 0.1)]
    assert_same(floats_kept, xs)
    fn = janus.jit(floats_kept)
    for (x,) in xs:
        assert type(fn(x)[1]) is float
    assert fn.stats.graph_calls + fn.stats.plain_calls >= 2


class Decoder:
    def __init__(self):
        self.emb = tf.Variable(tf.random.stateless_normal([5, 4], seed=(1, 4)))
        self.w = tf.Variable(tf.random.stateless_normal([4, 4], seed=(2, 4)))
        self.out = tf.Variable(tf.random.stateless_normal([4, 5], seed=(3, 4)))
        self.lengths = []


def greedy_until_end(s, h, max_len):
    # (zoo p26: the end token read with `int()` in the loop's exit test, not named)
    tokens = []
    token = tf.constant([1])
    while len(tokens) < max_len:
        h = tf.tanh(tf.matmul(h, s.w) + tf.gather(s.emb, token))
        token = tf.argmax(tf.matmul(h, s.out), axis=-1, output_type=tf.int32)
        if int(token[0]) == 0:
            break
        tokens.append(token[0])
    s.lengths.append(len(tokens))
    return tokens


def test_a_read_tested_where_it_stands_is_no_graph_break():
    calls = [(tf.constant(np.random.RandomState(i).randn(1, 4), tf.float32), 3 + i % 4)
             for i in range(12)]
    stats = assert_same(greedy_until_end, calls, make_state=Decoder)
    assert stats.internal_errors == 0 and stats.graph_calls >= 6, stats


class Hits:
    def __init__(self):
        self.correct = 0
        self.history = []


def float_hits(s, pred, y):
    # `int()` of a float scalar (F461): truncated toward zero, as Python's int() of numpy's
    # float; a NaN or an inf fails the graph (Python raises ValueError, OverflowError)
    s.correct += int(tf.reduce_sum(tf.cast(tf.equal(pred, y), tf.float32)))
    s.history.append(int(tf.reduce_mean(pred) * 10.0))
    return s.correct


def test_int_of_a_float_scalar_is_truncated_in_the_graph():
    rng = np.random.RandomState(7)
    calls = [(tf.constant(rng.randint(0, 3, 6).astype(np.float32) - 1.3),
              tf.constant(rng.randint(0, 3, 6).astype(np.float32) - 1.3)) for _ in range(8)]
    odd = [(tf.constant([np.nan] * 6, tf.float32), calls[0][1]),
           (tf.constant([np.inf] * 6, tf.float32), calls[0][1]),
           (tf.constant([-0.05] * 6, tf.float32), calls[0][1])]
    stats = assert_same(float_hits, calls + odd + calls[:2], make_state=Hits)
    assert stats.graph_calls >= 6, stats


class Totals:
    def __init__(self):
        self.w = tf.Variable([0.5, -1.0, 2.0])
        self.total = 0.0  # (a numpy float32 after the first call, as numpy's sum gives)
        self.wide = np.float64(0.25)
        self.mixed = np.float64(1.0)


def numpy_totals(s, x):
    s.total += tf.reduce_sum(x * s.w).numpy()
    s.total = tf.reduce_max(x).numpy() * 0.5 + s.total  # (a numpy float on the right)
    s.wide = s.wide - tf.cast(tf.reduce_min(x), tf.float64).numpy() / 4.0
    s.mixed = s.mixed + tf.reduce_mean(x).numpy()  # (float64 + float32: numpy's float64)
    return s.total, s.wide, s.mixed


def test_numpy_floats_on_the_heap_summed_with_reads_stay_in_the_graph():
    rng = np.random.RandomState(5)
    calls = [(tf.constant(rng.randn(3).astype(np.float32)),) for _ in range(10)]
    stats = assert_same(numpy_totals, calls, make_state=Totals)
    assert stats.graph_calls >= 5, stats
