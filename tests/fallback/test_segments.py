"""Functions with graph breaks run split: Python at the breaks, graph segments between.

Every test compares janus with plain Python call by call (tests/differential.py): results,
printed output, exceptions, heap and variables, with the segments' graphs forced to be
kept (`any_size`, tests/fallback/conftest.py) so the graph path is what is compared, and
asserts that segments did run as graphs.
"""
import keras
import numpy as np
import pytest
import tensorflow as tf

import janus
from janus.fallback import trial
from tests.differential import Call, assert_same


@pytest.fixture
def keep_graphs(any_size, monkeypatch):
    """Segments keep their graphs whatever they cost (the choice is tested on its own),
    after up to 12 generations."""
    monkeypatch.setattr(trial, "MAX_TRIAL_GENERATIONS", 12)


class Env:
    """A tiny Python environment: its state is a Python float, its step is host code."""

    def __init__(self):
        self.pos = 0.0
        self.steps = 0

    def step(self, action):
        self.steps += 1
        self.pos = self.pos * 0.5 + (1.0 if action else -1.0)
        return np.array([[self.pos, 1.0, -self.pos, 0.5]], np.float32), self.pos > 1.0


class Agent:
    def __init__(self):
        self.w = tf.Variable(np.linspace(-0.5, 0.5, 8).reshape(4, 2).astype(np.float32))
        self.v = tf.Variable(np.full((4, 1), 0.2, np.float32))
        self.optimizer = keras.optimizers.SGD(0.05)
        self.env = Env()
        self.rng = np.random.default_rng(0)
        self.log = []


def policy(agent, obs):
    return tf.nn.softmax(tf.matmul(obs, agent.w))


def episode(agent, obs, steps):
    """A loop body with tensor work, host sampling, an environment step and a heap write."""
    total = tf.constant(0.0)
    for t in range(steps):
        probs = policy(agent, obs)
        value = tf.reduce_sum(tf.matmul(obs, agent.v))
        action = int(agent.rng.choice(2, p=probs.numpy()[0] / probs.numpy()[0].sum()))
        obs, done = agent.env.step(action)
        total = total + tf.math.log(probs[0, action]) * value
        agent.log.append(action)
        if done:
            print("done at", t)
            break
    return total * 2.0


def actor_critic(agent, obs, steps):
    """One tape over several segments: gradients through all of them."""
    with tf.GradientTape() as tape:
        loss = tf.constant(0.0)
        for t in range(steps):
            probs = policy(agent, obs)
            value = tf.reduce_sum(tf.matmul(obs, agent.v))
            action = int(np.argmax(probs.numpy()[0]))
            obs, done = agent.env.step(action)
            loss = loss - tf.math.log(probs[0, action]) * value + tf.square(value)
    agent.log.append(round(float(loss), 4))
    grads = tape.gradient(loss, [agent.w, agent.v])
    agent.optimizer.apply_gradients(zip(grads, [agent.w, agent.v]))
    return loss


def _obs(k):
    return np.array([[0.1 * k, 0.2, -0.3, 0.05 * k]], np.float32)


def test_loop_body_segments_equal_plain(keep_graphs):
    calls = [(_obs(k), 4) for k in range(8)]
    stats = assert_same(episode, calls, make_state=Agent, segments=True)
    assert stats.segmented_calls >= 6
    assert stats.segment_graph_calls > 0


def test_tape_spanning_segments_gives_eager_gradients(keep_graphs):
    calls = [(_obs(k % 3), 3) for k in range(8)]
    stats = assert_same(actor_critic, calls, make_state=Agent, segments=True)
    assert stats.segment_graph_calls > 0


def test_tape_is_never_handed_across_a_boundary():
    import ast

    import gast

    from janus import source
    from janus.transform import segments

    node, _ = source.parse_function(actor_critic)
    split = segments.split(node, set(segments.static_breaks(node, globals())), globals())
    for stretch in split.stretches:
        assert "tape" not in stretch.inputs + stretch.outputs
    text = ast.unparse(gast.gast_to_ast(split.function))
    assert "with tf.GradientTape() as tape:" in text
    assert "grads = tape.gradient(loss, [agent.w, agent.v])" in text


def scaled(x, k):
    """A guard inside a segment: the branch on a tensor is specialized, then fails."""
    y = tf.reduce_sum(x) * k
    note = float(y.numpy())
    if tf.reduce_sum(x) > 0:
        z = y * 2.0 + note
    else:
        z = y - 1.0
    print("z", round(float(z), 3))
    return z + tf.reduce_mean(x)


def test_guard_failure_inside_a_segment_continues_plainly(keep_graphs):
    xs = [np.full([3], v, np.float32) for v in (1.0, 2.0, 3.0, 1.5, 2.5, -1.0, -2.0, 4.0, -3.0)]
    calls = [(tf.constant(x), 2.0) for x in xs] + [(tf.constant(xs[0]), 3.0)]
    stats = assert_same(scaled, calls, segments=True)
    assert stats.segment_graph_calls > 0


class Counter:
    def __init__(self):
        self.items = []
        self.total = 0


def effects(c, x):
    """Heap effects before and after a break, prints around it, a user error inside."""
    c.items.append(tf.reduce_sum(x))
    c.total += 1
    print("before", c.total)
    host = x.numpy().cumsum()[-1]  # (a numpy method; `.sum()` stays in the graph: F461)
    c.items.append(tf.reduce_max(x) * float(host))
    print("after", len(c.items))
    if host > 100:
        raise ValueError("too big")
    return tf.stack(c.items)[-1] + tf.reduce_min(x)


def test_heap_effects_and_errors_keep_plain_order(keep_graphs):
    calls = [(tf.constant([1.0, 2.0 + k]),) for k in range(7)] + [(tf.constant([200.0, 1.0]),),
                                                                  (tf.constant([3.0, 1.0]),)]
    stats = assert_same(effects, calls, make_state=Counter, segments=True)
    assert stats.segment_graph_calls > 0


def test_segments_that_do_not_pay_run_eagerly(monkeypatch):
    monkeypatch.setattr(trial, "PAYS", 0.0)  # nothing pays: every segment is dropped
    monkeypatch.setattr(trial, "GRAPH_RUNS", 2)
    # (tried whatever its plain time: ~0.4-0.5 ms here, the "too short" threshold, so
    # some runs dropped every segment as too short before any trial)
    monkeypatch.setattr(trial, "MIN_PLAIN_S", 0.0)
    jitted = janus.jit(episode, segments=True)
    stats = assert_same(episode, [(_obs(k), 3) for k in range(8)], make_state=Agent,
                        jitted=jitted)
    assert stats.segmented_calls > 0
    states = [s.state for s in jitted.segmented.all_segments()]
    assert "kept" not in states and "eager" in states, states
    assert "does not pay" in jitted.explain()
    # a segment that does not pay runs inline: the function no longer calls it
    dropped = [s for s in jitted.segmented.all_segments() if s.state == "eager"]
    assert all(s not in jitted.segmented.segments for s in dropped)


def unbound_maybe(x, flag):
    if flag:
        y = tf.reduce_sum(x)
    host = x.numpy()
    z = y * 2.0 + tf.reduce_sum(x)  # `y` may be unbound here: the stretch stays Python
    return z + float(host[0])


def test_a_name_that_may_be_unbound_is_not_handed_to_a_segment(keep_graphs):
    calls = [(tf.constant([1.0, 2.0]), True)] * 5 + [(tf.constant([1.0, 2.0]), False)]
    assert_same(unbound_maybe, calls, segments=True)


def test_explain_lists_breaks_and_segments(keep_graphs):
    jitted = janus.jit(episode, segments=True)
    agent = Agent()
    for k in range(6):
        jitted(agent, _obs(k), 3)
    text = jitted.explain()
    assert "graph breaks" in text
    assert "calls .numpy() on a tensor" in text or "numpy" in text
    assert "segment 0" in text


HOST_RNG = np.random.default_rng(3)


def caught_inside(s, x):
    """A segment inside `try` would lose its bindings when it raises (fuzz seed 128, v4)."""
    acc = x * 0.5
    try:
        acc = tf.tanh(x) * 2.0
        s.items.append(tf.reduce_sum(acc))
        raise KeyError("many")
    except KeyError as e:
        print("caught", e)
    return float(acc.numpy()[0]) + float(HOST_RNG.random() > 2.0)


def test_no_segment_where_an_exception_may_be_caught(keep_graphs):
    calls = [(tf.constant([1.0, 2.0 + k]),) for k in range(6)]
    assert_same(caught_inside, calls, make_state=Counter, segments=True)


def deleted_tape(x):
    """`del tape` after the tape's block: the tape must be bound where it is deleted (fuzz
    seed 77, v4)."""
    acc = x * 0.5
    z = float(HOST_RNG.random()) * 0.0 + float(np.float64(tf.reduce_sum(x).numpy()))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(acc)
        y = tf.reduce_sum(acc * acc)
    g = tape.gradient(y, acc)
    del tape
    return g + z


def test_a_deleted_tape_stays_bound_until_its_del(keep_graphs):
    calls = [(tf.constant([1.0, 2.0 + k]),) for k in range(6)]
    stats = assert_same(deleted_tape, calls, segments=True)
    assert stats.segmented_calls > 0


class Buffer:
    def __init__(self):
        self.obs = np.arange(12, dtype=np.float32).reshape(6, 2) / 10.0
        self.adv = np.linspace(-1.0, 1.0, 6).astype(np.float32)
        self.w = tf.Variable([[0.5], [-0.25]])
        self.rng = np.random.default_rng(5)
        self.seen = []


def minibatch(b, k):
    """Numpy data indexed inside segments: fed as graph inputs on every call, never folded
    in as constants (the buffer is written in place between calls)."""
    idx = b.rng.permutation(6)[:3]
    pred = tf.matmul(b.obs[idx], b.w)[:, 0]
    loss = tf.reduce_mean(tf.square(pred - b.adv[idx])) + tf.reduce_sum(b.obs[1:3] * 0.5)
    part = b.adv[idx] * 2.0 - b.adv[idx]
    b.seen.append(part)
    b.obs[k % 6, 0] += 1.0  # host-side in-place write: the next call must see it
    return loss, part


def test_numpy_arrays_are_fed_not_folded(keep_graphs):
    stats = assert_same(minibatch, [(k,) for k in range(14)], make_state=Buffer, segments=True)
    assert stats.segment_graph_calls > 0


def numpy_as_numpy(b, k):
    idx = b.rng.permutation(6)[:2]
    x = tf.reduce_sum(b.obs[idx])
    m = b.adv[idx].max() + (1.0 if hasattr(b.adv, "max") else 0.0)  # numpy's own (not mean:
    # a graph computes it as numpy does, graphgen/float_sums.py)
    return x + m * k


def test_numpy_methods_on_arrays_become_breaks(keep_graphs):
    jitted = janus.jit(numpy_as_numpy, segments=True)
    assert_same(numpy_as_numpy, [(k,) for k in range(8)], make_state=Buffer, jitted=jitted)
    assert "uses a numpy array as numpy" in jitted.explain()


def test_split_renders_as_documented(keep_graphs):
    import ast

    import gast

    from janus import source
    from janus.transform import segments

    node, _ = source.parse_function(episode)
    split = segments.split(node, set(segments.static_breaks(node, globals())), globals())
    text = ast.unparse(gast.gast_to_ast(split.function))
    assert text == GOLDEN_EPISODE, text
    assert [(s.inputs, s.outputs) for s in split.stretches] == [
        ([], ["total"]), (["agent", "obs"], ["probs", "value"]),
        (["action", "agent", "probs", "t", "total", "value"], ["janus_jump", "obs", "total"])]


GOLDEN_EPISODE = """def episode(agent, obs, steps):
    total, = janus_segs[0]()
    for t in range(steps):
        probs, value = janus_segs[1](agent, obs)
        action = int(agent.rng.choice(2, p=probs.numpy()[0] / probs.numpy()[0].sum()))
        janus_jump, obs, total = janus_segs[2](action, agent, probs, t, total, value)
        if janus_jump == 1:
            break
    janus_return = total * 2.0
    return janus_return"""


class Model:
    def __init__(self):
        self.w = tf.Variable([1.0, 2.0])
        self.opt = keras.optimizers.SGD(0.1)


def train_in_loop(m, xs, k):
    """Two optimizer updates in one call: they used to lose their gradients in one graph
    (janus's variable shadows), so the loop ran in Python with its body one segment; a
    shadowed variable now reads like the variable (fallback/variables.py)."""
    host = float(np.float32(k))
    for x in xs:
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(m.w * x) * host
        g = tape.gradient(loss, [m.w])
        m.opt.apply_gradients(zip(g, [m.w]))
    return loss


def test_two_updates_in_a_loop_run_as_graphs(keep_graphs):
    jitted = janus.jit(train_in_loop, segments=True)
    calls = [([tf.constant([1.0, float(k)]), tf.constant([0.5, 1.0])], k) for k in range(9)]
    stats = assert_same(train_in_loop, calls, make_state=Model, jitted=jitted)
    assert stats.graph_calls + stats.segment_graph_calls >= 5, stats


def early_stop(b, limits):
    """`break` on a tensor test inside a stretch: a flag the Python loop tests; when the
    test flips between calls the `if` moves to Python."""
    order = b.rng.permutation(6)
    out = []
    for start in range(0, 6, 2):
        idx = order[start:start + 2]
        x = tf.reduce_sum(b.obs[idx]) * 2.0
        out.append(x)
        if x > limits:
            print("stop at", start)
            break
        b.w.assign_add([[0.1], [0.0]])
    return tf.stack(out)


def test_breaking_out_of_a_python_loop_from_a_segment(keep_graphs):
    calls = [(10.0,)] * 6 + [(1.0,), (10.0,), (1.5,), (0.5,), (10.0,), (2.0,)]
    stats = assert_same(early_stop, calls, make_state=Buffer, segments=True)
    assert stats.segment_graph_calls > 0


def test_jumps_become_a_flag_in_the_segment():
    import ast

    import gast

    from janus import source
    from janus.transform import segments

    node, _ = source.parse_function(early_stop)
    line = node.body[1].lineno  # order = b.rng.permutation(6) (body[0]: the docstring)
    loop = next(s for s in node.body if isinstance(s, gast.For))
    split = segments.split(node, {line}, globals(), frozenset({loop.lineno}))
    text = "\n".join(ast.unparse(gast.gast_to_ast(s.function(None))) for s in split.stretches)
    assert "janus_jump = 1" in text and "if janus_jump == 0:" in text, text
    outer = ast.unparse(gast.gast_to_ast(split.function))
    assert "if janus_jump == 1:\n            break" in outer, outer


def comprehension_after_a_break(x, xs):
    h = x
    for _ in range(3):
        h = tf.tanh(h * 1.5 + 0.1)
    m = float(np.mean(h.numpy()))  # a graph break
    ys = [t * m for t in xs]       # a comprehension: its `t` is its own
    z = tf.add_n(ys)
    for _ in range(3):
        z = tf.tanh(z * 0.5 + m)
    return z


def test_a_list_comprehension_after_a_break_is_in_a_segment(monkeypatch):
    """The comprehension's variable counted as a name read that might be unbound: every
    statement after it ran inline in Python."""
    monkeypatch.setattr(trial, "MIN_PLAIN_S", 0.0)  # (a segment, however short it runs)
    xs = [tf.constant([1.0, 2.0]) * i for i in range(3)]
    calls = [(tf.constant([0.5, -0.5]) * (1 + k % 2), xs) for k in range(10)]
    jitted = janus.jit(comprehension_after_a_break, segments=True)
    stats = assert_same(comprehension_after_a_break, calls, jitted=jitted)
    assert stats.segment_graph_calls > 0, janus.explain(jitted)
