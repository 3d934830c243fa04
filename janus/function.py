"""`janus.jit`: profile, specialize, guard, run as a graph, fall back.

A `JitFunction` wraps one user function. Its first `profile_calls` calls run the
instrumented copy imperatively (recording the profile). Later calls look for a
specialization whose host-side guards hold and run its graph; when none does,
janus generates one (generalizing the plan where the same assumption keeps
failing), or runs the call eagerly when it cannot. A failing in-graph guard
aborts the graph before any variable or heap change and the call reruns eagerly.
"""
from __future__ import annotations

import collections
import functools
import re
import threading
import time
import warnings

import tensorflow as tf

from janus import cache, events
from janus.config import Config, config as global_config
from janus.errors import ConversionError, FallbackCategory, JanusFallbackError
from janus.fallback.mixed import MixedRuntime
from janus.graphgen.plan import Plan, plan_from_profile
from janus.graphgen.sources import evaluate
from janus.graphgen import xla
from janus.graphgen.specialize import Specialization, generate
from janus.profiler import Profile, describe_value, profile_call
from janus.recursion.table import NoCase
from janus.stats import Stats
from janus.transform import convert

_GUARD_TAG = re.compile(r"janus-guard-(\d+)")


class JanusWarning(UserWarning):
    """janus gave up on something: it says so once per function."""


class JitFunction:
    """One jitted user function: its profile, its specializations, its counters.

    Use `janus.jit(fn)`; as a method decorator it binds like a function
    (`BoundJitFunction`). Calls of one JitFunction are serialized by a lock.
    """

    def __init__(self, fn, **options):
        self.__janus_function__ = fn
        self.fn = fn
        functools.update_wrapper(self, fn)
        global_config.replace(**options)  # validates option names
        self.options = options
        self.stats = Stats()
        self._lock = threading.RLock()
        self._reset_state()

    def _reset_state(self):
        self.profile = Profile(self.config.max_profile_values)
        self.specializations: list[Specialization] = []
        self.plan: Plan | None = None
        self.blocked_plans: set = set()
        self.failure_counts: collections.Counter = collections.Counter()
        self.failures: collections.deque = collections.deque(maxlen=64)
        self.unsupported: ConversionError | None = None
        self.last_decision = "not called yet"
        self._warned: set = set()
        self._next_id = 0
        self._expected_inputs: list = []
        self.plan_history: list[Plan] = []
        self.last_failure_reason = ""
        self._warm_graph = None  # set by a warm start: another process's recorded graph

    @property
    def config(self) -> Config:
        """The process-wide config with this function's options applied (read per call,
        so changes to `janus.config` take effect at once)."""
        return global_config.replace(**self.options) if self.options else global_config

    def reset(self) -> None:
        """Forget profiles, graphs and counters."""
        with self._lock:
            self.stats = Stats()
            self._reset_state()

    # -- binding as a method
    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return BoundJitFunction(self, obj)

    # -- the call
    def __call__(self, *args, **kwargs):
        cfg = self.config
        if cfg.disabled or tf.inside_function():
            return self.fn(*args, **kwargs)
        with self._lock:
            self.stats.calls += 1
            if self.unsupported is not None:
                return self._eager(args, kwargs, FallbackCategory.UNSUPPORTED,
                                   self.unsupported.describe())
            if self.profile.calls == 0:
                cache.warm_start(self)  # a later process: restore profile + plan, skip profiling
            if self.profile.calls < cfg.profile_calls:
                return self._profile(args, kwargs)
            return self._dispatch(args, kwargs, cfg)

    def _env(self, args, kwargs):
        return (args, kwargs, self.fn.__globals__, self.fn.__closure__ or ())

    def _converted(self):
        try:
            return convert(self.fn)
        except ConversionError as exc:
            self.unsupported = exc
            return None

    def _converted_quietly(self):
        try:
            return convert(self.fn)
        except ConversionError:
            return None

    def _profile(self, args, kwargs):
        converted = self._converted()
        if converted is None:
            return self._eager(args, kwargs, FallbackCategory.UNSUPPORTED,
                               self.unsupported.describe())
        start = time.perf_counter()
        try:
            self.last_decision = "profiled (runs imperatively while janus records)"
            return profile_call(converted, self.profile, args, kwargs)
        finally:
            self.stats.profile_calls += 1
            self.stats.time_profiling += time.perf_counter() - start
            events.emit("profiled", self, self.profile)

    def _dispatch(self, args, kwargs, cfg: Config):
        start = time.perf_counter()
        misses = []
        for spec in self.specializations:
            failed = spec.guards.check(args, kwargs)
            if failed < 0:
                self.stats.time_guards += time.perf_counter() - start
                if spec is not self.specializations[0]:
                    self.specializations.remove(spec)
                    self.specializations.insert(0, spec)
                return self._run_graph(spec, args, kwargs, cfg)
            misses.append((spec, failed))
        self.stats.time_guards += time.perf_counter() - start
        if self.plan is None:
            self.plan = plan_from_profile(self.profile)
            if self.plan != Plan():  # if the general graph fails, retreat to specialized ones
                self.plan_history = [Plan()]
        if misses:
            spec, failed = misses[0]
            self._host_guard_failed(spec, spec.guards.guards[failed], args, kwargs, cfg)
        if len(self.specializations) >= cfg.max_specializations:
            self._warn_once("limit", f"{self.__qualname__}: {cfg.max_specializations} "
                            "specializations made and none fits this call; it runs eagerly. "
                            "Raise janus.config.max_specializations if this is expected.")
            return self._eager(args, kwargs, FallbackCategory.LIMIT,
                               "specialization limit reached")
        spec = self._generate(args, kwargs, cfg)
        if spec is None:
            return self._eager(args, kwargs, FallbackCategory.UNSUPPORTED,
                               self.unsupported.describe() if self.unsupported else
                               self.last_failure_reason)
        return self._run_graph(spec, args, kwargs, cfg)

    def _generate(self, args, kwargs, cfg: Config):
        converted = self._converted()
        if converted is None:
            return None
        if self._warm_graph is not None:
            recorded, self._warm_graph = self._warm_graph, None
            from janus.cache import portable
            start = time.perf_counter()
            spec = portable.load(recorded, args, kwargs, self._env(args, kwargs), self._next_id,
                                 self.plan, converted)
            self.stats.time_generating += time.perf_counter() - start
            if spec is not None:
                self._next_id += 1
                self.specializations.insert(0, spec)
                self.last_decision = "graph loaded from the cache"
                events.emit("generated", self, spec)
                return spec
        start = time.perf_counter()
        try:
            spec = generate(self._next_id, converted, self.plan, self.profile, args, kwargs,
                            self._env(args, kwargs), self._expected_inputs)
        except Exception as exc:  # noqa: BLE001 - any trace failure means: run eagerly
            self.stats.generation_failures += 1
            exc = _known_limit(exc)
            self.last_failure_reason = _explain_exception(exc, converted)
            events.emit("generation_failed", self, self.last_failure_reason)
            if cache.abandoned_warm_start(self):
                return None  # the warm-start profile did not fit: profile afresh
            retreated = bool(self.plan_history)
            if retreated:  # the general graph failed: back to the more specialized plan
                self.blocked_plans.add(self.plan)
                self.plan = self.plan_history.pop()
            if self.stats.generation_failures >= cfg.max_generation_failures or \
                    isinstance(exc, ConversionError) and not retreated and \
                    not self.specializations:
                self.unsupported = exc if isinstance(exc, ConversionError) else \
                    _Reason(self.last_failure_reason)
                self._warn_once("giveup", f"janus gives up on {self.__qualname__} and runs it "
                                f"eagerly from now on: {self.last_failure_reason}")
                events.emit("gave_up", self, self.last_failure_reason)
            return None
        finally:
            self.stats.time_generating += time.perf_counter() - start
        self._next_id += 1
        self.stats.generations += 1
        self._expected_inputs = spec.inputs
        self.specializations.insert(0, spec)
        events.emit("generated", self, spec)
        return spec

    def _run_graph(self, spec: Specialization, args, kwargs, cfg: Config):
        runner = spec.trial.runner(spec) if spec.trial is not None else spec
        start = time.perf_counter()
        try:
            if runner is not spec:
                try:
                    result = runner.run(args, kwargs, self._env(args, kwargs))
                except (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError,
                        tf.errors.InternalError) as exc:
                    if spec.trial.compiled:
                        raise  # it compiled and ran before: a real error of this call
                    spec.trial.failed(spec, exc)  # compilation failed: nothing ran
                    runner = spec
                    result = spec.run(args, kwargs, self._env(args, kwargs))
            else:
                result = spec.run(args, kwargs, self._env(args, kwargs))
        except NoCase as exc:
            # A structure the SubGraph does not cover: learn it by profiling this call.
            self.failure_counts[("recursion", spec.id)] += 1
            self.stats.guard_failures[f"node structure: {exc}"] += 1
            self.failures.append(("node structure covered by the SubGraph", str(exc)))
            self.specializations.remove(spec)
            if self.config.strict:
                raise JanusFallbackError(f"{self.__qualname__}: {exc}") from None
            self.stats.fallback_calls += 1
            self.stats.fallback_reasons[FallbackCategory.GUARD_FAILURE.value] += 1
            events.emit("fallback", self, FallbackCategory.GUARD_FAILURE, str(exc))
            self.last_decision = f"eager (guard failure): {exc}; profiled to learn it"
            converted = self._converted()
            return profile_call(converted, self.profile, args, kwargs)
        except tf.errors.InvalidArgumentError as exc:
            match = _GUARD_TAG.search(str(exc))
            if match is None:  # an op failed: plain Python raises (or not) as it would
                return self._eager(args, kwargs, FallbackCategory.GUARD_FAILURE,
                                   f"graph op failed: {str(exc).splitlines()[0]}")
            guard = spec.in_graph[int(match.group(1))]
            self._in_graph_guard_failed(spec, guard, cfg)
            # The eager rerun is profiled: the next graph learns what this call did.
            return self._eager(args, kwargs, FallbackCategory.GUARD_FAILURE, guard.describe(),
                               profiled=True)
        except Exception as exc:  # noqa: BLE001
            if spec.portable is None or spec.calls:
                raise
            # a graph recorded by another process that does not run here: drop it, go on
            self.specializations.remove(spec)
            return self._eager(args, kwargs, FallbackCategory.UNSUPPORTED,
                               f"the recorded graph does not run here ({type(exc).__name__})")
        spec.calls += 1
        self.stats.graph_calls += 1
        elapsed = time.perf_counter() - start
        if spec.trial is not None:
            spec.trial.record(elapsed)
            if spec.trial.done:
                spec.trial.conclude(spec)
        elif cfg.xla and spec.calls >= 5 and xla.eligible(spec):
            self._start_xla_trial(spec, args, kwargs)
        spec.time_graph += elapsed
        self.stats.time_graph += elapsed
        events.emit("graph_run", self, spec, elapsed)
        self.last_decision = f"graph (specialization #{spec.id})"
        return result

    def _start_xla_trial(self, spec: Specialization, args, kwargs):
        try:
            candidate = generate(spec.id, spec.converted, spec.plan, self.profile, args, kwargs,
                                 self._env(args, kwargs), spec.inputs, jit_compile=True)
        except Exception as exc:  # noqa: BLE001 - no XLA variant: keep the plain graph
            spec.xla = f"off (could not build: {type(exc).__name__})"
            return
        spec.trial = xla.XlaTrial(candidate)

    # -- failures and the generalization ladder
    def _record_failure(self, spec, guard, actual: str):
        self.failure_counts[guard.key] += 1
        spec.failures[guard.describe()] += 1
        self.stats.guard_failures[guard.describe()] += 1
        self.failures.append((guard.describe(), actual))
        events.emit("guard_failed", self, spec, guard, actual)
        return self.failure_counts[guard.key]

    def _host_guard_failed(self, spec, guard, args, kwargs, cfg):
        try:
            value = evaluate(guard.source, *self._env(args, kwargs))
            actual = repr(describe_value(value))
        except Exception as exc:  # noqa: BLE001
            value, actual = None, f"unreadable ({type(exc).__name__})"
        count = self._record_failure(spec, guard, actual)
        # A Python number that changed once (a step counter, a decayed rate) most likely
        # keeps changing: it becomes a tensor input at once, not after a second graph.
        number = guard.kind == "value" and type(guard.expected) in (int, float)
        if count >= (1 if number else cfg.failures_to_generalize):
            self._generalize(_generalized(self.plan, guard, value, spec))

    def _in_graph_guard_failed(self, spec, guard, cfg):
        count = self._record_failure(spec, guard, f"{not guard.expected}")
        if count >= cfg.failures_to_generalize:
            self._generalize(self.plan.with_general_branch(guard.key[1:]))
            if spec in self.specializations:
                self.specializations.remove(spec)

    def _generalize(self, plan):
        if plan is None or plan == self.plan or plan in self.blocked_plans:
            return
        self.plan_history = self.plan_history + [self.plan]
        events.emit("generalized", self, self.plan, plan)
        self.plan = plan

    def _eager(self, args, kwargs, category: FallbackCategory, reason: str,
               profiled: bool = False):
        if self.config.strict:
            raise JanusFallbackError(f"{self.__qualname__}: would run eagerly ({category.value}): "
                                     f"{reason}")
        self.last_decision = f"eager ({category.value}): {reason}"
        events.emit("fallback", self, category, reason)
        self.stats.fallback_calls += 1
        self.stats.fallback_reasons[category.value] += 1
        start = time.perf_counter()
        try:
            if profiled:
                converted = self._converted()
                if converted is not None:
                    return profile_call(converted, self.profile, args, kwargs)
            elif category is FallbackCategory.UNSUPPORTED and self.config.mixed:
                # Converted code exists: run it eagerly, its callees as their own graphs.
                converted = self._converted_quietly()
                if converted is not None:
                    runtime = MixedRuntime.for_function(converted)
                    return converted.instantiate(runtime)(*args, **kwargs)
            return self.fn(*args, **kwargs)
        finally:
            self.stats.time_fallback += time.perf_counter() - start

    def _warn_once(self, key: str, message: str):
        if key not in self._warned:
            self._warned.add(key)
            warnings.warn(message, JanusWarning, stacklevel=4)

    # -- introspection
    def explain(self, *args, **kwargs) -> str:
        """What janus would do for a call with these arguments, and why."""
        lines = [f"janus: {self.__qualname__}", f"  {self.stats}"]
        if self.unsupported is not None:
            lines.append(f"  runs eagerly (unsupported construct): {self.unsupported.describe()}")
        elif self.profile.calls < self.config.profile_calls:
            lines.append(f"  profiling: {self.profile.calls}/{self.config.profile_calls} calls")
        if args or kwargs:
            verdict = "no specialization fits: the next call generates one or runs eagerly"
            for spec in self.specializations:
                failed = spec.guards.check(args, kwargs)
                if failed < 0:
                    verdict = f"runs as graph: specialization #{spec.id}"
                    break
                lines.append(f"  specialization #{spec.id} does not fit: guard failed: "
                             f"{spec.guards.guards[failed].describe()}")
            if self.unsupported is None:
                lines.append(f"  this call: {verdict}")
        lines.append(f"  last call: {self.last_decision}")
        for spec in self.specializations:
            lines.append("  " + spec.describe().replace("\n", "\n  "))
        for what, actual in list(self.failures)[-5:]:
            lines.append(f"  failed: {what} (actual: {actual})")
        return "\n".join(lines)


class _Reason(ConversionError):
    """A trace failure already described in full (location and hint included)."""

    def __init__(self, text: str):
        self.text = text
        Exception.__init__(self, text)

    def describe(self) -> str:
        return self.text


class BoundJitFunction:
    """A jitted function bound to an instance (`model.step`)."""

    def __init__(self, jit: JitFunction, obj):
        self.__self__ = obj
        self.__janus_function__ = jit.fn
        self.jit = jit

    def __call__(self, *args, **kwargs):
        return self.jit(self.__self__, *args, **kwargs)

    def explain(self, *args, **kwargs) -> str:
        return self.jit.explain(self.__self__, *args, **kwargs)

    @property
    def stats(self) -> Stats:
        return self.jit.stats


def _generalized(plan: Plan, guard, value, spec):
    """The next rung of the ladder for a host guard that keeps failing, or None."""
    expr = guard.source.expr
    if guard.kind == "len" and expr in spec.appended_only:
        return plan.with_append_only(expr)
    if guard.kind == "value" and type(guard.expected) in (int, float) and \
            type(value) is type(guard.expected):
        return plan.with_scalar(expr)
    if guard.kind == "tensor" and tf.is_tensor(value) and hasattr(value, "shape"):
        dtype, shape = guard.expected
        if value.dtype.name == dtype and len(value.shape) == len(shape):
            dims = [i for i, (a, b) in enumerate(zip(shape, value.shape)) if a != b]
            return plan.with_dynamic_dims(expr, dims)
    if guard.kind == "tensor_list" and isinstance(value, list) and value and tf.is_tensor(value[0]):
        dtype, shape = guard.expected
        dims = [i for i, (a, b) in enumerate(zip(shape, value[0].shape)) if a != b]
        return plan.with_dynamic_dims(expr + "[*]", dims)
    if guard.kind == "len" and isinstance(value, list) and value and \
            all(tf.is_tensor(v) for v in value):
        return plan.with_dynamic_list(expr)
    return None


def _known_limit(exc: Exception) -> Exception:
    """Trace failures that no other graph would avoid, said plainly (as ConversionError)."""
    text = str(exc)
    if isinstance(exc, AttributeError) and "'numpy'" in text:
        reason = "calls .numpy() on a tensor (a graph has no values while it is built)"
    elif isinstance(exc, NotImplementedError) and "numpy" in text:
        reason = "passes a tensor to numpy (numpy needs values a graph does not have yet)"
    elif isinstance(exc, TypeError) and "symbolic" in text.lower() and "numpy" in text:
        reason = "converts a tensor to a numpy/Python value"
    else:
        return exc
    error = ConversionError(reason)
    error.__traceback__ = exc.__traceback__
    return error


def _explain_exception(exc: Exception, converted) -> str:
    """The reason a trace failed, located at the innermost line of user code."""
    import traceback
    user_frame = None
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if "/janus/" not in frame.filename and "site-packages" not in frame.filename and \
                not frame.filename.startswith("<"):
            user_frame = frame
            break
    if isinstance(exc, ConversionError):
        if exc.lineno == 0 and user_frame is not None:
            exc.located(user_frame.name, user_frame.filename, user_frame.lineno)
        return exc.describe()
    where = ""
    if user_frame is not None:
        where = f" at {user_frame.filename}:{user_frame.lineno} (`{(user_frame.line or '').strip()}`)"
    message = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {message}{where}; this function runs eagerly"


def jit(fn=None, **options):
    """Make `fn` run as specialized TensorFlow graphs (decorator or call).

    Options override `janus.config` for this function: profile_calls,
    max_specializations, failures_to_generalize, max_generation_failures, strict.
    """
    if fn is None:
        return lambda f: jit(f, **options)
    if isinstance(fn, JitFunction):
        return fn
    if not callable(fn):
        raise TypeError(f"janus.jit expects a function, got {type(fn).__name__}")
    import types
    if not isinstance(fn, (types.FunctionType, types.MethodType)):
        call = type(fn).__call__
        bound = JitFunction(call, **options)
        return BoundJitFunction(bound, fn)
    if isinstance(fn, types.MethodType):
        return BoundJitFunction(JitFunction(fn.__func__, **options), fn.__self__)
    return JitFunction(fn, **options)
