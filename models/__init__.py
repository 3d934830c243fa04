"""Unmodified imperative TensorFlow models used to test and benchmark janus.

Each module exposes ``workload(size="full"|"quick"|"tiny", seed=0) -> Workload``
(see `models.common.Workload`) and runs as ``python -m models.NAME [--janus]``.
"""
from __future__ import annotations

import importlib

# name -> module holding its `workload` factory (imported lazily: TensorFlow is slow to import)
WORKLOADS = {
    "lenet": "models.lenet",
    "resnet": "models.resnet",
    "rnn": "models.rnn",
    "rnn_steps": "models.rnn_steps",
    "lstm_lm": "models.lstm_lm",
    "treernn": "models.treernn",
    "treelstm": "models.treelstm",
    "treelstm_labels": "models.treelstm_labels",
    "ppo": "models.ppo",
    "actor_critic": "models.actor_critic",
    "decoder": "models.decoder",
    "gan": "models.gan",
}


def get_workload(name: str, size: str = "full", seed: int = 0, **kwargs):
    """Build the named workload (see `WORKLOADS`)."""
    if name not in WORKLOADS:
        raise ValueError(f"unknown model {name!r}; known: {', '.join(WORKLOADS)}")
    module = importlib.import_module(WORKLOADS[name])
    return module.workload(size=size, seed=seed, **kwargs)
