"""The profiling runtime: plain Python semantics, plus a record of each site.

It runs the converted (instrumented) copy of the function; calls into other user
functions run their instrumented copies too, so the profile covers callees.
"""
from __future__ import annotations

import threading
import types

import gast
import numpy as np

from janus.config import config
from janus.errors import ConversionError, JanusInternalError
from janus.fallback.agreement import multi_worker_strategy
from janus.graphgen import layer_calls, refusals
from janus.profiler import thread_writes
from janus.profiler.profile import Profile
from janus.recursion import limits
from janus.recursion.cases import CaseRecorder
from janus.recursion.self_calls import node_argument, passed_on, same_passed_on
from janus.tensors import is_tensor
from janus import number_reads, source as source_mod, user_attributes
from janus.transform import breaks, computed_reads, convert, user_frames
from janus.transform.autograph_callbacks import for_autograph
from janus.transform.pipeline import leave_to_janus
from janus.transform.exit_tests import exit_sites
from janus.transform.runtime import Runtime, user_function, user_partial
from janus.operation_hooks import operation_hook


def _kept_read(converted, site: int, fn, args: tuple) -> bool:
    """Whether `fn(*args)` is the `.numpy()` (or `int()`, `float()`, `bool()`) of a scalar
    tensor at a line where a graph keeps the value as a tensor
    (transform/breaks.in_graph_reads), or a `.numpy()` a numpy draw takes as its `p`
    (breaks.probability_reads) or reduced where it stands (computed_reads.reduced_reads): no
    refusal."""
    if fn is int or fn is float or fn is bool:  # (identity: never the callee's __eq__)
        tensor = args[0] if len(args) == 1 else None
    elif user_attributes.get(fn, "__name__", "") == "numpy" and not args:
        tensor = user_attributes.get(fn, "__self__")
    else:
        return False
    if not is_tensor(tensor):
        return False
    lines = getattr(converted, "kept_read_lines", None)
    if lines is None:
        try:
            node, _ = source_mod.parse_function(converted.original)
        except ConversionError:
            node = None
        kept = breaks.in_graph_reads(node, converted.original.__globals__) if node else set()
        arrays = breaks.probability_reads(node) | computed_reads.reduced_reads(node, kept) \
            if node else set()
        lines = converted.kept_read_lines = tuple(
            frozenset(n.lineno for n in gast.walk(node) if id(n) in ids) if node else
            frozenset() for ids in (kept, arrays))
    lineno = converted.sites[site].lineno
    return lineno in lines[0] if tensor.shape.rank == 0 else \
        not (fn is int or fn is float or fn is bool) and lineno in lines[1]


class ProfileRuntime(Runtime):
    """Hooks that record into `self.profile` (set per call by `profile_call`)."""

    _current = threading.local()  # .profile: shared by all functions of one profiled call

    @property
    def key(self) -> str:
        return self.function.key

    @staticmethod
    def _profiling() -> bool:
        """Whether a profiled call is running on this thread. A function converted code
        made (a lambda) may be called after the call by a library it was handed to (a
        Keras callback, a stored function): then its hooks are plain Python."""
        return getattr(ProfileRuntime._current, "profile", None) is not None

    def _site(self, site):
        record = ProfileRuntime._current.profile.site(self.key, site)
        record.hits += 1
        return record

    @operation_hook
    def test(self, site, value):
        if not self._profiling():
            return super().test(site, value)
        record = self._site(site)
        if is_tensor(value) or type(value) is np.bool_:  # (np.bool_: `t.numpy() == 2`)
            record.tensor_tests += 1
        outcome = bool(value)
        record.outcomes[outcome] += 1
        sequences = ProfileRuntime._current.sequences
        if (self.key, site) not in sequences:
            sequences[(self.key, site)] = record.sequence = []
        if len(record.sequence) < 4096:
            record.sequence.append(outcome)
        return outcome

    @operation_hook
    def loop_test(self, site, value):
        return self.test(site, value)

    # (values: each truth test recorded at its site, as a test's)
    @operation_hook
    def or_value(self, site, value, rest):
        return value if self.test(site, value) else rest()

    @operation_hook
    def and_value(self, site, value, rest):
        return rest() if self.test(site, value) else value

    @operation_hook
    def not_value(self, site, value):
        return not self.test(site, value)

    @operation_hook
    def if_value(self, site, test, if_true, if_false):
        return if_true() if self.test(site, test) else if_false()

    def _mark_exit(self, exit_site) -> None:
        """A loop's exit test (and each operand of an `and`/`or`/`not` one) is a loop exit:
        tensor-valued, it makes the loop general from the first plan (graphgen/exits.py)."""
        profile = ProfileRuntime._current.profile
        tests, operands = exit_sites(self.function.sites, exit_site)
        for site in {exit_site, *tests, *operands}:
            profile.site(self.key, site).loop_exit = True

    def for_stmt(self, site, iterable, body, get_state, set_state, names, exit_site=None,
                 live=(), fresh=()):
        if exit_site is not None and self._profiling():
            self._mark_exit(exit_site)
        return super().for_stmt(site, iterable, body, get_state, set_state, names,
                                exit_site, live, fresh)

    def while_stmt(self, site, test, body, get_state, set_state, names, exit_site=None,
                   live=(), fresh=()):
        if exit_site is not None and self._profiling():
            self._mark_exit(exit_site)
        elif self._profiling():  # (its test's operands: sites of their own)
            profile = ProfileRuntime._current.profile
            for part in (site,) + tuple(self.function.sites[site].parts):
                profile.site(self.key, part).while_test = True
        return super().while_stmt(site, test, body, get_state, set_state, names,
                                  exit_site, live, fresh)

    @operation_hook
    def iterate(self, site, iterable):
        if not self._profiling():
            return super().iterate(site, iterable)
        record = self._site(site)
        kind = type(iterable).__name__
        if is_tensor(iterable):
            kind = "tensor"
        record.iterable_kinds[kind] += 1
        return self._counted(record, iterable)

    @staticmethod
    def _counted(record, iterable):
        count = 0
        for item in iterable:
            count += 1
            yield item
        ProfileRuntime._current.profile._bounded_add(record.trip_counts, count)

    @operation_hook
    def ld_attr(self, obj, name):
        if not self._profiling():
            return super().ld_attr(obj, name)
        value = getattr(obj, name)
        current = ProfileRuntime._current
        if not isinstance(obj, types.ModuleType):
            current.profile.record_attribute(obj, name, value, write=False)
        if number_reads.is_number(value) or type(value) is list:
            _read_number(current.profile, number_reads.holder_of(obj), name, value)
        # A read belongs to the innermost invocation of a recursive function (and the
        # helpers it called), not to its ancestors.
        for function, recorder in reversed(current.frames):
            if recorder is not None:
                recorder.read(obj, name, value)
            if function in current.profile.recursive:
                break
        return value

    @operation_hook
    def ld_global(self, name, value):
        if (number_reads.is_number(value) or type(value) is list) and self._profiling():
            _read_number(ProfileRuntime._current.profile,
                         self.function.original.__globals__, name, value)
        return super().ld_global(name, value)

    @operation_hook
    def ld_item(self, obj, key):
        value = super().ld_item(obj, key)
        if type(obj) is dict and (number_reads.is_number(value) or type(value) is list) and \
                self._profiling():
            _read_number(ProfileRuntime._current.profile, obj, key, value)
        return value

    @operation_hook
    def st_attr(self, obj, name, value):
        if not self._profiling():
            return super().st_attr(obj, name, value)
        ProfileRuntime._current.profile.record_attribute(obj, name, value, write=True)
        setattr(obj, name, value)

    @operation_hook
    def call(self, site, fn, /, *args, **kwargs):
        if not self._profiling():
            return super().call(site, fn, *args, **kwargs)
        if user_partial(fn):
            return self.call(site, fn.func, *fn.args, *args, **{**fn.keywords, **kwargs})
        record = self._site(site)
        target, bound_self = user_function(fn)
        current = ProfileRuntime._current
        strategy = multi_worker_strategy(fn)
        if strategy is not None:
            current.profile.collective_strategy = strategy
        refused = refusals.call_reason(fn, args, kwargs) if target is None else ""
        if refused and _kept_read(self.function, site, fn, args):
            refused = ""
        if refused:
            where = self.function.sites[site]
            location = (where.function, where.filename, where.lineno)
            outer = getattr(current, "outer_site", None)
            if outer is not None:  # in a callee: the profiled function's calling line
                # (the line its split can break: F485), the callee's named in the reason
                refused = f"{refused} (in {where.function}, line {where.lineno})"
                location = outer
            current.profile.record_refusal((self.key, site), refused, location)
        current.profile._bounded_add(
            record.callees, getattr(target or fn, "__qualname__", type(fn).__name__))
        if target is None:
            leave_to_janus(args, kwargs)
            args, kwargs = for_autograph(fn, args, kwargs)  # (`ds.map(lambda ...)`: F248)
            where = self.function.sites[site]
            with layer_calls.converted_calls(self, site, fn), current.looks.call(
                    (self.key, site), (where.function, where.filename, where.lineno),
                    fn, args, kwargs):  # (another thread's meanwhile: F470)
                return user_frames.call(fn, args, kwargs)  # (a logging call: the user's frame)
        try:
            converted = convert(target)
        except Exception as exc:  # noqa: BLE001 - unconvertible (or a conversion bug)
            if not isinstance(exc, ConversionError) and config.raise_internal_errors:
                raise JanusInternalError(f"converting {target.__qualname__} failed") from exc
            return limits.callee_call(fn, args, kwargs)  # either way it runs plainly (F368)
        instance = type(self).for_function(converted).function_instance()
        outermost = getattr(current, "outer_site", None) is None
        if outermost:
            where = self.function.sites[site]
            current.outer_site = (where.function, where.filename, where.lineno)
        try:
            return _invocation(current, converted.key, instance, bound_self, args, kwargs)
        except RecursionError:
            limits.note()  # (the user's code may catch it: recursion/limits.py)
            raise
        finally:
            if outermost:
                current.outer_site = None

    def function_instance(self):
        return self.function.instantiate(self)


def profile_call(converted, profile: Profile, args: tuple, kwargs: dict,
                 runtime: type | None = None):
    """Run one call of `converted` imperatively while recording into `profile`
    (under `runtime`, a ProfileRuntime subclass, if given)."""
    current = ProfileRuntime._current
    previous = getattr(current, "profile", None)
    current.profile = profile
    previous_sequences = getattr(current, "sequences", None)
    current.sequences = {}
    previous_frames = getattr(current, "frames", None)
    current.frames = []
    previous_outer = getattr(current, "outer_site", None)
    current.outer_site = None  # (the profiled function's own line calling a callee)
    previous_looks = getattr(current, "looks", None)
    current.looks = looks = thread_writes.Looks(converted.original, args, kwargs)
    try:
        profile.record_call(args, kwargs)
        runtime = runtime or ProfileRuntime
        # (the jitted function's own invocation is a frame too: `enc(I(L, L))` calling
        # `enc(L)` is recursion, learned from a tree one level deep)
        return _invocation(current, converted.key,
                           runtime.for_function(converted).function_instance(), None,
                           args, kwargs)
    finally:
        looks.record(profile)  # (also of a call that raised: it counts as profiled)
        current.looks = previous_looks
        for key, sequence in current.sequences.items():
            record = profile.sites.get(key)
            if record is not None and len(record.sequences) < profile.max_values:
                record.sequences.add(tuple(sequence))
        current.profile = previous
        current.sequences = previous_sequences
        current.frames = previous_frames
        current.outer_site = previous_outer


def _read_number(profile: Profile, holder, name, value) -> None:
    """A heap number (or list: its length) the profiled call read (janus/number_reads.py)."""
    if type(value) is list:
        name, value = (number_reads.LENGTH, name), len(value)
    number_reads.of(profile).read(profile.calls, holder, name, value)


def _invocation(current, name: str, instance, bound_self, args: tuple, kwargs: dict):
    """Run one invocation of the user function `name` as a frame of the profiled call:
    a call by itself on a node its own node argument led to makes it recursive; a
    recursive function's invocations each record their Case (recursion/cases.py)."""
    profile = current.profile
    node_index = node_argument(args)
    frames = current.frames
    passed = passed_on(args, node_index, bound_self) if node_index is not None else ()
    if frames and frames[-1][0] == name and node_index is not None:
        profile.self_calls.add(name)
        caller = frames[-1][1]
        if name not in profile.unbatchable and caller is not None and \
                caller.recurse(args[node_index]):
            if kwargs or not same_passed_on(caller.passed, passed):
                # (a batched run gives every invocation its root's other arguments)
                profile.recursive.pop(name, None)
                profile.unbatchable[name] = "its recursive calls pass other arguments " \
                    "than its own besides the node"
            else:
                profile.recursive[name] = node_index
    recorder = CaseRecorder(args[node_index], passed) if node_index is not None else None
    frames.append((name, recorder))
    try:
        if bound_self is not None:
            result = instance(bound_self, *args, **kwargs)
        else:
            result = instance(*args, **kwargs)
    finally:
        frames.pop()
    if recorder is not None and name in profile.recursive:
        try:
            profile.add_case(name, recorder.case(result))
        except (TypeError, ValueError, AttributeError) as exc:
            # not batchable (e.g. tensors in the structure): recursion is then inlined
            profile.recursive.pop(name, None)
            profile.unbatchable[name] = str(exc)
    return result
