"""Keras' process-global objects a graph holds, guarded by identity (F361).

    keras.random.normal([3])          unseeded: draws from Keras' global SeedGenerator
    keras.random.dropout(x, 0.5)      (`seed_generator.global_seed_generator()`)

    keras.utils.set_random_seed(1)    between calls: drops that generator (the next
    keras.backend.clear_session()     unseeded draw makes another); replaces all of
                                      Keras' global state

Keras keeps its global state in `keras.src.backend.common.global_state`: a thread-local
object (`GLOBAL_STATE_TRACKER`) whose attributes hold the global SeedGenerator, the dtype
policy, the counters that number layer names... A graph captures the variables its trace
found there: a graph traced before a re-seed would go on drawing from the old generator
(and advancing it) where plain Python draws from the new one. So every object of Keras'
global state whose variable a graph captures is guarded by identity, read through the
tracker on each call (`MOD[...global_state]['GLOBAL_STATE_TRACKER'].global_seed_generator
.state is <Variable>`: a replaced generator, a cleared session or another thread fail
it): those calls run plainly, and the next trace holds the new generator.

Keras' ambient scopes, which the caller may enter around a call and a traced layer
reads, are a library-wide setting read per call (`keras_ambient`, one text, "" outside
them all; recorded by graphgen/global_settings.keras_call for any traced Keras call, as
the call found them: `entered`, noted as the trace starts):

    class Outer(keras.layers.Layer):
        def call(self, x, training=None):
            return jitted(self.drop, x)      # `drop(x)` takes `training` from the call
                                             # context Outer's __call__ set

the call context's values (`training`), the autocast scope's dtype, and a stateless or
symbolic scope (by identity: a graph never runs under one it was not traced in). The
value recorded is the one the call *started* with, never the one a traced Keras call
finds: a layer's `__call__` in the trace enters a call context of its own
(`super().call(x)` in a layer's `call` runs inside it), which the graph reproduces, and
which the guard, checked before the call, would never see again (a graph per call).

The rest of that state a graph does not hold: the name counters a trace moves refuse it
(graphgen/host_state.py); the dtype policy is read by layers as they are made (which moves
the counters) and through `keras.mixed_precision.global_policy()`, a guarded setting
(graphgen/global_settings.py).
"""
from __future__ import annotations

import sys
import weakref

import tensorflow as tf

from janus.graphgen.guards import Guard
from janus.graphgen.sources import Source

_MODULE = "keras.src.backend.common.global_state"
_TRACKER = "GLOBAL_STATE_TRACKER"


def _variables(value) -> list[tuple[tuple, object]]:
    """(steps from the attribute, variable) of a global-state value: a variable, or the
    state of a SeedGenerator (any object whose `state` is a variable)."""
    if isinstance(value, tf.Variable) or _is_keras_variable(value):
        return [((), value)]
    own = getattr(value, "__dict__", None)  # (its own attributes: no property is run)
    state = own.get("state") if type(own) is dict else None
    if isinstance(state, tf.Variable) or _is_keras_variable(state):
        return [((("attr", "state"),), state)]
    return []


def _is_keras_variable(value) -> bool:
    keras = sys.modules.get("keras")
    variable = getattr(keras, "Variable", None) if keras is not None else None
    return variable is not None and isinstance(value, variable)


def _handle(variable):
    inner = getattr(variable, "value", variable) if _is_keras_variable(variable) else variable
    return getattr(inner, "handle", None)


def guards(graph) -> list[Guard]:
    """The identity guards on the objects of Keras' global state whose variables `graph`
    captures (none where Keras was never imported or holds none)."""
    module = sys.modules.get(_MODULE)
    tracker = getattr(module, _TRACKER, None) if module is not None else None
    held = getattr(tracker, "__dict__", None)
    if not held:
        return []
    captured = {id(external) for external, _ in graph.captures}
    found = []
    for name, value in list(held.items()):
        if not name.isidentifier():  # (`shared_objects/id_to_obj_map`: no path names it)
            continue
        for steps, variable in _variables(value):
            if id(_handle(variable)) in captured:
                source = Source(("module", _MODULE, _TRACKER), (("attr", name),) + steps)
                found.append(Guard("id", source, variable,
                                   f"draws from or reads Keras' global {name}"))
    return found


_OUTSIDE = ""
_SCOPES = ("current_call_ctx", "autocast_scope", "stateless_scope", "symbolic_scope")


def keras_ambient() -> str:
    """Keras' ambient scopes as one text ("" outside them all: the usual case, four
    attribute reads)."""
    module = sys.modules.get(_MODULE)
    if module is None:
        return _OUTSIDE
    tracker = getattr(module, _TRACKER, None)
    scopes = [getattr(tracker, name, None) for name in _SCOPES]
    if all(scope is None for scope in scopes):
        return _OUTSIDE
    context, autocast, stateless, symbolic = scopes
    parts = []
    if context is not None:  # (its values: `training`...; not the layer that entered it)
        values = getattr(context, "__dict__", {})
        parts.append("call " + ", ".join(f"{k}={type(v).__name__} {v!r}"
                                         for k, v in sorted(values.items())
                                         if k != "entry_layer"))
    if autocast is not None:
        parts.append(f"autocast {getattr(autocast, 'dtype', None)!r}")
    for name, scope in (("stateless", stateless), ("symbolic", symbolic)):
        if scope is not None:
            parts.append(f"{name} scope at {id(scope):#x}")
    return "; ".join(parts)


_ENTERED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def entered(tracer) -> None:
    """Note Keras' ambient scopes as the traced call starts (the caller's)."""
    _ENTERED[tracer] = keras_ambient()


def ambient_entered(tracer) -> str:
    """Keras' ambient scopes as the traced call found them (those now for a tracer whose
    start was not noted)."""
    found = _ENTERED.get(tracer)
    return keras_ambient() if found is None else found
