"""Library state changed through the library's API between calls, which a graph held as
its trace found it (the probes of session 27, m04, m05, p13):

F205: a Keras preprocessing layer's tensors and tables (`Normalization.adapt` stores new
`mean`/`variance` tensors, `StringLookup.set_vocabulary` a new `lookup_table`,
`Discretization.adapt` new `bin_boundaries`) are settings of the layer (by identity),
their replacement moves the Keras epoch (graphgen/keras_epoch.py).

F206: a tf.Module's `trainable_variables`/`variables` after a variable was added,
replaced or dropped (`net.b = tf.Variable(...)`, `net.ws.append(...)`,
`net.table["k"] = ...`): graphgen/module_epoch.py counts those changes in the same epoch
and the graph's guard computes the list again when it moved.

Compared with plain Python call by call."""
import keras
import numpy as np
import tensorflow as tf

from tests.differential import assert_same

# -- F205: Keras preprocessing state


class Prep:
    def __init__(self):
        self.norm = keras.layers.Normalization(axis=None)
        self.norm.adapt(np.array([0.0, 2.0]))
        self.lookup = keras.layers.StringLookup(vocabulary=["a", "b", "c"])
        self.ints = keras.layers.IntegerLookup(vocabulary=[5, 6, 7])
        self.bins = keras.layers.Discretization(num_bins=3)
        self.bins.adapt(np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0]))


def prep(p, x, s, n):
    return p.norm(x), p.lookup(s), p.ints(n)


def _refit(i, p):
    if i == 5:
        p.norm.adapt(np.array([10.0, 20.0]))
        p.lookup.set_vocabulary(["c", "b", "a"])
    if i == 7:
        p.ints.set_vocabulary([7, 6, 5])
    return (p, tf.constant([1.0]), tf.constant(["a"]), tf.constant([6]))


def test_adapt_and_set_vocabulary_between_calls():
    calls = [(lambda p, i=i: _refit(i, p)) for i in range(10)]
    assert assert_same(prep, calls, Prep).graph_calls > 0


def sized(p, x):
    return x * float(p.lookup.vocabulary_size())


def _grow(i, p):
    if i >= 4:
        p.lookup.set_vocabulary(["a", "b", "c", "d"][: 1 + i % 4])
    return (p, tf.constant([1.0, 2.0]))


def test_vocabulary_size_after_set_vocabulary():
    # (since F342 Keras's `vocabulary_size()` takes its eager path, `.numpy()` of the
    # table's size, which a graph tensor cannot: that line runs in Python, every call)
    calls = [(lambda p, i=i: _grow(i, p)) for i in range(10)]
    stats = assert_same(sized, calls, Prep)
    assert stats.internal_errors == 0 and stats.calls == 10, stats


def binned(p, x):
    return p.bins(x)


def _rebin(i, p):
    if i == 4:
        p.bins.adapt(np.array([10.0, 11.0, 12.0, 13.0]))
    return (p, tf.constant([1.0, 4.5, 11.5]))


def test_discretization_adapted_between_calls():
    calls = [(lambda p, i=i: _rebin(i, p)) for i in range(8)]
    assert assert_same(binned, calls, Prep).graph_calls > 0


def shifted(p, x, m):
    p.norm.mean = m  # (set inside the call: Keras reads it in `p.norm(x)`)
    return p.norm(x)


def test_a_mean_written_inside_the_call_is_the_one_keras_reads():
    calls = [(tf.constant([1.0, 2.0]), tf.constant(float(n))) for n in range(6)]
    assert_same(shifted, calls, Prep)


class MyNorm(keras.layers.Normalization):
    """A user's subclass: Keras' inherited `call` reads the mean `adapt` stores."""


class Own:
    def __init__(self):
        self.norm = MyNorm(axis=None, name="own_norm")
        self.norm.adapt(np.array([0.0, 2.0]))


def own(o, x):
    return o.norm(x)


def _refit_own(i, o):
    if i == 4:
        o.norm.adapt(np.array([10.0, 20.0]))
    return (o, tf.constant([1.0, 3.0]))


def test_a_user_subclass_adapted_between_calls():
    calls = [(lambda o, i=i: _refit_own(i, o)) for i in range(8)]
    assert assert_same(own, calls, Own).graph_calls > 0


class Remembers(keras.layers.Layer):
    """A user's layer keeping its last output: its own attribute, no Keras code reads it."""

    def call(self, x):
        self.last = x * 2.0
        return self.last


def test_a_training_step_moves_no_epoch():
    """Steady state stays one integer compare a call: a Keras step with a Normalization,
    and a tf.Module whose Python bookkeeping changes, move no epoch."""
    from janus.graphgen import keras_epoch
    keras_epoch.install()
    norm = keras.layers.Normalization(axis=None)
    norm.adapt(np.array([1.0, 2.0, 3.0]))
    model = keras.Sequential([norm, keras.layers.Dense(2), keras.layers.Dropout(0.1)])
    opt = keras.optimizers.Adam(0.01)
    module = Grown()
    remembers = Remembers()
    x = tf.ones((4, 3))

    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(remembers(model(x, training=True))) + module.w
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                model.trainable_variables))
        module.log.append(float(loss))
        module.steps = module.steps + 1
        module.last = loss

    step()
    before = keras_epoch.EPOCH.n
    for _ in range(3):
        step()
    assert keras_epoch.EPOCH.n == before


# -- F206: a tf.Module's variable lists


class Grown(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(1.0)
        self.ws = [tf.Variable(2.0)]
        self.table = {"a": tf.Variable(3.0)}
        self.sub = tf.Module()
        self.log = []
        self.steps = 0


def total(m, x):
    return x * tf.add_n(m.trainable_variables) + float(len(m.variables))


def _grow_module(i, m):
    if i == 3:
        m.b = tf.Variable(10.0)
    if i == 5:
        m.ws.append(tf.Variable(100.0))
    if i == 7:
        m.table["z"] = tf.Variable(1000.0)
    if i == 9:
        m.sub.v = tf.Variable(10000.0)
    if i == 11:
        m.w = tf.Variable(-1.0)  # (replaced)
    if i == 13:
        del m.b
    if i == 15:
        m.table.pop("a")
    if i == 17:
        m.ws[0] = tf.Variable(0.5)
    if i == 19:
        m.untrained = tf.Variable(7.0, trainable=False)
    return (m, tf.constant(1.0))


def test_variables_added_to_a_module_between_calls():
    calls = [(lambda m, i=i: _grow_module(i, m)) for i in range(22)]
    assert assert_same(total, calls, Grown).graph_calls > 5


def _bookkeeping(i, m):
    m.log.append(float(i))
    m.steps = i
    return (m, tf.constant(2.0))


def test_module_bookkeeping_keeps_the_graph():
    """Attributes that hold no variable move no epoch: the graph is reused."""
    from janus.graphgen import keras_epoch
    calls = [(lambda m, i=i: _bookkeeping(i, m)) for i in range(8)]
    stats = assert_same(total, calls, Grown)
    assert stats.graph_calls >= 5
    module = Grown()
    keras_epoch.install()
    before = keras_epoch.EPOCH.n
    module.log.append(1.0)
    module.steps = 3
    module.note = [1.0, 2.0]
    assert keras_epoch.EPOCH.n == before
    module.log.append(tf.Variable(1.0))
    assert keras_epoch.EPOCH.n > before


def submodules_total(m, x):
    return x * len(m.submodules)


def test_a_module_s_submodules_are_not_kept():
    """A computed list of modules: no epoch guards it, so janus does not keep it."""
    def calls():
        for i in range(6):
            yield lambda m, i=i: (setattr(m, "more", tf.Module()) if i == 3 else None,
                                  (m, tf.constant(1.0)))[1]
    assert_same(submodules_total, list(calls()), Grown)


POOL = [tf.Variable(10.0), tf.Variable(100.0)]


def bound_inside(m, x, n):
    if n % 3 == 1:
        m.extra = POOL[n % 2]  # (deferred: the list read after it must hold it)
    if n % 3 == 2:
        m.table["p"] = POOL[0]
    return x * tf.add_n(m.trainable_variables)


def test_a_variable_bound_inside_the_call_is_in_the_list_read_after_it():
    assert_same(bound_inside, [(tf.constant(1.0), n) for n in range(8)], Grown)


# -- F265: a tf.Module's attributes changed past its `__setattr__`

SPARE = [tf.Variable(10.0), tf.Variable(100.0)]


def _past_the_hooks(i, m, how):
    """At call 4, `how` changes m's variables past AutoTrackable.__setattr__ (at call 6,
    an ordinary write after it)."""
    if i == 4:
        if how == "object.__setattr__":
            object.__setattr__(m, "b", tf.Variable(10.0))
        elif how == "vars.update":
            vars(m).update(b=tf.Variable(10.0))
        elif how == "__dict__ item":
            m.__dict__["b"] = tf.Variable(10.0)
        elif how == "replaced":
            m.__dict__["w"] = tf.Variable(-5.0)
        elif how == "deleted":
            del m.__dict__["ws"]
        elif how == "a number became one":
            m.__dict__["steps"] = tf.Variable(3.0)
        elif how == "submodule replaced":
            object.__setattr__(m, "sub", tf.Module())
            object.__setattr__(m.sub, "v", tf.Variable(7.0))
        elif how == "submodule's":
            m.sub.__dict__["v"] = tf.Variable(7.0)
        elif how == "submodule added, then its variable":
            object.__setattr__(m, "more", tf.Module())
        elif how == "plain list":
            m.__dict__["raw"] = []
        elif how == "popped":
            vars(m).pop("w")
    if i == 6:
        if how == "submodule added, then its variable":
            m.more.__dict__["v"] = tf.Variable(9.0)
        if how == "plain list":
            m.raw.append(tf.Variable(2.0))
        m.steps = i  # (an ordinary write: the watched dict stays current)
    return (m, tf.constant(1.0))


PAST_THE_HOOKS = ("object.__setattr__", "vars.update", "__dict__ item", "replaced", "deleted",
                  "a number became one", "submodule replaced", "submodule's",
                  "submodule added, then its variable", "plain list", "popped")


def test_variables_changed_past_setattr_between_calls():
    for how in PAST_THE_HOOKS:
        calls = [(lambda m, i=i: _past_the_hooks(i, m, how)) for i in range(9)]
        assert assert_same(total, calls, Grown).graph_calls >= 4, how


def changed_in_the_call(m, x, i):
    if i == 3:
        object.__setattr__(m, "b", SPARE[0])  # (runs in Python)
    if i == 5:
        m.sub.__dict__["q"] = SPARE[1]
    if i == 7:
        del m.sub.__dict__["q"]
    return x * tf.add_n(m.trainable_variables)


def test_variables_changed_past_setattr_in_a_call_janus_runs_in_python():
    assert assert_same(changed_in_the_call, [(tf.constant(1.0), i) for i in range(11)],
                       Grown).graph_calls >= 2


def written_every_call(m, x):
    m.steps = m.steps + 1
    m.last = x * 2.0
    return x * tf.add_n(m.trainable_variables)


def test_a_watched_module_s_ordinary_writes_keep_the_graph():
    """A module whose attributes the step writes through `__setattr__` (the LSTM LM's
    `self.hidden = state`): the watch follows them, the epoch stays."""
    import janus
    from janus.graphgen import keras_epoch

    stats = assert_same(written_every_call, [(tf.constant(float(i)),) for i in range(8)],
                        Grown)
    assert stats.graph_calls >= 4
    step, module = janus.jit(written_every_call), Grown()
    for i in range(4):
        step(module, tf.constant(1.0))
    before = keras_epoch.EPOCH.n
    for i in range(4):
        step(module, tf.constant(1.0))
    assert keras_epoch.EPOCH.n == before
    module.__dict__["b"] = tf.Variable(3.0)
    assert float(step(module, tf.constant(1.0))) == 1.0 + 2.0 + 3.0 + 0.0 + 3.0
    assert keras_epoch.EPOCH.n > before
