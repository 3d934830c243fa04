"""A variable's method called with a Python int janus feeds inside a list (F47: fuzz
generator v20, seed 572035). `VEC.scatter_nd_add([[i1 % 4]], ...)` in a loop over
`range(len(xs) + 1)` (the list's length varies, so `i1` is fed): TF functions get lists
holding fed numbers packed into tensors, but a variable's methods are janus's shadows
while tracing (module janus.fallback.variables), so the list reached TF as it was and TF
formatted the stand-in (an internal error). Now variable methods are packed too.
Run through the fuzz harness (segments on, every segment graph kept), as found."""
from tests.fuzz import runner

SOURCE = '''
import tensorflow as tf

VEC = tf.Variable(tf.zeros([4]))


class State:
    def __init__(self):
        self.total = 0.0


def f(s, x, xs, n, flag):
    acc = x * 0.5
    for i1 in range(len(xs) + 1):
        VEC.scatter_nd_add([[i1 % 4]], [tf.cast(tf.reduce_sum(acc), tf.float32)])
    vals = [float(n), s.total, 1.5]
    s.total = round(sum(vals) / len(vals), 3)
'''


def test_scatter_with_a_fed_index_as_in_eager_code():
    spec = {"shape": [4], "dtype": "float32", "seed": 1, "len": 0, "n": 2, "flag": True,
            "obj": "main"}
    calls = [dict(spec) for _ in range(4)]
    calls += [dict(spec, len=length, n=n) for length, n in
              [(1, 2), (1, 1), (1, 0), (2, 0), (2, 0), (2, 3), (0, 1)]]
    result = runner.run(SOURCE, calls, timeout=60)
    assert result.divergence is None
    assert result.stats["segment_graph_calls"] + result.stats["graph_calls"] > 0
