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
    "dropped"        (jit, specialization)  (an outdated plan's graph, at the limit)
    "gave_up"        (jit, reason: str)
    "xla_decided"    (jit, specialization)  (its `xla` says what and why)
    "plain_decided"  (jit, specialization)  (its `plain` says graph or plain, and why)
    "internal_error" (jit, phase: str, reason: str)

A subscriber that raises never breaks the user's call: the error is logged (or, with
`janus.config.raise_internal_errors`, raised as `JanusInternalError`). A subscriber made
with `repeats=False` needs an event once per function and arguments: a repeat changes
nothing for it, so janus may skip repeats (a function it runs plainly for good does not
announce each call's fallback: fallback/settled.py). `version()` grows with every
(un)subscription.
"""
from __future__ import annotations

import collections
import logging
from typing import Callable

_subscribers: dict[str, list[Callable]] = collections.defaultdict(list)
_once: set = set()  # (event, callback) subscribed with repeats=False
_changes = CHANGES = [0]  # (CHANGES: read without a call by a settled function's calls)


def subscribe(event: str, callback: Callable, repeats: bool = True) -> Callable:
    """Call `callback(*args)` on every `event` (`repeats=False`: see the module docstring)."""
    _subscribers[event].append(callback)
    if not repeats:
        _once.add((event, callback))
    _changes[0] += 1
    return callback


def unsubscribe(event: str, callback: Callable) -> None:
    if callback in _subscribers.get(event, ()):
        _subscribers[event].remove(callback)
        if callback not in _subscribers[event]:
            _once.discard((event, callback))
    _changes[0] += 1


def version() -> int:
    """Grows whenever a subscriber comes or goes."""
    return _changes[0]


def hears_repeats(event: str) -> bool:
    """Whether a subscriber of `event` needs every occurrence (not only the first)."""
    return any((event, c) not in _once for c in _subscribers.get(event, ()))


def emit(event: str, *args) -> None:
    for callback in list(_subscribers.get(event, ())):
        try:
            callback(*args)
        except Exception as exc:  # noqa: BLE001 - a listener's bug is not the user's problem
            from janus.config import config
            from janus.errors import JanusInternalError
            if config.raise_internal_errors:
                raise JanusInternalError(f"janus event listener {callback!r} failed on "
                                         f"{event!r}: {exc!r}") from exc
            logging.getLogger("janus").warning("janus: a listener of %r failed: %r", event, exc)
