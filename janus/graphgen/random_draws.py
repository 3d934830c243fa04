"""Draws from TensorFlow's global random stream in a generated graph.

Eagerly, `tf.random.normal(shape)` after `tf.random.set_seed(s)` draws numbers fixed by
the global seed and a counter of the eager context (`random_seed.get_seed`): a program
seeded once gives the same numbers on every run, and with an op seed
(`tf.random.uniform(shape, seed=1)`) the eager op keeps its own stream across calls. A
stateful random op in a graph gets its seeds at trace time and keeps its own stream:
its draws are not eager's (a VAE's reparameterization, a GAN's noise, `tf.nn.dropout`
gave other numbers from the first graph call on). janus does not reproduce them, so a
trace that made such an op with a seed refuses (the call runs plainly, as do the
function's calls from then on, or its segment's). An op made without any seed draws
nondeterministically eagerly too, so the graph's draws are as good; its graph keeps the
guard that the process still has no global seed (`seed_guard`): set later, the calls
run plainly from then on. (Keras' unseeded draws come from its global SeedGenerator,
whose state variable the graph captures: guarded by identity, graphgen/keras_globals.py.)
"""
from __future__ import annotations

from janus.errors import ConversionError
from janus.graphgen import keras_globals
from janus.graphgen.guards import Guard
from janus.graphgen.sources import Source

STATEFUL = frozenset({
    "RandomStandardNormal", "RandomUniform", "RandomUniformInt", "TruncatedNormal",
    "ParameterizedTruncatedNormal", "RandomShuffle", "Multinomial", "RandomGamma",
    "RandomPoisson", "RandomPoissonV2", "RandomCrop"})
"""Op types that draw from a stream seeded by their `seed`/`seed2` attributes (not the
stateless ops, not a tf.random.Generator's, whose state is a variable janus follows)."""

_CONTEXT = "tensorflow.python.eager.context"


def _nodes(graph_def):
    yield from graph_def.node
    for function in graph_def.library.function:
        yield from function.node_def


def stateful_draws(graph) -> list[tuple[str, bool]]:
    """(op name, seeded) of every stateful random op in `graph`, its functions included
    (loop bodies, branches, called functions)."""
    found = []
    for node in _nodes(graph.as_graph_def()):
        if node.op in STATEFUL:
            seeded = bool(node.attr["seed"].i or node.attr["seed2"].i) \
                if "seed" in node.attr else True
            found.append((node.name, seeded))
    return found


def check(graph) -> list[Guard]:
    """Refuse a graph with seeded draws from the global stream (ConversionError); the
    guards a graph with unseeded draws needs (`seed_guard`), and those on the Keras
    global generator it draws from (graphgen/keras_globals.py), else none."""
    draws = stateful_draws(graph)
    seeded = [name for name, is_seeded in draws if is_seeded]
    if seeded:
        raise ConversionError(
            f"draws from TensorFlow's global random stream ({seeded[0]}) with a seed: a "
            "graph's draws would not be the numbers eager execution draws; it runs plainly")
    return ([seed_guard()] if draws else []) + keras_globals.guards(graph)


def seed_guard() -> Guard:
    """The host guard that TensorFlow's global seed is still unset."""
    source = Source(("module", _CONTEXT, "_context"), (("attr", "_seed"),))
    return Guard("value", source, None, "draws from TF's global random stream unseeded")
