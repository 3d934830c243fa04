"""A tiny observer registry: the pipeline announces what happened, subscribers
(the graph cache, logs) listen. Keeps janus/function.py free of their concerns.

Events and their arguments:
    "profiled"       (jit, profile)
    "generated"      (jit, specialization)
    "generation_failed" (jit, reason: str)
    "graph_run"      (jit, specialization, seconds)
    "guard_failed"   (jit, specialization, guard, actual: str)
    "fallback"       (jit, category: FallbackCategory, reason: str)
    "generalized"    (jit, old_plan, new_plan)
    "gave_up"        (jit, reason: str)
"""
from __future__ import annotations

import collections
from typing import Callable

_subscribers: dict[str, list[Callable]] = collections.defaultdict(list)


def subscribe(event: str, callback: Callable) -> Callable:
    _subscribers[event].append(callback)
    return callback


def unsubscribe(event: str, callback: Callable) -> None:
    if callback in _subscribers.get(event, ()):
        _subscribers[event].remove(callback)


def emit(event: str, *args) -> None:
    for callback in _subscribers.get(event, ()):
        callback(*args)
