"""Keeping a trace whose graph inputs were found while tracing, instead of tracing again.

A specialization's graph takes as inputs the tensors the function reads from its
arguments and the heap (`Tracer.input`). A function's first trace cannot know them
before it reads them: each read makes a stand-in placeholder, and the trace used to be
redone with the stand-ins as its signature — every first generation paid two traces (the
RNN step: ~1.3 s each, most of it TF building the loop's gradient). When the retrace
would change nothing but the signature (the same plan, the same node tables), the traced
graph is kept: a second function of the same graph takes the stand-ins as its inputs, in
the order the trace read them, then the graph's captures (no op is copied):

    trace(signature=[])      ->  graph reading stand-ins p1 .. pn, capturing c1 .. cm
                                 (a function of inputs c1 .. cm)
    adopt(graph, [p1 .. pn]) ->  a function of the same graph, inputs p1 .. pn, c1 .. cm

A stand-in read with two specs, a placeholder an op reads that no input would feed, or
a TensorFlow without these internals keeps the retrace
(`None`). The traced ConcreteFunction stays referenced by the adopted one: it owns the
graph (TF dismantles a function's graph with it).
"""
from __future__ import annotations

import tensorflow as tf

try:  # TF's own layout (2.13+); elsewhere every trace is redone as before
    from tensorflow.core.function.polymorphism import function_type as function_types
    from tensorflow.python.eager.polymorphic_function import atomic_function, \
        concrete_function
except ImportError:  # pragma: no cover
    atomic_function = concrete_function = function_types = None


def adopt(concrete, placeholders: dict, used: list):
    """A function of `concrete`'s graph whose inputs are the stand-ins of `used` (in its
    order: (source, kind, (dtype, shape)) as `Tracer.used_inputs` lists them) then its
    captures, or None where only a retrace gives one."""
    if atomic_function is None:
        return None
    graph = concrete.graph
    feeds = []
    for source, _, spec in used:
        bound = placeholders.get(source.expr)
        if bound is None or bound[1] != spec or bound[0].graph is not graph:
            return None
        feeds.append(bound[0])
    captured = len(concrete.captured_inputs)
    captures = list(graph.inputs[len(graph.inputs) - captured:]) if captured else []
    inputs = feeds + captures
    fed = {id(t.op) for t in inputs}
    if len(fed) != len(inputs) or any(
            op.type == "Placeholder" and id(op) not in fed and op.outputs[0].consumers()
            for op in graph.get_operations()):
        return None  # (one no op reads, a signature input the trace did not read: pruned)
    traced = graph.inputs, graph.structured_input_signature
    signature = (tuple(tf.TensorSpec(t.shape, t.dtype) for t in feeds), {})
    graph.inputs, graph.structured_input_signature = inputs, signature
    try:  # (its own signature: `adopted(*inputs)` binds as a traced function's call does)
        kind = function_types.from_structured_signature(
            signature, graph.structured_outputs, graph.function_captures.capture_types)
        atomic = atomic_function.from_func_graph(
            concrete_function._inference_name(graph.name), graph, None, kind)  # noqa: SLF001
        adopted = concrete_function.ConcreteFunction(atomic, shared_func_graph=True)
    except Exception:  # noqa: BLE001 - TF's layout: traced again instead
        graph.inputs, graph.structured_input_signature = traced
        return None
    adopted._janus_traced = concrete  # (it owns the graph)
    return adopted
