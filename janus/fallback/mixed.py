"""Running a function janus cannot convert as a whole: its convertible parts still fast.

The function's converted code runs with plain Python semantics (it *is* the eager
run), except that calls into other user functions go through their own
`janus.jit` (each with its own profile, guards and graphs), and an optimizer's
`apply_gradients` runs as one graph of the optimizer's own update ops instead of
hundreds of eager ops. Nothing of the user's code is traced here that its own
jit would not trace, so results stay those of plain Python: an optimizer of a class
of the program's that defines more than its construction has the code of its class
looked at (graphgen/held_code.program_methods): one that only reads what can be
checked before each run (`self.scale` in its `update_step`, a LARS's `eta` and slot
list, `type(self).SCALE`) keeps the graph, made again when those change (F332); one
that writes (an `apply_gradients` counting its calls), prints or reads a global runs
its update plainly (F310), since a graph of it would keep what its code did once.
"""
from __future__ import annotations

import threading
import weakref
from typing import Callable

import tensorflow as tf

from janus import user_attributes
from janus.fallback import safety, whole_trial
from janus.fallback.safety import EffectWatch
from janus.graphgen import caller_scopes, calls, held_code, keras_settings, keras_state
from janus.graphgen.defaults import follow_defaults
from janus.graphgen.program_classes import program_definitions
from janus.recursion import limits
from janus.transform import user_frames
from janus.transform.autograph_callbacks import for_autograph
from janus.transform.runtime import Runtime, user_function
from janus.operation_hooks import operation_hook

make_jit: Callable | None = None
"""The JitFunction class, set by janus.function (which imports this module)."""


update_builds = 0
"""Graphs of optimizer updates made (a one-time cost: whole_trial's snapshots see it)."""

callee_graph_runs = 0
"""Calls of a callee's jit (or an optimizer update) run mixed in which a graph ran: what
mixing pays for. (A split function's own segments run their graphs whether its Python
parts run mixed or not: they do not count.)"""


class _Mixed(Runtime):
    def __init__(self, function):
        super().__init__(function)
        self.callees: weakref.WeakSet = weakref.WeakSet()  # the jits it ran (janus.deciding)
        self.updates = 0  # optimizer updates run as a graph

    @operation_hook
    def call(self, site, fn, /, *args, **kwargs):
        if user_attributes.get(fn, "__name__", "") == "apply_gradients" and \
                _is_optimizer(user_attributes.get(fn, "__self__")):
            reads = _update_reads(fn.__self__)
            if not args or kwargs or reads is None:
                return fn(*args, **kwargs)  # (the program's optimizer code: plainly, F310)
            before = calls.graph_runs
            try:
                return _apply_gradients_as_graph(fn.__self__, args[0], reads)
            finally:
                self.updates += calls.graph_runs != before
                _note_callee(before)
        target, bound_self = user_function(fn)
        if target is None or target.__name__ == "<lambda>" or "<locals>" in \
                target.__qualname__ and "." not in target.__qualname__.rpartition("<locals>.")[2]:
            # a lambda or nested def is a new function object on every call: a jit of its
            # own would profile it afresh each time (and keep every copy alive)
            if target is not None:  # (plain Python's room, not the converted run's: F368)
                return limits.callee_call(fn, args, kwargs)
            args, kwargs = for_autograph(fn, args, kwargs)  # (`ds.map(lambda ...)`: AutoGraph)
            return user_frames.call(fn, args, kwargs)  # (a logging call: the user's frame)
        jitted = _callee_jit(target)
        self.callees.add(jitted)
        before = calls.graph_runs
        try:
            if bound_self is not None:
                return jitted(bound_self, *args, **kwargs)
            return jitted(*args, **kwargs)
        finally:
            _note_callee(before)


def _note_callee(before: int) -> None:
    """A callee run through its jit ran a graph (`calls.graph_runs` moved since `before`)."""
    global callee_graph_runs
    if calls.graph_runs != before:
        callee_graph_runs += 1


class MixedRuntime(EffectWatch, _Mixed):
    """Plain semantics, callees through their own jit; counts effects (see safety.py)."""

    callees_watched = False


PLAIN_AFTER = 8
"""Calls in a row of a function run mixed in which no graph ran, before it runs plainly."""


class MixedRunner:
    """`converted` run mixed for `jit` — until it shows that mixing does not pay.

    Mixing pays when a callee runs as a graph (its own jit, an optimizer update);
    the hooks it costs on every call, attribute store and loop of the function do
    not. A function none of whose first `PLAIN_AFTER` calls ran a callee's graph (a
    numpy environment's `step`, a host helper, a split function whose Python parts only
    glue its segments: e.g. PPO's GAE loop, 7x slower hooked) runs as it is from then
    on: plain Python, the reference itself, without the hooks. So does one whose callees
    ran graphs at first but then gave them up for good (each settled plain:
    fallback/settled.py) and no graph ran in its last `PLAIN_AFTER` calls, unless an
    optimizer update ran as a graph in one of its calls (it may come every few calls).
    One whose graphs run is tried against its function run plainly once steady, and runs
    plainly for good if that measured faster (fallback/whole_trial.py; not `tried` when
    it runs a split function's Python, whose split is tried as a whole instead).
    """

    def __init__(self, jit, converted, phase: str, fn=None, tried: bool = True):
        self.jit, self.phase = jit, phase
        self.fn = fn if fn is not None else converted.original
        runtime = self.runtime = MixedRuntime.for_function(converted)
        self.mixed_fn = converted.instantiate(runtime)
        self.callees = runtime.callees  # the jits its calls ran (janus.deciding)
        self.graphless = 0   # calls in a row that ran no graph
        self.pays = False    # a graph ran in one of its calls
        self.plain = False
        self.whole = whole_trial.WholeTrial(kind="mixed") if tried else None
        self._trial_lock = threading.Lock()  # (threads share the runner: its bookkeeping)

    def __call__(self, *args, **kwargs):
        if self.plain:  # (plain Python's room, this frame counted too: F476)
            return limits.plain_call(self.fn, args, kwargs)
        kind, work = self._trial_turn()
        start = whole_trial.clock()
        if kind == "plain":
            result = limits.plain_call(self.fn, args, kwargs)
        else:
            mixed_fn = self.mixed_fn
            follow_defaults(mixed_fn, self.fn)  # (rebound since it was made: F273)
            before = callee_graph_runs
            result = safety.run_watched(self.jit, self.phase,
                                        lambda: mixed_fn(*args, **kwargs), args, kwargs)
            if callee_graph_runs != before:
                self.pays, self.graphless = True, 0
            else:
                self.graphless += 1
                self.plain = self.graphless >= PLAIN_AFTER and \
                    (not self.pays or self._paid_out())
        if work is not None:
            self._trial_ran(kind, whole_trial.clock() - start, work)
        return result

    # -- whether running mixed pays against the function itself (fallback/whole_trial.py)
    def _trial_turn(self) -> tuple:
        """(how this call runs in the trial — "plain", "janus" or None —, janus's work so
        far), or (None, None) when it is not watched (not yet paying, decided)."""
        whole = self.whole
        if whole is None or not self.pays or whole.state in ("kept", "plain"):
            return None, None
        try:
            may_try = self.jit.profile.collective_strategy is None and \
                not tf.distribute.has_strategy()
            with self._trial_lock:
                return whole.turn(may_try, True), self.work()
        except Exception as exc:  # noqa: BLE001 - janus's: the call runs mixed
            self._trial_failed(exc)
            return None, None

    def work(self) -> tuple:
        """What changes when its callees trace, or an update's graph is made."""
        return (sum(c.stats.generations + c.stats.generation_failures
                    for c in list(self.callees)), update_builds)

    def _trial_ran(self, kind, seconds: float, before: tuple) -> None:
        try:
            with self._trial_lock:
                if self.whole.ran(kind, seconds, self.work() != before) == "plain":
                    self.plain = True
        except Exception as exc:  # noqa: BLE001 - janus's: the result stands
            self._trial_failed(exc)

    def _trial_failed(self, exc: Exception) -> None:
        self.whole.state = "kept"
        self.whole.why = f"janus internal error: {type(exc).__name__}"
        self.jit.report_internal("keeping a mixed run's trial", exc, give_up=False)

    def _paid_out(self) -> bool:
        """Mixing paid once but cannot again: every callee settled plain, no optimizer
        update ran as a graph."""
        return not self.runtime.updates and \
            all(getattr(c, "_settled", None) is not None for c in list(self.callees))


_callees: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _callee_jit(fn):
    jitted = _callees.get(fn)
    if jitted is None:
        jitted = _callees[fn] = make_jit(fn)
    return jitted


def _is_optimizer(obj) -> bool:
    import keras
    return isinstance(obj, keras.optimizers.Optimizer)


_CONSTRUCTION = frozenset({"__init__", "get_config", "from_config", "__module__",
                           "__qualname__", "__doc__", "__dict__", "__weakref__",
                           "__annotations__", "__firstlineno__", "__static_attributes__",
                           "__classcell__", "__orig_bases__", "__parameters__"})
"""What a class of the program's may define and its optimizer's update still be made a
graph of: only what runs when it is made or saved, never during `apply_gradients`."""


def _library_update(obj) -> bool:
    """`obj` is an optimizer whose `apply_gradients` runs only Keras's code: no class of
    the program's in its MRO defines a method or attribute the update may use
    (`update_step`, `build`, `apply_gradients`, a class constant: F310)."""
    return _is_optimizer(obj) and not any(program_definitions(type(obj), _CONSTRUCTION))


def _update_reads(obj) -> dict | None:
    """What a graph of `obj`'s update keeps of the program's code its optimizer class
    defines (held_code.program_methods: `self.scale` read by its `update_step`, F332):
    {} for Keras's own code only, None when that code cannot be a graph (it writes,
    counts, prints, reads a global...: the update runs plainly, F310)."""
    if _library_update(obj):
        return {}
    reason, reads = held_code.program_methods(obj, _CONSTRUCTION)
    return None if reason else reads


def _reads_hold(optimizer, reads: dict) -> bool:
    """The values the update's graph kept of what the program's code reads are current."""
    state = optimizer.__dict__
    for key, kept in reads.items():
        now = vars(key[0]).get(key[1], _UNBUILT) if isinstance(key, tuple) else \
            state.get(key, _UNBUILT)
        if not held_code.same_kept(now, kept):
            return False
    return True


_update_graphs: dict = {}
_MAX_UPDATE_GRAPHS = 32
_MAX_RETRACES = 3
"""Graphs of one optimizer update remade for changed settings before it runs eagerly."""
_UNBUILT = object()


class _Update:
    """An optimizer update's graph and the settings it was made with (F191)."""

    __slots__ = ("graph", "watched", "made", "reads")

    def __init__(self, graph, watched, made: int, reads: dict):
        self.graph, self.watched, self.made = graph, watched, made
        self.reads = reads  # (what the program's code of its class read: `_update_reads`)


@operation_hook
def _apply_eagerly(optimizer, pairs):
    """The user's own `optimizer.apply_gradients(pairs)`: an error is theirs (the optimizer
    built for other variables...), as in plain Python (fallback/safety.py hooks)."""
    return optimizer.apply_gradients(pairs)


def _apply_gradients_as_graph(optimizer, grads_and_vars, reads: dict):
    """`optimizer.apply_gradients` as a graph of its update ops, made again when the
    optimizer's settings changed (keras_state's epoch, as F188's guard), eagerly when it
    cannot be made or keeps changing."""
    pairs = list(grads_and_vars)
    grads = [g for g, _ in pairs]
    variables = [v for _, v in pairs]
    if not pairs or any(g is None or not isinstance(g, tf.Tensor) or not hasattr(g, "numpy")
                        for g in grads) or tf.inside_function() or tf.distribute.has_strategy() \
            or keras_settings.python_learning_rate(optimizer):
        # (under tf.distribute the update synchronizes replicas in merge_call, which a
        # graph of its own cannot do; a Python callable learning rate reads Python state)
        return _apply_eagerly(optimizer, pairs)
    scopes = caller_scopes.current()  # (a graph per caller's name scope and device)
    key = (id(optimizer), tuple(id(v) for v in variables),
           tuple((g.dtype, tuple(g.shape)) for g in grads), scopes)
    update = _update_graphs.get(key, _UNBUILT)
    if update is None:  # its graph could not be built: apply eagerly
        return _apply_eagerly(optimizer, pairs)
    made = 0
    if update is not _UNBUILT and not (update.watched.holds() and
                                       _reads_hold(optimizer, update.reads)):
        made = update.made
        if made > _MAX_RETRACES:
            _update_graphs[key] = None
            return _apply_eagerly(optimizer, pairs)
        update = _UNBUILT
    if update is _UNBUILT:
        if len(_update_graphs) >= _MAX_UPDATE_GRAPHS and key not in _update_graphs:
            return _apply_eagerly(optimizer, pairs)
        update = _make_update(optimizer, variables, grads, made, reads, scopes)
        _update_graphs[key] = update
        global update_builds
        update_builds += 1
        if update is None:
            return _apply_eagerly(optimizer, pairs)
    calls.note_graph_run()
    calls.call_graph(update.graph, grads)  # (eager's kernels and rounding: calls.eager_kernels)
    return optimizer.iterations


def _make_update(optimizer, variables, grads, made: int, reads: dict, scopes: tuple):
    """The update's graph with the settings it read (as they are after its trace, which
    may build the optimizer), traced under the caller's name scope and device (`scopes`,
    part of its key: graphgen/caller_scopes.py), or None if it cannot be made."""
    specs = [tf.TensorSpec(g.shape, g.dtype) for g in grads]
    if held_code.reason(optimizer.apply_gradients):  # (a schedule of the program's...)
        return None

    def apply(*gs):
        with caller_scopes.inside(*scopes):  # (a tf.function traces at the root)
            optimizer.apply_gradients(zip(gs, variables))
        return tf.constant(0)

    try:
        graph = tf.function(apply, input_signature=specs, autograph=False) \
            .get_concrete_function()
    except Exception:  # noqa: BLE001 - tracing failed before any update ran
        return None
    graph.janus_keepalive = (optimizer, variables)
    return _Update(graph, keras_state.Watched(optimizer), made + 1, reads)
