"""A Specialization: one generated graph, the guards it relies on, and how to feed it
and write its results back. `generate` makes one by tracing the converted function
under a plan, on the arguments of the call at hand.
"""
from __future__ import annotations

import collections
import dataclasses
import time

import tensorflow as tf

from janus.errors import BuildsOnFirstCall, ConversionError, InconclusiveTrace, cause_of
from janus.fallback import heap
from janus.graphgen import ambient_summary, caller_scopes, keras_globals
from janus.graphgen import adopted_trace, bias_gradients, calls, checks, conversion_functions, dead_ends, \
    eager_constants, eager_iterators, \
    external_effects, host_draws, keras_state, keyed_writes, leftover_tensors, number_lists, \
    random_draws, trace_warnings, varying_numbers
from janus.graphgen.caller_tape import TapeView
from janus.graphgen.defaults import check_defaults, guard_own_defaults
from janus.graphgen.guards import GuardSet, InGraphGuard, call_guard
from janus.graphgen.plan import Plan
from janus.graphgen.runtime import TraceRuntime
from janus.graphgen.sources import Source, arg, environment, kwarg
from janus.graphgen.tracer import VaryingRole
from janus.graphgen.append_only import UnfedLength
from janus.graphgen.values import FedScalarMisuse, WrappedByTracker
from janus.recursion.subgraph import SubGraph
from janus.recursion.table import compile_builder
from janus.operation_hooks import operation_hook

_MAX_TRACES = 4
_MAX_PROMOTIONS = 4  # retraces that feed roles found varying (graphgen/tracer.py)


@dataclasses.dataclass
class Specialization:
    id: int
    plan: Plan
    guards: GuardSet
    in_graph: list[InGraphGuard]
    inputs: list[tuple[Source, str, tuple]]
    concrete: object  # tf ConcreteFunction
    feed: object      # (args, kwargs) -> list of tensors
    result: tuple     # skeleton of the return value
    effects: list     # heap.Effect, in program order
    generation_time: float
    converted: object = None  # the ConvertedFunction traced (its .code is the generated source)
    subgraphs: tuple = ()     # recursion.subgraph.SubGraph run by this graph
    xla: str = ""             # the XLA decision, once made (see graphgen/xla.py)
    trial: object = None      # an XlaTrial under way
    accelerated: object = None  # the XLA variant kept (graphgen/xla.py)
    plain: str = ""           # graph or plain Python, once decided (graphgen/plain_trial.py)
    plain_trial: object = None  # its PlainTrial: under way, or watching a plain decision
    runs_plain: bool = False  # decided plain: the calls it fits run the function plainly
    plain_retry_at: int = -1  # the next call asking plain_trial.eligible (a later window,
    # a close graph decision measured again)
    window_times: list = dataclasses.field(default_factory=list)  # ... that window's calls
    plain_calls: int = 0      # calls it ran plainly (trial calls included)
    appended_only: frozenset = frozenset()  # heap lists this graph only appends to
    length_only: frozenset = frozenset()  # heap lists whose length alone this graph reads
    untouched: frozenset = frozenset()  # heap lists copied, never read nor changed
    functions: tuple = ()     # every ConvertedFunction traced into the graph
    loop_gradients: tuple = ()  # what its loops' lists' gradients became (loop_gradients.py)
    tables: dict = dataclasses.field(default_factory=dict)  # recursion: fn -> (roots, cases)
    portable: dict | None = None  # set when loaded from another process's record
    record_id: str = ""       # its cache record id, when loaded from the cache
    context: tuple = ()       # the tf.distribute context traced in (graphgen/distribute.py)
    distributed: bool = False  # the graph calls tf.distribute (never recorded in the cache)
    collective_strategy: object = None  # ... a strategy spanning workers (fallback/agreement.py)
    random_states: tuple = ()  # tf.random.Generator states the graph moves (see `saved_states`)
    draws: dict = dataclasses.field(default_factory=dict)  # numpy RNG source expr -> uniforms
    caller_tape: TapeView | None = None  # see `tape_view`
    visible_outputs: int | None = None  # the graph's outputs a caller sees (then dead ends)
    calls: int = 0
    last_call: int = 0  # the function's call count when it last ran a call (graph or plain)
    time_graph: float = 0.0
    failures: collections.Counter = dataclasses.field(default_factory=collections.Counter)

    def run(self, args: tuple, kwargs: dict, env: tuple):
        results = self.call(self.feed(args, kwargs))
        if not isinstance(results, (list, tuple)):
            results = [results]
        return heap.write_back(self.effects, self.result, results, env)

    @operation_hook
    def call(self, inputs: list):
        """The graph (or its XLA variant, where kept) on the feed's inputs (see
        graphgen/calls.py)."""
        if self.accelerated is not None:
            return self.accelerated.call(inputs)
        return calls.call_graph(self.concrete, inputs)

    def captured_call(self):
        """`call(inputs, captured)`: the graph with its captured inputs replaced (a caller's
        tape: graphgen/caller_tape.py), or None where it runs otherwise."""
        if self.accelerated is not None or not calls.calls_flat(self.concrete):
            return None
        return lambda inputs, captured: calls.call_graph(self.concrete, inputs, captured)

    def tape_view(self) -> TapeView:
        """The graph as a caller's tape sees it (graphgen/caller_tape.py): found on the
        first call a tape may record."""
        if self.caller_tape is None:
            stacked = [k for k, (_, kind, _) in enumerate(self.inputs) if kind != "tensor"]
            self.caller_tape = TapeView(self.concrete, self.visible_outputs, stacked)
        return self.caller_tape

    def saved_states(self) -> list:
        """The values of the random generators' states this graph moves, before it runs.
        A tf.random.Generator's ops move its state variable themselves, not through
        janus's variable shadows (committed only when every guard held): a graph that
        fails (an in-graph guard, an op) after drawing must put them back before the call
        reruns plainly, or the rerun draws other numbers (fuzz v20, F43)."""
        return [(state, state.read_value()) for state in self.random_states]

    @staticmethod
    def restore_states(saved: list) -> None:
        for state, value in saved:
            state.assign(value)

    def op_histogram(self) -> dict[str, int]:
        counts = collections.Counter()
        def walk(graph_def):
            for node in graph_def.node:
                counts[node.op] += 1
        graph_def = self.concrete.graph.as_graph_def()
        walk(graph_def)
        for fn in graph_def.library.function:
            for node in fn.node_def:
                counts[node.op] += 1
        return dict(counts.most_common())

    def describe(self) -> str:
        lines = [f"specialization #{self.id}: {len(self.guards)} host guards, "
                 f"{len(self.in_graph)} in-graph guards, {len(self.inputs)} inputs, "
                 f"{self.calls} calls"]
        if self.portable is not None:
            lines.append("  loaded from the graph cache (recorded by an earlier process)")
        lines += ["  plan: " + line for line in self.plan.describe()]
        if self.plain:
            lines.append(f"  graph vs plain: {self.plain}" + (
                f"; {self.plain_calls} calls ran plainly" if self.plain_calls else ""))
        if self.xla:
            lines.append(f"  xla: {self.xla}")
        lines += ["  loop gradient: " + note for note in self.loop_gradients]
        lines += ["  guard: " + line for line in self.guards.describe()]
        lines += ["  in-graph guard: " + g.describe() for g in self.in_graph]
        lines += ["  effect: " + e.describe() for e in self.effects]
        for subgraph in self.subgraphs:
            lines += ["  " + line for line in subgraph.describe().splitlines()]
        return "\n".join(lines)


def _compile_feed(inputs, globals_: dict, cells: tuple, tables: dict, guards=(),
                  draws: dict | None = None):
    """`feed(args, kwargs)`: the graph's inputs for a call, read from their sources, as
    tensors of the traced dtypes and shapes (see graphgen/calls.py; `guards` are the
    host guards that already checked some of them). Node tables of recursive calls are
    built here (and raise NoCase on new structures). The code is built from validated
    source paths (`Source.code()`) and table names rendered as string literals; nothing
    else becomes text."""
    vouched = {(g.kind, g.source.expr, _spec_key(g.expected)) for g in guards
               if g.kind in ("tensor", "tensor_list")}
    lines = ["def feed(args, kwargs):"]
    env = {"stack": calls.stack, "checked": calls.checked, "to_tensor": calls.to_tensor,
           "numbers": number_lists.feed,
           "ahead": host_draws.ahead, **environment(globals_, cells)}
    table_vars = {}
    for k, (function, (roots, cases)) in enumerate(tables.items()):
        env[f"BUILD{k}"] = compile_builder(list(cases))
        table_vars[function] = f"table{k}"
        lines.append(f"    table{k} = BUILD{k}([{', '.join(_code(r) for r in roots)}])")
    lines.append("    return [")
    for index, (source, kind, (dtype, shape)) in enumerate(inputs):
        env[f"D{index}"], env[f"S{index}"] = tf.as_dtype(dtype), tuple(shape)
        if kind == "stack":
            if ("tensor_list", _code(source), _spec_key((dtype, tuple(shape)[1:]))) in vouched:
                lines.append(f"        stack({_code(source)}),")
            else:
                lines.append(f"        checked(stack({_code(source)}), D{index}, S{index}),")
        elif kind == "numbers":  # (guarded by its number_list guard: number_lists.py)
            env[f"N{index}"] = str(tf.as_dtype(dtype).name)
            lines.append(f"        numbers({_code(source)}, N{index}),")
        elif kind == "table":
            if type(source) is not Source or not source.is_table:
                raise ValueError(f"not a table input: {source!r:.100}")
            _, function, name = source.root
            env[f"E{index}"] = tf.as_dtype(dtype).as_datatype_enum
            lines.append(f"        to_tensor({table_vars[function]}"
                         f"[{str.__repr__(str(name))}], E{index}),")
        elif kind == "length":  # a list's length (plan.fed_lengths)
            lines.append(f"        checked(len({_code(source)}), D{index}, S{index}),")
        elif kind == "draws":  # a numpy RNG's uniforms, drawn ahead (graphgen/host_draws.py)
            env[f"K{index}"] = int(draws[source.expr])
            lines.append(f"        ahead({_code(source)}, K{index}),")
        elif kind == "tensor":
            if ("tensor", _code(source), _spec_key((dtype, shape))) in vouched:
                lines.append(f"        {_code(source)},")
            else:
                lines.append(f"        checked({_code(source)}, D{index}, S{index}),")
        else:
            raise ValueError(f"unknown input kind {kind!r:.100}")
    lines.append("    ]")
    exec(compile("\n".join(lines), "<janus feed>", "exec"), env)
    return env["feed"]


def _spec_key(spec) -> tuple:
    dtype, shape = spec
    return (str(dtype), tuple(shape))


def _code(source) -> str:
    if type(source) is not Source:
        raise TypeError(f"a graph input read from {source!r:.100}, not from a Source")
    return source.code()



def _refuse_stale_captures(concrete) -> None:
    """A graph that captured a symbolic tensor of another graph (a library function
    holding a value of an earlier trace, as a user's tf.function did before F75) fails
    when called ("out of scope"), a janus error: refused, the call runs plainly."""
    if not tf.executing_eagerly():
        return  # (janus called inside a graph: outer tensors are captured rightly)
    if any(not hasattr(t, "numpy") for t in concrete.captured_inputs):
        raise ConversionError("the graph captured a value of another graph (a library "
                              "function kept a value of an earlier trace)")


def _promoted(plan: Plan, roles: set) -> Plan:
    """`plan` feeding the number roles a trace found varying."""
    for role in sorted(roles):
        plan = plan.with_scalar(role)
    return plan


def _general_exits(tracer) -> set:
    """Loop exits the trace found tensor-valued that its plan does not generalize."""
    return tracer.symbolic_exits - tracer.plan.general_branches


def _with_fed_length(plan: Plan, unfed, blocked: frozenset) -> Plan | None:
    """`plan` with the length of the list `len()` was asked of (`unfed`, an UnfedLength
    or None) fed, or None: not a list of a role it may feed (kept guarded, fed already,
    or that plan's graph failed before)."""
    role = getattr(unfed, "role", None)
    if role is None or role in plan.kept or role in plan.fed_lengths:
        return None
    wider = plan.with_fed_length(role)
    return None if wider in blocked else wider


def _with_general_exits(plan: Plan, tracer) -> Plan:
    for key in sorted(_general_exits(tracer)):
        plan = plan.with_general_branch(key)
    return plan


_CHECKS = frozenset({"Assert", "CheckNumerics", "CheckNumericsV2", "If", "Case", "While",
                     "PartitionedCall", "StatefulPartitionedCall"})


def _checks() -> list:
    """The trace's ops that may stop the graph with an error of the user's own making (a
    `tf.debugging.assert_*`, also inside a cond or a called function): variables change
    only after them, as in eager code, where an assertion that fails stops the function
    before its later updates (fuzz v17, seed 490599)."""
    return [op for op in tf.compat.v1.get_default_graph().get_operations()
            if op.type in _CHECKS]


def _no_new_variables(next_creator, **kwargs):
    """A variable created while janus traces (a Keras layer or optimizer built on its first
    call, which a warm start traces without profiling first) refuses the trace: TF would
    lift it and trace the function again, running the trace's heap effects twice (F39);
    the call runs plainly, which builds it, and the next trace finds it."""
    raise BuildsOnFirstCall("creates a variable while janus traces it (a layer or "
                            "optimizer built on its first call): that call runs plainly")


def generate(spec_id: int, converted, plan: Plan, profile, args: tuple, kwargs: dict,
             env: tuple, expected_inputs: list, blocked: frozenset = frozenset(),
             max_list_items: int = 1000) -> Specialization:
    """Trace `converted` on this call's arguments under `plan` into a graph (`blocked`:
    plans whose graphs failed, which the trace does not generalize into again;
    `max_list_items`: janus.config's, graphgen/number_lists.py)."""
    recorder = trace_warnings.Recorder()
    watch = leftover_tensors.Watch(converted.original, args, kwargs, env)
    try:
        try:
            made = _generate(recorder, watch, spec_id, converted, plan, profile, args,
                             kwargs, env, expected_inputs, blocked, max_list_items)
        except BaseException:
            recorder.forget()
            watch.after_failed_trace()  # (the trace's tensors left in the heap: undone)
            raise
        try:
            watch.check()  # (a tensor of the trace left in the heap: refused, undone)
        except InconclusiveTrace as exc:  # (another thread ran: this call's graph only)
            recorder.forget()
            exc.made = made
            raise
        except BaseException:
            recorder.forget()
            raise
    finally:
        watch.release()  # (its tracers refer back to it: the call's objects die on
        # return, not at the next collection: F440)
    recorder.show()  # (the final trace's warnings, once)
    return made


def _generate(recorder, watch: leftover_tensors.Watch, spec_id: int, converted, plan: Plan,
              profile, args: tuple, kwargs: dict, env: tuple, expected_inputs: list,
              blocked: frozenset, max_list_items: int) -> Specialization:
    start = time.perf_counter()
    runtime = TraceRuntime.for_function(converted)
    instance = converted.instantiate(runtime)
    inputs = list(expected_inputs)
    tables: dict = {}
    promoted: set = set()  # roles fed since the first trace saw their values differ
    traces = promotions = 0
    feeding = varying_numbers.Feeding(profile)  # (numbers the profile saw change)
    while True:
        tracer = feeding.tracer(plan, inputs, tables, env, args, kwargs)
        tracer.stop_at_varying_role = not promotions  # later traces collect every role
        tracer.top_function = converted.original
        tracer.host_arrays = True  # an array read by a graph is fed, never folded (F16)
        tracer.max_list_items = max_list_items
        tracer.functions[id(converted)] = converted
        captured = {}

        def body(*flat):
            tracer.bind_inputs(flat)
            watch.traced(tracer)  # (its graph and the objects it imports: checked after)
            ambient_summary.entered(tracer)  # (tf.summary's state as the call starts)
            keras_globals.entered(tracer)  # (Keras' ambient scopes: the caller's)
            with caller_scopes.entered(tracer), tracer.active(renames=True):  # (the
                # caller's name scope)
                call_args = tuple(tracer.import_value(a, arg(i)) for i, a in enumerate(args))
                call_kwargs = {k: tracer.import_value(v, kwarg(k)) for k, v in kwargs.items()}
                check_defaults(converted.original, call_args, call_kwargs)
                guard_own_defaults(tracer, converted.original, args, kwargs)
                with tf.variable_creator_scope(_no_new_variables):
                    value = instance(*call_args, **call_kwargs)
                tracer.implicit_calls.check()  # (`len(buf)` ran Buf.__len__ unconverted)
                outputs = heap.Outputs()
                captured["result"] = heap.skeleton(value, outputs, tracer)
                captured["effects"] = tracer.ledger.finish(outputs, tracer) + [
                    heap.Effect("draws", stream.source, host_draws.advance_method(stream.rng),
                                heap.skeleton(host_draws.used(stream), outputs, tracer))
                    for stream in tracer.draw_streams.values()]
                checks.flush()
                if checks.unflushed(tracer):
                    raise ConversionError("arithmetic on numbers janus feeds inside a "
                                          "function TensorFlow traces for a library (its "
                                          "exactness checks would be lost)")
                dead = dead_ends.dead_ends(outputs.tensors + tracer.shadow.pending_values())
                dead_ends.after_guards(tracer.assert_ops)
                external_effects.after_guards(tracer.assert_ops)
                with tf.control_dependencies(tracer.assert_ops):
                    results = [tf.identity(t) for t in outputs.tensors]
                # Variables change last: after every guard held and every result exists.
                # (and after every op that may still raise: an unused one too)
                tracer.shadow.commit(tracer.assert_ops + results + dead + _checks())
                captured["visible"] = len(results)  # (the rest only make their ops run)
                return results + dead  # (fetched, never read: see graphgen/dead_ends.py)

        signature = [tf.TensorSpec(shape, dtype) for _, _, (dtype, shape) in inputs]
        bias_gradients.install()
        eager_constants.install()  # (host values converted to constants as eagerly)
        conversion_functions.install()  # (the program's tensor conversion functions)
        eager_iterators.install()  # (a library's eager `next(iterator)` refuses: F431)
        function = tf.function(body, input_signature=signature, autograph=False,
                               reduce_retracing=False)
        try:
            with recorder.tracing():  # (graphgen/trace_warnings.py)
                concrete = function.get_concrete_function()
        except VaryingRole:
            pass
        except Exception as exc:  # noqa: BLE001 - retried below, or raised
            if tracer.whole_lists - plan.itemwise_lists:
                # a list of numbers fed as one tensor was used as only a Python list
                # serves (unpacked, sorted, written): read item by item (F388)
                plan = plan.with_itemwise(tracer.whole_lists)
                continue
            fed = _with_fed_length(plan, cause_of(exc, UnfedLength), blocked)
            if fed is not None and not getattr(tracer, "fed", None):
                # `len()` of a list the plan took as only appended to (another outcome's
                # trace did not read it; a rare branch's does): its length fed (F381).
                # (one this trace took so, the profile saw it grow: the trace is redone
                # specialized, below, and the ladder feeds its length if it keeps growing)
                plan = fed
                continue
            retreat = feeding.retreat(plan, tracer, exc, cause_of(exc, FedScalarMisuse))
            if retreat is not None:  # feeding a number the profile saw change failed
                plan = retreat  # (a count, a shape...): traced with it guarded
                continue
            if _general_exits(tracer) and traces < _MAX_TRACES and \
                    _with_general_exits(plan, tracer) not in blocked:
                traces += 1
                plan = _with_general_exits(plan, tracer)
                continue
            keyed = cause_of(exc, (keyed_writes.KeyedWrite, keyed_writes.WriteOnlyDictRead))
            if keyed is not None:
                # a heap dict written with a key the graph computes: write-only; read
                # after all: copied again, its key's number guarded as before (at most
                # twice per dict: a dict read once is never write-only again)
                wider = plan.with_write_only(keyed.expr) if \
                    isinstance(keyed, keyed_writes.KeyedWrite) else plan.with_read_dict(keyed.expr)
                if wider != plan:
                    plan = wider
                    continue
            wrapped = cause_of(exc, (WrappedByTracker,))
            if wrapped is not None and plan.with_append_only(wrapped.expr) != plan:
                plan = plan.with_append_only(wrapped.expr)  # (its calls replayed on it)
                continue
            misuse = cause_of(exc, FedScalarMisuse)
            if promoted:
                # feeding these roles failed (an index, a count...): their values stay guarded
                plan, promoted = plan.with_kept(promoted), set()
                continue
            if misuse is not None and (plan.scalars or plan.fed_lengths) and \
                    not misuse.from_graph:
                # a number the ladder fed is used as a count (`range(depth)`): it stays
                # guarded, one graph per value, and the plan remembers (no second failure)
                # (not for a tensor's value, `round(float(t))`: no number kept guarded
                # makes that one a constant; keeping them all made a graph per value of
                # a step counter, each failing again where the value is needed: zoo p19)
                known = misuse.role in plan.scalars or misuse.role in plan.fed_lengths
                plan = plan.with_kept({misuse.role} if known else
                                      plan.scalars | plan.fed_lengths)
                continue
            raise
        wider = feeding.traced(plan, tracer, blocked)  # (numbers the profile saw change)
        if wider is None:  # (fed, their graph failed before: traced again without them)
            continue
        plan = wider
        new_roles = tracer.varying_roles - plan.scalars
        if _general_exits(tracer) and traces < _MAX_TRACES and \
                _with_general_exits(plan, tracer) not in blocked:
            traces += 1
            plan = _with_general_exits(plan, tracer)
            if new_roles and promotions < _MAX_PROMOTIONS:  # (both at once: one trace less)
                plan, promotions = _promoted(plan, new_roles), promotions + 1
                promoted |= new_roles
            continue
        if new_roles and promotions < _MAX_PROMOTIONS:
            promotions += 1
            promoted |= new_roles
            plan = _promoted(plan, new_roles)
            continue
        if new_roles:  # bounded: what still varies stays guarded
            plan = plan.with_kept(new_roles)
            continue
        used = list({s.expr: (s, k, spec) for s, k, spec in tracer.used_inputs}.values())
        traced_tables = tracer.tables()
        if not tracer.missing and used == inputs and traced_tables == tables:
            break
        if traced_tables == tables:  # only the signature would change: kept, not retraced
            adopted = adopted_trace.adopt(concrete, tracer.placeholders, used)
            if adopted is not None:
                concrete, inputs = adopted, used
                break
        traces += 1
        if traces >= _MAX_TRACES:
            raise ConversionError("the graph's inputs did not settle after several traces")
        inputs, tables = used, traced_tables
    keyed = wrapped = misuse = None  # (an earlier trace's exception: its traceback holds
    # this frame, a cycle keeping the call's arguments, F441)
    _refuse_stale_captures(concrete)
    recorder.refuse_overflow()
    if tracer.collective_strategy is not None and tracer.in_graph:
        raise ConversionError(
            f"{len(tracer.in_graph)} in-graph guard(s) (first: {tracer.in_graph[0].describe()}) "
            "in a graph with collectives across workers: a guard failing on one worker only "
            "would leave it rerunning the step while the others committed theirs")
    aliases = tracer.aliases_guard()
    seed = random_draws.check(concrete.graph)  # (refuses seeded draws: ConversionError)
    keras = keras_state.guard(tracer)
    guards = GuardSet([call_guard(args, kwargs)] + list(tracer.guards.values()) +
                      ([aliases] if aliases else []) + ([keras] if keras else []) + seed,
                      env[2], env[3])
    counts = {s.source.expr: s.bound for s in tracer.draw_streams.values()}
    return Specialization(
        id=spec_id, plan=plan, guards=guards, in_graph=tracer.in_graph, inputs=inputs,
        concrete=concrete, feed=_compile_feed(inputs, env[2], env[3], tables, guards.guards,
                                              counts),
        result=captured["result"], effects=captured["effects"] + (
            [heap.Effect("names", None, "", tracer.renamed)] if tracer.renamed else []),
        visible_outputs=captured.get("visible"),
        generation_time=time.perf_counter() - start, converted=converted,
        subgraphs=tuple(SubGraph(fn, profile.recursive[fn], cases)
                        for fn, (_, cases) in tables.items()),
        appended_only=tracer.appended_only(), length_only=tracer.length_only(),
        untouched=tracer.untouched(),
        functions=tuple(tracer.functions.values()),
        loop_gradients=tuple(tracer.loop_gradients),
        tables=tables, distributed=tracer.distributed,
        collective_strategy=tracer.collective_strategy,
        random_states=tuple(tracer.random_states.values()), draws=counts)
