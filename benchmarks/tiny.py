"""Functions janus cannot speed up must not get slower: eager vs janus, steady state.

    python -m benchmarks.tiny [--calls N] [--rounds R] [--out DIR]

Small functions whose graph call (its fixed host cost, 0.1-0.5 ms here) is slower than
running their few eager ops plainly, one whose graph pays (50 small ops), and two janus
makes no graph of and runs plainly for good (a generator; `.numpy()` glue too small for a
segment: janus/fallback/settled.py), where `eager/janus` is janus's whole per-call
overhead on a function it runs plainly, against calling it directly. For each:
plain eager, janus as users get it (the graph-or-plain trial on: graphgen/plain_trial.py)
and janus with the trial off (`plain_trial=False`: the graph always), per call in
microseconds, the functions taking turns in each round (benchmarks/overhead.py's
`per_call`: median over rounds of the mean over `--calls` calls). `eager/janus` is the
ratio the standard asks for (>= ~0.97 where janus cannot speed a function up), also
from the fastest round of each (`min e/j`: the least disturbed by other processes on a
shared machine); `decision` is what the trial decided (`spec.plain`).
"""
from __future__ import annotations

import argparse
import json
import os
from typing import Optional, Sequence

from benchmarks.overhead import per_call
from benchmarks.run import DEFAULT_OUT, quiet_tensorflow


def _functions():
    import numpy as np
    import tensorflow as tf

    def affine(x):
        return x * 2.0 + 1.0

    def two_ops(x, w):
        return tf.nn.relu(tf.matmul(x, w))

    def loop50(x):
        for _ in range(50):
            x = x * 1.01 + 0.1
        return x

    def halves(x):
        yield x[:2]
        yield x[2:]

    def generator_sum(x):  # (generators are not converted: plain for good)
        total = 0.0
        for part in halves(x):
            total = total + tf.reduce_sum(part)
        return total

    def numpy_glue(x):  # (a `.numpy()` break, nothing worth a segment: plain for good)
        return float(np.sum(x.numpy())) * 2.0 + 1.0

    small, w8 = tf.ones([4]), tf.fill([8, 8], 0.1)
    big, w256 = tf.ones([256, 256]), tf.fill([256, 256], 0.01)
    return [("x*2+1 [4]", affine, (small,)), ("relu(x@w) 8x8", two_ops, (tf.ones([8, 8]), w8)),
            ("relu(x@w) 256", two_ops, (big, w256)), ("50 ops loop", loop50, (small,)),
            ("generator", generator_sum, (small,)), ("numpy glue", numpy_glue, (small,))]


def _settle(jitted, args, limit: int = 200) -> str:
    """Call until the specialization's graph-or-plain decision is made (or not tried)."""
    for _ in range(limit):
        jitted(*args)
        specs = jitted.specializations
        if specs and specs[0].calls + specs[0].plain_calls > 8 and \
                (specs[0].plain_trial is None or specs[0].plain_trial.decided):
            break
        if jitted._settled is not None:
            return f"plain for good: janus makes no graph of it ({jitted.last_decision})"
    return specs[0].plain if specs else ""


def measure(calls: int, rounds: int) -> list[dict]:
    import janus

    rows = []
    for name, fn, args in _functions():
        janus_fn = janus.jit(fn, xla=False, plain_trial=True)
        graph_fn = janus.jit(fn, xla=False, plain_trial=False)
        decision = _settle(janus_fn, args)
        _settle(graph_fn, args)
        fns = {"eager": lambda: fn(*args), "janus": lambda: janus_fn(*args),
               "graph": lambda: graph_fn(*args)}
        times = per_call(fns, calls, rounds)
        best = per_call(fns, calls, rounds, statistic=min)
        stats = janus.stats(janus_fn)
        spec = janus_fn.specializations[0] if janus_fn.specializations else None
        rows.append({"function": name, "eager_us": times["eager"] * 1e6,
                     "janus_us": times["janus"] * 1e6, "janus_graph_us": times["graph"] * 1e6,
                     "eager_over_janus": times["eager"] / times["janus"],
                     "eager_over_graph": times["eager"] / times["graph"],
                     "min_eager_over_janus": best["eager"] / best["janus"],
                     "min_eager_over_graph": best["eager"] / best["graph"],
                     "decision": decision or "not tried (its graph call is long: it pays)",
                     "plain_calls": stats.plain_calls, "graph_calls": stats.graph_calls,
                     "fallback_calls": stats.fallback_calls,
                     "rechecks": getattr(getattr(spec, "plain_trial", None), "recheck", 0)})
    return rows


def table(rows: list[dict]) -> str:
    head = f"{'function':<16}{'eager':>9}{'janus':>9}{'graph':>9}{'eager/janus':>13}" \
           f"{'eager/graph':>13}{'min e/j':>9}{'min e/g':>9}  decision"
    lines = ["per-call time (us; janus = plain trial on, graph = plain_trial=False)", head,
             "-" * len(head)]
    for r in rows:
        lines.append(f"{r['function']:<16}{r['eager_us']:>9.1f}{r['janus_us']:>9.1f}"
                     f"{r['janus_graph_us']:>9.1f}{r['eager_over_janus']:>13.3f}"
                     f"{r['eager_over_graph']:>13.3f}{r['min_eager_over_janus']:>9.3f}"
                     f"{r['min_eager_over_graph']:>9.3f}  {r['decision'].split(':')[0]}")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=40, help="calls per timing round")
    p.add_argument("--rounds", type=int, default=41)
    p.add_argument("--out", default=DEFAULT_OUT)
    args = p.parse_args(argv)
    quiet_tensorflow()
    rows = measure(args.calls, args.rounds)
    print(table(rows))
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "tiny.json")
    with open(path, "w") as f:
        json.dump({"functions": rows}, f, indent=1)
    print(f"wrote {path}")
    return rows


if __name__ == "__main__":
    main()
