"""A graph loaded from the cache, run under a caller's GradientTape, gives the gradients
of plain Python (F53). Its variables are inputs of the imported graph, not the graph's
own captures, so the tape learns they were read only if janus tells it (as a traced
graph's call does): before, `tape.gradient` returned None for them in the warm process
(fuzz generator v23, warm mode, seeds 9 and 14)."""
import os

from tests.cache.test_warm_models import run_program

PROGRAM = '''
import json
import tensorflow as tf
import janus


class Affine:
    def __init__(self):
        self.w, self.b, self.calls = tf.Variable(0.9), tf.Variable(0.1), 0

    @janus.jit
    def __call__(self, a):
        self.calls += 1
        return a * self.w + self.b, tf.reduce_max(a)  # (the second reads no variable)


def plain(a, w, b):
    return a * w + b


layer = Affine()
out = []
for i in range(6):
    a = tf.constant([1.0, 2.0]) * (i + 1)
    with tf.GradientTape(persistent=True) as tape:
        y, top = layer(a)
        loss = tf.reduce_sum(y ** 2)
    grads = tape.gradient(loss, [layer.w, layer.b])
    unread = tape.gradient(top, [layer.w, layer.b])  # Python: None, None (F147)
    w, b = tf.Variable(layer.w.numpy()), tf.Variable(layer.b.numpy())
    with tf.GradientTape() as tape:
        want = tape.gradient(tf.reduce_sum(plain(a, w, b) ** 2), [w, b])
    out.append([None if g is None else float(g) for g in grads] + [float(g) for g in want] +
               [g is None for g in unread])
janus.cache.flush()
print(json.dumps({"grads": out, "warm": janus.cache.is_warm(Affine.__call__),
                  "loaded": [s.portable is not None
                             for s in Affine.__call__.specializations]}))
'''


def test_a_graph_loaded_from_the_cache_gives_a_tape_its_gradients(tmp_path):
    path = os.path.join(str(tmp_path), "affine.py")  # (janus reads the source of a file)
    with open(path, "w") as f:
        f.write(PROGRAM)
    launcher = f"import runpy; runpy.run_path({path!r}, run_name='__main__')"
    # (no graph-or-plain trial: its timing decides whether a graph is kept, and a loaded
    # graph is what this test is about; under load the warm run had kept none)
    cold = run_program(launcher, tmp_path / "cache", JANUS_PLAIN_TRIAL="0")
    warm = run_program(launcher, tmp_path / "cache", JANUS_PLAIN_TRIAL="0")
    assert warm["warm"] and any(warm["loaded"]), warm
    for result in (cold, warm):
        for gw, gb, want_w, want_b, none_w, none_b in result["grads"]:
            assert gw is not None and gb is not None, result
            assert none_w and none_b, result
            assert abs(gw - want_w) < 1e-4 and abs(gb - want_b) < 1e-4, result


BRANCHED = '''
import json
import tensorflow as tf
import janus


class Gate:
    def __init__(self):
        self.w = tf.Variable(0.5)

    @janus.jit
    def __call__(self, a):
        y = a * self.w
        if tf.reduce_sum(a) > 3.0:  # flips from call to call: one tf.cond in the graph
            y = y * 2.0 + self.w
        else:
            y = y - self.w
        return y


def plain(a, w):
    y = a * w
    return y * 2.0 + w if tf.reduce_sum(a) > 3.0 else y - w


gate = Gate()
out = []
for i in range(12):
    a = tf.constant([1.0, 2.0 + 3.0 * (i % 2)])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(gate(a) ** 2)
    got = tape.gradient(loss, gate.w)
    w = tf.Variable(gate.w.numpy())
    with tf.GradientTape() as tape:
        want = tape.gradient(tf.reduce_sum(plain(a, w) ** 2), w)
    out.append([None if got is None else float(got), float(want)])
janus.cache.flush()
stats = janus.stats(Gate.__call__)
print(json.dumps({"grads": out, "graph_calls": stats.graph_calls,
                  "reasons": dict(stats.fallback_reasons),
                  "loaded": [s.portable is not None and s.generation_time == 0.0
                             for s in Gate.__call__.specializations]}))
'''


def test_a_loaded_graph_with_a_branch_runs_as_a_graph_under_a_callers_tape(tmp_path):
    """Its branches come from the imported graph's function library (connectivity reads
    them as it reads a traced graph's): the graph is known to give the tape Python's
    gradients and runs; before, every call under the tape ran plainly in a warm process."""
    path = os.path.join(str(tmp_path), "gate.py")
    with open(path, "w") as f:
        f.write(BRANCHED)
    launcher = f"import runpy; runpy.run_path({path!r}, run_name='__main__')"
    cold = run_program(launcher, tmp_path / "cache", JANUS_PLAIN_TRIAL="0")
    warm = run_program(launcher, tmp_path / "cache", JANUS_PLAIN_TRIAL="0")
    assert any(warm["loaded"]), warm
    assert warm["graph_calls"] >= 10, warm
    for result in (cold, warm):
        for got, want in result["grads"]:
            assert got == want, result
