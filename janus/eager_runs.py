"""How a call janus does not run as a graph runs: profiled, split at graph breaks, mixed
or plainly (a mixin of `JitFunction`).

`_eager` takes the decision (`EagerRun`: a category, a reason and a mode) and runs the
call that way, with the event, the counters and the settled mark (fallback/settled.py);
the user's exceptions propagate as they are. `_raised_in_trace` and `_quietly` run
plainly the calls whose traces raised the call's own error (generation.py's quiet while).
"""
from __future__ import annotations

import time

from janus import events
from janus.config import Config
from janus.errors import EagerRun as _Eager, FallbackCategory, JanusFallbackError, detached
from janus.fallback import safety, segmented, settled
from janus.fallback.mixed import MixedRunner
from janus.generation import RaisedInTrace, call_key
from janus.inconclusive_tries import ThreadWait
from janus.profiler import profile_call
from janus.recursion import limits
from janus.transform import convert


class EagerRuns:
    """Running calls without a graph (see the module docstring)."""

    def _raised_in_trace(self, step: RaisedInTrace, args, kwargs, cfg: Config):
        """Run plainly a call whose trace raised; tell the generation whether plain
        Python raised the same (`Generation.after_raised`)."""
        step.error = detached(step.error)  # (its frames: the trace's objects, and the
        # frame holding `step`, a cycle: let go before the plain run, F441)
        start = time.perf_counter()
        try:
            result = self._eager(args, kwargs, step)
        except Exception as exc:
            self.after_raised(step, exc, cfg, time.perf_counter() - start,
                              call_key(args, kwargs))
            raise
        self.after_raised(step, None, cfg)
        return result

    def _quietly(self, args, kwargs, step: _Eager):
        """Run plainly a call that would trace after traces of calls like it raised the
        call's own error; one that returns may end the while (generation.py
        `RAISED_SHARE`)."""
        result = self._eager(args, kwargs, step)
        quiet = self.raise_quiet
        if quiet is not None and quiet[0] <= quiet[1]:
            quiet[0] = 0
        return result

    def _eager(self, args, kwargs, step: _Eager):
        with self._lock:
            if self.config.strict and step.category is not FallbackCategory.INTERNAL:
                raise JanusFallbackError(f"{self.__qualname__}: would run eagerly "
                                         f"({step.category.value}): {step.reason}")
            mode = step.mode
            if mode == "profiled":
                if self._busy:
                    mode = "plain"  # another thread profiles: do not wait for it
                else:
                    self._busy = True
            self.last_decision = f"eager ({step.category.value}): {step.reason}"
            announced = (step.category, step.reason, events.version())
            if announced != self._last_fallback or events.hears_repeats("fallback"):
                self._last_fallback = announced  # (a listener of each repeat hears them all)
                events.emit("fallback", self, step.category, step.reason)
            self.stats.fallback_calls += 1
            self._count(self.stats.fallback_reasons, step.category.value)
        start = time.perf_counter()
        try:
            if mode == "profiled":
                try:
                    converted = self._converted_quietly()
                    if converted is None:
                        return limits.plain_call(self.fn, args, kwargs, self._own_frames)
                    return safety.run_watched(self, "profiling a fallback", lambda: profile_call(
                        converted, self.profile, args, kwargs, safety.WatchedProfileRuntime),
                        args, kwargs)
                finally:
                    with self._lock:
                        self._busy = False
                        self._check_profile_bounds()
                        if isinstance(step, ThreadWait):
                            self.after_thread_wait(step)
            if mode == "mixed" and self.config.segments and \
                    step.category is FallbackCategory.UNSUPPORTED:
                split = segmented.of(self)
                if split is not None:  # the user's exceptions propagate as they are
                    return split(*args, **kwargs)
            if mode == "mixed" and self.config.mixed and \
                    step.category is FallbackCategory.UNSUPPORTED:
                # Converted code exists: run it eagerly, its callees as their own graphs.
                runner = self._mixed_runner
                if runner is None:
                    converted = self._converted_quietly()
                    if converted is not None:
                        runner = self._mixed_runner = MixedRunner(
                            self, converted, "running mixed", self.fn)
                if runner is not None:
                    return runner(*args, **kwargs)
            return limits.plain_call(self.fn, args, kwargs, self._own_frames)  # (plain Python's room: F349)
        finally:
            with self._lock:
                self.stats.time_fallback += time.perf_counter() - start
                settled.settle(self, step, self.config)

    def _converted_quietly(self):
        try:
            return convert(self.fn)
        except Exception:  # noqa: BLE001 - already reported when it first failed
            return None
