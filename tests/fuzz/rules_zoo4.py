"""Generator rules (v72) from session 26: blocks reading a name only they bind before
anything bound it (F179); `tf.print` to a file and `tf.summary.write` around guards
(F180); RaggedTensors and SparseTensors the call makes (F182); a write read back through
another path that is one object on some calls (F183); a tensor test whose branch raises;
a user's tf.function writing a variable (F187); Keras settings changed (F188).

Registered in `rules.RULES` on import (the generator imports this module last).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper, _method


@rule(0.5, max_depth=2)
def read_before_bound(g):
    """(v72, F179) A `while` test, a loop's body, a branch or a loop's iterable reading a
    name the block binds, on a path where nothing bound it yet (Python raises
    UnboundLocalError: the call's exception): janus's closures read its UNDEFINED marker (a TypeError of
    janus's own while profiling)."""
    u, i = g.fresh("rb"), g.fresh("ri")
    lines = [f"if {g.pcond()}:", f"    {u} = {g.choice(['acc', 'acc * 0.5'])}"]
    lines += g.choice([
        [f"while tf.reduce_sum({u}) < {g.choice(['1.0', '3.0'])}:",  # (it grows: ends)
         f"    {u} = {g.choice([f'{u} * 0.5 + 2.0', f'tf.abs({u}) + 2.0'])}"],
        [f"for {i} in range({g.choice(['n % 3', '2', 'len(xs)'])}):",
         f"    if {i} > {g.choice(['0', '1'])} or {g.tcond()}:",
         f"        {u} = {u} * 0.5 + acc",
         "    else:",
         f"        {u} = acc * 0.25"],
        [f"if {g.choice([g.pcond(), g.tcond()])}:", f"    {u} += acc", "else:",
         f"    {u} = acc - 1.0"],
        [f"for {i} in ([{u}] if flag else xs[:1]):", f"    {u} = {i} * 0.5"],
    ])
    return lines + [g.choice([f"acc = acc + tf.reduce_sum({u}) * 0.1",
                              f"out.append(tf.reduce_max({u}))"])]


_OUTSIDE = '''import glob as _glob
import os as _os
import tempfile as _tempfile

from tensorflow.core.util import event_pb2 as _event_pb2

__LOG = _tempfile.mkstemp(suffix=".log")
_os.close(__LOG[0])
__EVENTS = _tempfile.mkdtemp()
__WRITER = tf.summary.create_file_writer(__EVENTS)


def log_url():
    return "file://" + __LOG[1]


def writer():
    return __WRITER


def OUTSIDE():
    """What the program printed or wrote outside TensorFlow (the runner compares it)."""
    __WRITER.flush()
    with open(__LOG[1]) as f:
        text = f.read()
    for name in sorted(_glob.glob(_os.path.join(__EVENTS, "*"))):
        for record in tf.data.TFRecordDataset(name):
            event = _event_pb2.Event.FromString(record.numpy())
            text += "".join(f"event {event.step} {v.tag} "
                            f"{tf.make_ndarray(v.tensor).tolist()}\\n"
                            for v in event.summary.value)
    return text
'''


@rule(0.5, max_depth=2)
def outside_writes(g):
    """(v72, F180) `tf.print` to a file and `tf.summary.write` before and after tensor
    tests: a graph whose guard failed had printed or written them already, and the call's
    plain rerun did so again (the runner compares what the module's OUTSIDE() reads)."""
    _helper(g, _OUTSIDE)
    value = g.choice(["tf.reduce_sum(acc)", "acc", "n", "tf.reduce_max(x)"])
    if g.chance(0.6):
        return [f"tf.print('v', {value}, k, output_stream=log_url())"]
    return ["with writer().as_default():",
            f"    tf.summary.write('t{g.choice(['a', 'b'])}', {value}, step=n)"]


@rule(0.4, max_depth=1)
def composite_values(g):
    """(v72, F182) A RaggedTensor or SparseTensor the call makes, returned in `out`, kept
    on the heap or reduced: a graph handed back the trace's symbolic RaggedTensor (its
    `numpy` attribute taken for an eager constant's), and a SparseTensor was an internal
    error."""
    r = g.fresh("cv")
    flat = "tf.reshape(tf.cast(acc, tf.float32), [-1])"
    made = g.choice([
        f"tf.RaggedTensor.from_row_splits({flat}, [0, 1, tf.size({flat})])",
        f"tf.RaggedTensor.from_value_rowids({flat}, tf.zeros([tf.size({flat})], tf.int64))",
        f"tf.sparse.from_dense(tf.reshape({flat}, [1, -1]) * 2.0)",
    ])
    use = g.choice([f"out.append({r})", f"s.d['composite'] = {r}",
                    f"acc = acc + tf.cast(tf.reduce_sum({r}.values), acc.dtype) * 0.1",
                    f"s.hist.append({r} * 0.5 if isinstance({r}, tf.RaggedTensor) else {r})"])
    return [f"{r} = {made}", use]


_PEER = '''
    def __new__(cls, *args):
        # State objects alternate: one's `peer` is the module's G_PEER, the next its own
        self = object.__new__(cls)
        cls.made = getattr(cls, "made", 0) + 1
        self.peer = G_PEER if cls.made % 2 else {"t": tf.zeros([]), "n": 0}
        return self
'''


@rule(0.4, max_depth=2)
def aliased_paths(g):
    """(v72, F183) A write through the call's state read back through a module global,
    where the state's dict is that global on one object and its own on another: a graph
    traced with them one object ran for the other (the write read from the wrong one)."""
    _helper(g, 'G_PEER = {"t": tf.zeros([]), "n": 0}\n')
    _method(g, _PEER)
    return g.choice([
        ["s.peer['t'] = s.peer['t'] * 0.5 + tf.reduce_sum(acc)",
         "acc = acc + G_PEER['t']"],
        ["G_PEER['t'] = G_PEER['t'] + 1.0", "acc = acc * s.peer['t']"],
        ["s.peer['n'] += 1", "k = k + G_PEER['n']"],
    ])


@rule(0.4, max_depth=2)
def raising_branch(g):
    """(v72) A tensor test one of whose branches raises (`if <tensor>: raise ...`, or
    its `else:`): janus specializes it to the other branch and never makes it a tf.cond
    (transform/sites.Site.raises_when); the calls that raise rerun plainly."""
    test = f"tf.reduce_max(tf.abs(acc)) > {g.choice(['2.0', '5.0', '50.0'])}"
    if g.chance(0.5):
        return [f"if {test}:", "    s.hist.append('raise')",
                "    raise ValueError(f'too big at n={n}')"]
    return [f"if not {test}:", "    acc = acc * 0.5", "else:",
            "    raise ArithmeticError('diverged')"]


_SETTINGS = '''import keras

LEAKY = keras.layers.LeakyReLU(negative_slope=0.2)
VF = tf.Variable(tf.zeros([]))


@tf.function
def bump_vf(v, amount):
    v.assign_add(amount)
    return v * 2.0
'''


@rule(0.4, max_depth=2)
def library_state(g):
    """(v72, F187, F188) A Keras layer's setting written in the call (or by an earlier
    call) and read by Keras' own code, and a user's `tf.function` assigning a variable it
    is handed, before a tensor test: the graph kept the traced setting, and the function's
    assign ran again in a failed guard's rerun."""
    _helper(g, _SETTINGS)
    return g.choice([
        [f"LEAKY.negative_slope = {g.choice(['0.1 * (n % 3)', '0.3', '0.05 * k'])}",
         "acc = acc + tf.reduce_sum(LEAKY(acc - 0.5)) * 0.1"],
        ["acc = acc + tf.reduce_sum(LEAKY(acc - 0.5)) * 0.1"],
        ["acc = acc + tf.cast(bump_vf(VF, tf.reduce_mean(tf.cast(x, tf.float32))), acc.dtype)",
         f"if {g.tcond()}:", "    acc = acc * 0.5"],
    ])
