"""XLA where it pays: a measured per-specialization decision, on by default, compiled
without blocking the caller.

XLA helps some graphs (fused RNN/LM cells) and hurts others (convolutions on CPU), and
cannot compile graphs of dynamic size. A specialization is a candidate once it has run
`MIN_CALLS` times as a graph (it is stable), taking at least `MIN_GRAPH_SECONDS` per call
(below that, a compilation costing seconds of CPU cannot pay for itself), its inputs all
have static shapes, and it has no in-graph guards, recursion or tf.distribute calls.
Then:

1. One background thread (`_Compiler`) wraps the specialization's own graph function in
   a `jit_compile=True` function (no user code is traced again) and compiles it by
   running it once on the inputs of a real call and on *copies* of the variables the
   graph uses (snapshots of their values): the real variables and the heap are never
   touched, and XLA's compilation cache keys on shapes, not on which variables. The
   run is placed on the caller's tf.device the specialization is guarded to (a step
   pinned to "/cpu:0" compiles for the CPU, as its calls run), each copy on its
   variable's device (`XlaVariant`). Graphs with ops whose behavior XLA changes
   (stateful random ops draw other numbers; assertions, prints and numeric checks are
   dropped) are not compiled.
2. Meanwhile the plain graph keeps serving every call.
   The compiler thread runs at a lower priority (`NICE`) so that the calls it
   serves keep their speed on a busy machine.
3. Once compiled, real calls alternate between both variants and XLA is kept only
   where it is clearly faster; a kept variant is measured again later, and turned off
   (with a warning) when it no longer is (graphgen/xla_trial.py). `spec.xla` says what
   was decided and why; the graph cache and `janus cache list/show` record it.

A call under a gradient tape always runs the plain graph (its gradient is TF's). An XLA
call that fails turns XLA off for the specialization and the call reruns on the plain
graph (an XLA cluster writes its variables only when it completes).

`janus.config.xla = False` (or `JANUS_XLA=0`) turns it off. At most `MAX_PENDING`
compilations wait at a time; each specialization is tried once.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import queue
import threading
import time

import tensorflow as tf
from tensorflow.python.eager import record

from janus.graphgen import caller_scopes, calls
from janus.operation_hooks import operation_hook

MIN_CALLS = 3       # graph calls before a specialization counts as stable
MIN_GRAPH_SECONDS = 0.002  # graphs quicker than this per call: XLA cannot pay for itself
MAX_PENDING = 8     # compilations waiting at a time (later candidates try again later)
NICE = 10           # the compiler thread's priority, lower than the callers' by this much
# At exit, a compilation under way is waited for this long (queued ones are dropped): a
# process that exits while XLA compiles crashes (LLVM's static state is torn down under
# the compiler thread: SIGSEGV/SIGABRT). A compilation takes seconds, >10 s on a loaded
# machine, where the former 10 s wait crashed about half of the short runs.
EXIT_WAIT = 300.0

_UNSAFE_OPS = {"Assert", "CheckNumerics", "CheckNumericsV2", "Print", "PrintV2",
               "EnsureShape"}
_UNSAFE_PARTS = ("Random", "Rng", "Multinomial", "Shuffle", "Dropout")
_CALLS = {"StatefulPartitionedCall", "PartitionedCall"}


def eligible(spec) -> bool:
    """Whether `spec` may be tried (cheap; the op check runs in the compiler thread)."""
    static = all(all(d is not None for d in shape) for _, _, (_, shape) in spec.inputs)
    return static and spec.time_graph >= MIN_GRAPH_SECONDS * spec.calls and \
        not spec.in_graph and not spec.subgraphs and not spec.xla and not spec.distributed \
        and not spec.context and (calls.flat_callable(spec.concrete) or
                                  hasattr(spec.concrete, "flat_parts"))


def _ops(concrete) -> set:
    graph_def = concrete.graph.as_graph_def()
    ops = {node.op for node in graph_def.node}
    for function in graph_def.library.function:
        ops |= {node.op for node in function.node_def}
    return ops


def unsafe_ops(concrete) -> list[str]:
    """Ops of the graph whose results or effects differ under XLA."""
    return sorted(op for op in _ops(concrete)
                  if op in _UNSAFE_OPS or any(part in op for part in _UNSAFE_PARTS) or
                  op.startswith("Stateful") and op not in _CALLS)  # StatefulUniform...


def _parts(concrete):
    """(graph function, arguments after the inputs, {id(handle): variable}) of a
    specialization's graph: a ConcreteFunction of this process (its captures), or a graph
    loaded from the cache (cache/portable.py: the variables' handles are arguments)."""
    if hasattr(concrete, "flat_parts"):
        return concrete.flat_parts()
    return concrete, [], {id(v.handle): v for v in concrete.graph.variables}


def _on(device: str):
    """`tf.device(device)`, nothing for "" (no device scope)."""
    return tf.device(device) if device else contextlib.nullcontext()


class XlaVariant:
    """The specialization's graph function, compiled by XLA (see the module docstring).

    Compiled under `device`, the caller's tf.device the specialization was traced under
    (caller_scopes.guarded_device: "" for none), where its real calls are placed (they
    are made under it: guarded). An eager call of a function is placed by the device
    scope it is made under and XLA compiles for that device; the compiler thread has no
    scope of its own (on a GPU machine a step the caller pinned to "/cpu:0" compiled for
    GPU:0, then again for the CPU on its first real call: F375). The copies of the
    variables it compiles on are made on their variables' devices (before: on the default
    device, GPU:0, whatever the variable's, doubling its memory there)."""

    def __init__(self, concrete, input_specs: list, device: str = ""):
        self.device = device
        function, extra, self.variables = _parts(concrete)
        atomic = function._inference_function
        self.trailing = list(extra) + list(function.captured_inputs)
        specs = list(input_specs) + [tf.TensorSpec([], tf.resource) if c.dtype == tf.resource
                                     else tf.TensorSpec(c.shape, c.dtype) for c in self.trailing]

        def compiled(*flat):
            return atomic.call_flat(*flat)

        self.concrete = tf.function(compiled, input_signature=specs, autograph=False,
                                    jit_compile=True).get_concrete_function()
        self.plain = concrete
        self.watch = None  # once kept: its recent calls (graphgen/xla_trial.py)

    @operation_hook
    def call(self, inputs: list):
        if record.could_possibly_record():  # a tape watches: TF's gradient of the plain graph
            return calls.call_graph(self.plain, inputs)
        return self.concrete._call_flat(list(inputs) + self.trailing, [])

    def compile(self, sample_inputs: list) -> None:
        """Run once on copies of the graph's variables: XLA compiles, nothing real changes."""
        flat, copies = list(sample_inputs), []  # (the copies live until the run is done)
        for argument in self.trailing:
            if argument.dtype == tf.resource:
                variable = self.variables.get(id(argument))
                if variable is None:
                    raise ValueError("the graph uses a resource that is not a variable")
                with _on(variable.device):  # (where the real one lives)
                    copies.append(tf.Variable(variable.read_value(), trainable=False))
                flat.append(copies[-1].handle)
            else:
                flat.append(argument)
        with _on(self.device):  # (as the real calls are placed)
            self.concrete._call_flat(flat, [])
        del copies


class _Compiler:
    """One daemon thread compiling XLA variants, `MAX_PENDING` jobs at most."""

    def __init__(self):
        self._queue: queue.Queue = queue.Queue(maxsize=MAX_PENDING)
        self._thread = None
        self._lock = threading.Lock()
        self._stopping = False

    def submit(self, spec, sample_inputs: list, done) -> bool:
        """Compile `spec`'s XLA variant; `done(variant_or_None, reason)` is called from the
        compiler thread. False when the queue is full (try again later)."""
        with self._lock:
            if self._stopping:
                return False
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="janus-xla",
                                                daemon=True)
                self._thread.start()
        try:
            self._queue.put_nowait((spec, sample_inputs, done))
        except queue.Full:
            return False
        return True

    def _run(self) -> None:
        _lower_priority()
        while True:
            job = self._queue.get()
            if job is None:
                self._queue.task_done()
                return
            spec, sample_inputs, done = job
            variant, reason = None, ""
            try:
                unsafe = unsafe_ops(spec.concrete)
                if unsafe:
                    reason = f"not tried: XLA changes what {', '.join(unsafe[:3])} does"
                else:
                    input_specs = [tf.TensorSpec(shape, dtype)
                                   for _, _, (dtype, shape) in spec.inputs]
                    variant = XlaVariant(spec.concrete, input_specs,
                                         caller_scopes.guarded_device(spec.guards.guards))
                    variant.compile(sample_inputs)
            except Exception as exc:  # noqa: BLE001 - no XLA for this graph: say why
                variant = None
                reason = f"does not compile: {type(exc).__name__}: " + \
                    (str(exc).splitlines() or [""])[0][:120]
            try:
                done(variant, reason)
            except Exception:  # noqa: BLE001 - the caller's bookkeeping; never kill the thread
                pass
            finally:
                self._queue.task_done()

    def stop(self, timeout: float = 10.0) -> None:
        with self._lock:
            self._stopping = True
            thread = self._thread
        if thread is not None:
            while True:  # drop what waits; the running compilation finishes
                try:
                    self._queue.get_nowait()
                except queue.Empty:
                    break
                self._queue.task_done()
            self._queue.put(None)
            thread.join(timeout)

    def wait_idle(self, timeout: float = 60.0) -> bool:
        """Wait until every submitted compilation finished (tests and benchmarks)."""
        deadline = time.monotonic() + timeout
        while self._queue.unfinished_tasks:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True


def _lower_priority() -> None:
    """Lower the calling thread's priority by `NICE` (on Linux a thread has its own;
    elsewhere this would lower the whole process's, so it is left alone)."""
    if not hasattr(os, "setpriority") or not hasattr(threading, "get_native_id") or \
            not os.uname().sysname == "Linux":
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + NICE))
    except OSError:
        pass


compiler = _Compiler()
atexit.register(lambda: compiler.stop(EXIT_WAIT))
if hasattr(os, "register_at_fork"):  # the child has no compiler thread: start afresh
    os.register_at_fork(after_in_child=lambda: globals().__setitem__("compiler", _Compiler()))
