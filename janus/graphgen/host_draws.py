"""numpy random draws inside a graph: uniforms drawn ahead on the host, fed, rewound.

`rng.uniform(-0.05, 0.05, size=4)` on a seeded `np.random.Generator`, or
`rng.choice(2, p=probs)` on a `RandomState` (janus/draws.py lists what is supported),
draws float64 uniforms from the RNG's bit stream, one per number, and computes from them
exactly as numpy does. In a trace, each RNG reached from the call (its `Source`) is a
*stream*: a graph input of uniforms, read at a position counted while tracing.

    trace     u = buffer[k]                        k: the stream's count so far (Python)
              uniform(lo, hi)   lo + (hi - lo) * u (exact_numbers: what C computes)
              choice(n, p=p)    p checked as numpy checks it (1-D float, >= 0, the Kahan
                                sum within sqrt(eps) of 1: else the graph fails and the
                                call reruns plainly, where numpy raises); the count of
                                `cumsum(p) / cumsum(p)[-1]` <= u (`searchsorted`, right)
    feed      `ahead(rng, K)`: the RNG's state saved, K uniforms drawn with the method the
              draws use (`random_sample(K)` / `random(K)`: the same numbers as K single
              draws), the state put back: a graph that fails leaves the RNG untouched
    write-    the "draws" effect (fallback/heap.py) draws the K uniforms again, so the
    back      RNG ends where plain Python leaves it

K is the trace's count: a Python loop janus unrolls counts as straight-line code. The
body of a `for` over a range that breaks on a tensor, built as one tf.while_loop
(graphgen/exits.py), draws at a tensor position carried through the loop; K is then an
upper bound and the count used a graph output (graphgen/loop_draws.py). Draws stay
refused inside the other tf.while_loop / tf.cond / library callbacks janus builds.

`p=probs.numpy()[0]` (`.numpy()` of a non-scalar a `choice` takes as its `p`) stays in
the graph, a HostArray (transform/breaks.probability_reads): actor-critic's whole step,
its episode loop one tf.while_loop, is one graph.
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np
import tensorflow as tf

from janus import draws
from janus.errors import ConversionError
from janus.graphgen import checks, exact_numbers, fed_floats, in_range
from janus.graphgen.host_arrays import HostArray
from janus.graphgen.host_scalars import HostScalar
from janus.graphgen.sources import Source
from janus.graphgen.values import SymbolicScalar
from janus.tensors import is_tensor

_MAX_CHOICES = 64  # the longest `p` whose Kahan sum a graph unrolls
_TINY = float(np.finfo(np.float64).tiny)  # the smallest normal float64
_ATOL64 = float(np.sqrt(np.finfo(np.float64).eps))


@dataclasses.dataclass
class Stream:
    """One RNG's uniforms in a trace: read at `count` (a Python int, or an int64 tensor
    after a loop that draws, graphgen/loop_draws.py); `bound` the most it can be (K)."""
    source: Source
    rng: object
    buffer: tf.Tensor
    count: int | tf.Tensor = 0
    bound: int = 0

    def take(self, n: int | None) -> tf.Tensor:
        """The next `n` uniforms (a [n] tensor), or the next one (a scalar) for None."""
        start, size = self.count, 1 if n is None else n
        self.count = start + size
        self.bound += size
        if isinstance(start, int):
            return self.buffer[start] if n is None else self.buffer[start:start + n]
        # (in range by construction: the buffer holds `bound` uniforms, every position
        # the graph can read: graphgen/loop_draws.py; no dead-ends `Assert` keeps it:
        # graphgen/in_range.py)
        if n is None:
            return in_range.mark(tf.gather(self.buffer, start))
        return in_range.mark(tf.gather(self.buffer, start + tf.range(n, dtype=tf.int64)))


def used(stream: Stream):
    """How many uniforms the graph used: a Python int, or a fed int (a graph output)."""
    if isinstance(stream.count, int):
        return stream.count
    return SymbolicScalar(stream.count, int, None, stream.bound)


def advance_method(rng) -> str:
    """The method that draws float64 uniforms one per number from `rng`."""
    return "random_sample" if type(rng) is np.random.RandomState else "random"


def ahead(rng, count: int) -> tf.Tensor:
    """`count` uniforms the next draws of `rng` would use, with `rng` left as it was."""
    if type(rng) is np.random.RandomState:
        saved = rng.get_state()
        try:
            return tf.constant(rng.random_sample(count), tf.float64)
        finally:
            rng.set_state(saved)
    saved = rng.bit_generator.state
    try:
        return tf.constant(rng.random(count), tf.float64)
    finally:
        rng.bit_generator.state = saved


def _refuse(what: str):
    raise ConversionError(f"draws from a numpy RNG inside a graph ({what})")


def _stream(tracer, rng) -> Stream:
    stream = tracer.draw_streams.get(id(rng))
    if stream is None:
        source = tracer.source_of(rng)
        if source is None:
            _refuse(f"a {type(rng).__name__} janus cannot locate on each call")
        buffer = tracer.input(source, "draws", ("float64", (None,)))
        stream = tracer.draw_streams[id(rng)] = Stream(source, rng, buffer)
    return stream


def draw(tracer, fn, args: tuple, kwargs: dict):
    """The value of `fn(*args, **kwargs)`, a supported draw (janus/draws.py), in the trace."""
    rng, name = fn.__self__, fn.__name__
    if not draws.arguments_supported(name, len(args), kwargs):
        _refuse(f"{type(rng).__name__}.{name} with these arguments")
    graph = tf.compat.v1.get_default_graph()
    if graph is not tracer.graph and graph is not tracer.draw_graph or tracer.callback_depth:
        _refuse("inside a tf.while_loop, tf.cond or callback janus builds: the number of "
                "draws is known only when it runs")
    if graph is tracer.draw_graph and id(rng) not in tracer.draw_streams:
        _refuse("a loop's first draw of an RNG in its body (graphgen/loop_draws.py)")
    generator = type(rng) is np.random.Generator
    if name == "rand":
        return _uniforms(_stream(tracer, rng), args if args else None)
    bound = dict(zip(draws.PARAMETERS[name], args))
    if set(bound) & set(kwargs):
        _refuse("an argument given twice (numpy raises TypeError)")
    bound.update(kwargs)
    if name in ("random_sample", "random"):
        if not generator and set(bound) - {"size"}:
            _refuse(f"RandomState.{name} with {sorted(set(bound) - {'size'})}")
        return _uniforms(_stream(tracer, rng), bound.get("size"))
    if name == "uniform":
        return _uniform(_stream(tracer, rng), bound.get("low", 0.0), bound.get("high", 1.0),
                        bound.get("size"), generator)
    return _choice(_stream(tracer, rng), bound.get("a"), bound["p"])


def _shape(size) -> tuple | None:
    """numpy's `size` as a static shape (None: one Python float); refuses the rest."""
    if size is None:
        return None
    dims = size if type(size) is tuple else (size,)
    if not dims or not all(type(d) is int and d >= 0 for d in dims):
        _refuse(f"a size other than Python ints ({size!r:.40})")
    return dims


def _uniforms(stream: Stream, size):
    shape = _shape(size)
    if shape is None:
        return SymbolicScalar(stream.take(None), float)
    return HostArray(tf.reshape(stream.take(int(np.prod(shape))), shape), np.float64)


def _bound_value(value):
    """`low`/`high` as numpy reads it (PyFloat_AsDouble): a Python float, or a float64
    tensor whose value is checked normal or zero."""
    if type(value) in (int, float):
        if type(value) is int and abs(value) > exact_numbers.EXACT_FLOAT_INT:
            _refuse("a bound beyond 2**53")
        return _normal(float(value))
    if isinstance(value, SymbolicScalar) and value.kind in (int, float):
        if value.kind is int:
            return exact_numbers.mixed_int(value.tensor, value.bound)
        return value.tensor
    if isinstance(value, HostScalar) and value.tensor.dtype in (tf.float32, tf.float64):
        return tf.cast(value.checked_tensor(), tf.float64)
    _refuse(f"a bound of type {type(value).__name__}")


def _normal(value: float) -> float:
    """A constant TF reads as itself (a subnormal one it reads as zero: refused)."""
    if value != 0.0 and abs(value) < _TINY:
        _refuse("a subnormal bound or range")
    return value


def _uniform(stream: Stream, low, high, size, generator: bool):
    """`low + (high - low) * u`; numpy raises for a range not finite (and, a Generator,
    negative): a constant range refuses, a fed one is checked (the rerun raises)."""
    low, high = _bound_value(low), _bound_value(high)
    shape = _shape(size)
    if isinstance(low, float) and isinstance(high, float):
        span = high - low
        if not np.isfinite(span) or generator and span < 0:
            _refuse("a range numpy refuses on every call")
        _normal(span)
    else:
        span = exact_numbers.array_arithmetic("sub", high, low, tf.float64)
        ok = tf.math.is_finite(span)
        checks.require(tf.logical_and(ok, span >= 0.0) if generator else ok)
    u = stream.take(None if shape is None else int(np.prod(shape)))
    value = exact_numbers.array_arithmetic(
        "add", low, exact_numbers.array_arithmetic("mul", span, u, tf.float64), tf.float64)
    if shape is None:
        return SymbolicScalar(value, float)
    return HostArray(tf.reshape(value, shape), np.float64)


def _probabilities(p) -> tuple[tf.Tensor, float]:
    """`p` as numpy's float64 array, and the tolerance numpy allows its sum."""
    if isinstance(p, HostArray):
        if p.dtype.kind != "f":
            _refuse(f"p of dtype {p.dtype}")
        atol = max(_ATOL64, float(np.sqrt(np.finfo(p.dtype).eps)))
        return tf.cast(fed_floats.fed_float(p.tensor), tf.float64), atol
    if is_tensor(p) and p.dtype in (tf.float32, tf.float64):
        return tf.cast(fed_floats.fed_float(p), tf.float64), _ATOL64
    if type(p) in (list, tuple) and p and all(type(v) in (int, float) for v in p):
        return tf.constant(np.asarray([_normal(float(v)) for v in p], np.float64)), _ATOL64
    _refuse(f"p of type {type(p).__name__}")


def _choice(stream: Stream, a, p) -> SymbolicScalar:
    """RandomState.choice(a, p=p) (legacy): p checked, then `cdf = p.cumsum(); cdf /=
    cdf[-1]; cdf.searchsorted(u, side='right')`; a Python int, as numpy returns it."""
    if type(a) is not int or a <= 0:
        _refuse("choice of other than a positive Python int")
    p64, atol = _probabilities(p)
    if p64.shape.rank != 1 or p64.shape[0] != a or a > _MAX_CHOICES:
        _refuse("p not 1-D of the population's size (numpy raises), or long")
    source = p.tensor if isinstance(p, HostArray) else p
    checks.require_rows(functools.partial(_valid_p, atol=atol), p64)
    if not (tf.is_tensor(source) and source.dtype != tf.float64 and
            fed_floats.checked_normal(source)):  # (a normal float32: >= 2**-126)
        checks.require_each(_kahan_exact, p64)
    cdf = tf.cumsum(p64)
    cdf = cdf / cdf[-1]
    index = tf.reduce_sum(tf.cast(cdf <= stream.take(None), tf.int64))
    return SymbolicScalar(index, int, None, a)


def _valid_p(rows: tf.Tensor, atol: float) -> tf.Tensor:
    """Per row of probabilities: what numpy's `choice` requires of p (it raises for a nan
    sum, a negative p or a sum off 1: a nan fails the first), its sum numpy's kahan_sum
    operation by operation (elementwise across the rows: each row as it would alone)."""
    items = tf.unstack(rows, axis=-1)
    total, carry = items[0], None
    for item in items[1:]:
        y = item if carry is None else item - carry  # (x - 0.0 is x, -0.0 included)
        t = total + y
        carry = (t - total) - y
        total = t
    return tf.logical_and(tf.abs(total - 1.0) <= atol, tf.reduce_min(rows, axis=-1) >= 0.0)


def _kahan_exact(p64: tf.Tensor) -> tf.Tensor:
    """Elementwise: the Kahan sum's corrections are exact in TF (no subnormal to flush)
    when every nonzero p is at least 2**-900: all its values are then multiples of
    2**-952."""
    return tf.logical_or(tf.equal(p64, 0.0), tf.abs(p64) >= 2.0 ** -900)
