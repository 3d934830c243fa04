"""Class (F405): a profiled call (or an eager rerun after an in-graph guard failed) whose
converted code raised was rerun plainly when janus had seen no effect yet, but some
effects go through hooks the effect watch did not count: a store of a `global` or
`nonlocal` name, entering the program's own context manager, a read through the
program's property or `__getattr__`, an item read through its `__getitem__`. The
plain rerun made them twice (`step_count += 100; raise Diverged(...)`: +200).
"""
import contextlib
import gc
import weakref

import tensorflow as tf

import janus
from janus.fallback import hidden_effects
from janus.recursion import limits
from tests.differential import assert_same

STEP = 0


def _step_count_then_raise(x, limit):
    global STEP
    STEP += 1
    loss = tf.reduce_mean(x * x)
    if loss > limit:
        STEP += 100
        raise FloatingPointError("loss diverged")
    return loss * 2.0


def _make_nonlocal():
    count = 0

    def step(x, limit):
        nonlocal count
        count = count + 1
        loss = tf.reduce_sum(x)
        if loss > limit:
            raise FloatingPointError(f"count {count}")
        return loss

    return step, lambda: count


_CALLS = [(tf.constant([1.0, 2.0]), tf.constant(10.0)),
          (tf.constant([3.0, 4.0]), tf.constant(0.0)),   # raises at profiling
          (tf.constant([1.0, 1.0]), tf.constant(10.0)),
          (tf.constant([2.0, 1.0]), tf.constant(10.0)),
          (tf.constant([2.0, 2.0]), tf.constant(10.0)),
          (tf.constant([5.0, 1.0]), tf.constant(0.0)),   # an in-graph guard fails
          (tf.constant([1.0, 2.0]), tf.constant(10.0)),
          (tf.constant([5.0, 5.0]), tf.constant(0.0))]


def _same_deltas(plain, jitted, read):
    """Each call's change of `read()` and its exception type, plainly and under janus
    (both change the same module global or cell)."""
    for i, args in enumerate(_CALLS):
        seen = []
        for fn in (plain, jitted):
            before = read()
            try:
                fn(*args)
                error = None
            except Exception as exc:  # noqa: BLE001 - compared
                error = type(exc)
            seen.append((read() - before, error))
        assert seen[1] == seen[0], f"call #{i}: janus {seen[1]} != plain {seen[0]}"


def test_a_global_store_before_a_raise_is_made_once():
    _same_deltas(_step_count_then_raise, janus.jit(_step_count_then_raise), lambda: STEP)


def test_a_nonlocal_store_before_a_raise_is_made_once():
    plain, read_plain = _make_nonlocal()
    step, read_janus = _make_nonlocal()
    jitted = janus.jit(step)
    for i, args in enumerate(_CALLS):
        outcomes = []
        for fn, read in ((plain, read_plain), (jitted, read_janus)):
            try:
                fn(*args)
                outcomes.append((read(), None))
            except FloatingPointError as exc:
                outcomes.append((read(), str(exc)))
        assert outcomes[1] == outcomes[0], f"call #{i}"


class Timer:
    """A user context manager counting its entries and exits."""

    def __init__(self):
        self.entered = 0
        self.exited = 0

    def __enter__(self):
        self.entered += 1
        return self

    def __exit__(self, *exc_info):
        self.exited += 1
        return False


class Schedule:
    """A learning-rate schedule whose property advances it."""

    def __init__(self):
        self.t = 0
        self.reads = 0
        self.timer = Timer()
        self.log = []

    @property
    def lr(self):
        self.t += 1
        return 1.0 / self.t

    def __getitem__(self, key):
        self.reads += 1
        return len(key) / 10.0

    @contextlib.contextmanager
    def phase(self, name):
        self.log.append(name)
        yield


def _with_timer(state, x, limit):
    with state.timer:
        loss = tf.reduce_sum(x)
        if loss > limit:
            raise FloatingPointError("diverged")
    return loss


def _with_generator_manager(state, x, limit):
    with state.phase("fwd"):
        loss = tf.reduce_sum(x)
    if loss > limit:
        raise FloatingPointError("diverged")
    return loss


def _property_read(state, x, limit):
    lr = state.lr
    loss = tf.reduce_sum(x) * lr
    if loss > limit:
        raise FloatingPointError("diverged")
    return loss


def _item_read(state, x, limit):
    scale = state["scale"]
    loss = tf.reduce_sum(x) * scale
    if loss > limit:
        raise FloatingPointError("diverged")
    return loss


def test_a_user_context_manager_entered_before_a_raise_runs_once():
    assert_same(_with_timer, _CALLS, make_state=Schedule)  # (no graph: profiled, plain)


def test_a_generator_context_manager_entered_before_a_raise_runs_once():
    assert_same(_with_generator_manager, _CALLS, make_state=Schedule)  # (no graph: profiled, plain)


def test_a_property_read_before_a_raise_runs_once():
    assert assert_same(_property_read, _CALLS, make_state=Schedule).graph_calls >= 2


def test_an_item_read_through_user_getitem_before_a_raise_runs_once():
    assert assert_same(_item_read, _CALLS, make_state=Schedule).graph_calls >= 2


class Plain:
    """State with no code of the program's behind its reads (no property, no dunder)."""

    def __init__(self):
        self.t = 0


def test_plain_reads_still_rerun_plainly(monkeypatch):
    """A raise after only plain attribute reads and TF ops: nothing was done twice, the
    profiled call that raised still falls to plain Python."""
    def step(state, x, limit):
        loss = tf.reduce_sum(x) * float(state.t + 1)
        if loss > limit:
            raise FloatingPointError("diverged")
        return loss

    reruns = []
    plain_call = limits.plain_call

    def counted(fn, *rest):
        reruns.append(fn)
        return plain_call(fn, *rest)

    monkeypatch.setattr(limits, "plain_call", counted)
    assert_same(step, _CALLS, make_state=Plain)
    assert step in reruns  # (the profiled call that raised was rerun plainly)


def test_a_library_context_manager_then_a_raise_is_plain_python_s():
    """Entering `tf.name_scope` calls library code janus does not watch: counted as an
    effect (the raise is passed on from the converted line), as plain Python's."""
    def step(state, x, limit):
        with tf.name_scope("loss"):
            loss = tf.reduce_sum(x) * float(state.t + 1)
        if loss > limit:
            raise FloatingPointError("diverged")
        return loss

    assert_same(step, _CALLS, make_state=Plain)


class Counted:
    """A config answering a missing name through `__getattr__`, counting the misses."""

    def __init__(self):
        self.misses = 0

    def __getattr__(self, name):
        if name not in ("momentum", "beta"):  # (the snapshot asks for others)
            raise AttributeError(name)
        self.misses += 1
        return 0.5


def _getattr_read(state, x, limit):
    scale = state.cfg.momentum
    loss = tf.reduce_sum(x) * scale
    if loss > limit:
        raise FloatingPointError("diverged")
    return loss


class WithConfig:
    def __init__(self):
        self.cfg = Counted()


def test_a_getattr_read_before_a_raise_runs_once():
    assert assert_same(_getattr_read, _CALLS, make_state=WithConfig).graph_calls >= 2


def test_what_counts_as_running_the_programs_code():
    import keras

    from janus.fallback import hidden_effects

    schedule = Schedule()
    assert hidden_effects.read_runs_users_code(schedule, "lr")
    assert not hidden_effects.read_runs_users_code(schedule, "t")
    assert not hidden_effects.read_runs_users_code(schedule, "phase")  # (a method)
    assert hidden_effects.read_runs_users_code(Counted(), "anything")
    assert not hidden_effects.read_runs_users_code(keras.layers.Dense(2), "units")
    assert not hidden_effects.read_runs_users_code(tf, "add")
    assert hidden_effects.item_read_runs_users_code(schedule)
    assert not hidden_effects.item_read_runs_users_code({"a": 1})
    assert hidden_effects.manager_runs_users_code(Timer())
    assert hidden_effects.manager_runs_users_code(schedule.phase("x"))
    assert not hidden_effects.manager_runs_users_code(tf.name_scope("x"))
    assert not hidden_effects.manager_runs_users_code(contextlib.nullcontext())


def test_a_class_made_in_a_call_is_not_kept_alive_by_the_classification():
    def make():
        class Made:
            rows = [1.0] * 10

            @property
            def scale(self):
                return 2.0
        return Made

    made = make()
    alive = weakref.ref(made)
    assert hidden_effects._program_classes(made) == (made,)
    del made
    gc.collect()
    assert alive() is None
