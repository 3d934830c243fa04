"""Tree models, training and inference, side by side (the recursion issue's benchmark).

    python -m benchmarks.trees [--quick] [--executors ...] [--models ...] [--out DIR]

Training is the models' own step (`treelstm_labels`: per-tree Python labels, hand-written
SGD). Inference is the unmodified recursive forward pass
over a batch of trees (root logits, summed so executors can be compared); its expert
is the same level-batched graph as the training expert, without the update.
"""
from __future__ import annotations

import argparse
import dataclasses
from typing import Optional, Sequence

from benchmarks import report
from benchmarks.executors import DEFAULT_EXECUTORS, EXECUTORS
from benchmarks.harness import RunConfig
from benchmarks.run import DEFAULT_OUT, PRESETS, quiet_tensorflow, run


def classify(state, trees, labels):
    """Inference, written as a researcher would: encode each tree, project its root."""
    import tensorflow as tf

    model = state.model
    logits = []
    for tree in trees:
        root = model.encode(tree)
        logits.append(model.project(root[0] if isinstance(root, tuple) else root))
    return tf.reduce_sum(tf.concat(logits, axis=0))


def inference_workload(module, size: str, seed: int):
    import tensorflow as tf

    from models.trees import NodeTable, run_levels, table_signature

    training = module.workload(size=size, seed=seed)
    lstm = hasattr(training.make_state().model, "U")

    def expert(state, jit_compile: bool = False):
        model = state.model
        width = 2 * model.hidden if lstm else model.hidden

        def leaf_fn(words):
            out = model.leaf(tf.nn.embedding_lookup(model.embedding, words))
            return tf.concat(out, axis=1) if lstm else out

        def compose_fn(left, right):
            if lstm:
                return tf.concat(model.compose(tf.split(left, 2, 1), tf.split(right, 2, 1)), 1)
            return model.compose(left, right)

        @tf.function(input_signature=table_signature(), jit_compile=jit_compile, autograph=False)
        def forward(words, left, right, level_starts, roots):
            states = run_levels(words, left, right, level_starts, roots, leaf_fn, compose_fn,
                                width)
            return tf.reduce_sum(model.project(states[:, :model.hidden]))

        return lambda trees, labels: forward(*NodeTable(trees).tensors())

    return dataclasses.replace(training, name=f"{training.name}_infer", step=classify,
                               expert=expert)


def main(argv: Optional[Sequence[str]] = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="fewer steps, smaller models")
    p.add_argument("--executors", default=",".join(DEFAULT_EXECUTORS),
                   help=f"comma-separated from {','.join(EXECUTORS)}")
    p.add_argument("--out", default=DEFAULT_OUT)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--models", default="",
                   help="comma-separated workload names (default: all), e.g. "
                        "treelstm_labels,treelstm_labels_infer")
    p.add_argument("--size", choices=["full", "quick", "tiny"], help="override the size")
    p.add_argument("--steps", type=int, help="measured steps per executor")
    p.add_argument("--warmup", type=int, help="untimed steps per executor")
    args = p.parse_args(argv)
    executors = [e for e in args.executors.split(",") if e]
    quiet_tensorflow()
    from models import treelstm, treelstm_labels, treernn

    size, preset = PRESETS["quick" if args.quick else "full"]
    size = args.size or size
    config = RunConfig(warmup=preset.warmup if args.warmup is None else args.warmup,
                       steps=preset.steps if args.steps is None else args.steps,
                       windows=preset.windows, budget_s=preset.budget_s)
    named = {}
    for module in (treelstm, treernn):
        named[module.__name__.split(".")[-1]] = \
            lambda m=module: m.workload(size=size, seed=args.seed)
        named[module.__name__.split(".")[-1] + "_infer"] = \
            lambda m=module: inference_workload(m, size, args.seed)
    # labels on the Python trees, a hand-written SGD (issue 11's first bar)
    named["treelstm_labels"] = lambda: treelstm_labels.workload(size=size, seed=args.seed)
    named["treelstm_labels_infer"] = \
        lambda: treelstm_labels.inference_workload(size=size, seed=args.seed)
    wanted = [m for m in args.models.split(",") if m] or list(named)
    unknown = [m for m in wanted if m not in named]
    if unknown:
        p.error(f"unknown models {unknown}; known: {', '.join(named)}")
    factories = [named[m] for m in wanted]
    results = run(factories, executors, config, size, args.out, stem="trees")
    print()
    print(report.table(results))
    meta = results["meta"]
    print(f"wrote {meta['json']} and {meta.get('png')}; total time {meta['duration_s']:.1f}s")
    return results


if __name__ == "__main__":
    main()
