"""Log lines for what janus does, through the `logging` module (logger "janus").

    JANUS_LOGS=guards,regen,fallback,heap python train.py
    JANUS_LOGS=all python train.py

Categories:
    guards    a guard failed: which assumption, what it expected, the actual value
    regen     a graph was generated, generalized, or failed to generate
    fallback  a call ran eagerly, and why (unsupported construct, guard failure, limit,
              janus's own internal error)
    heap      the heap writes a new graph defers until it succeeded
    profile   a profiled call
    warm      a warm start from the cache

Off by default. Giving up on a function is always said once, loudly (JanusWarning).
`janus.logs.enable("guards,regen")` / `janus.logs.disable()` do the same from code.
If the application configured logging (the root logger has handlers) the lines go
there; otherwise janus adds one handler writing `janus: ...` lines to stderr.
"""
from __future__ import annotations

import logging
import os
import sys

from janus import events

CATEGORIES = ("guards", "regen", "fallback", "heap", "profile", "warm")
logger = logging.getLogger("janus")
_loggers = {c: logging.getLogger(f"janus.{c}") for c in CATEGORIES}
_subscribed: list = []
_handler: logging.Handler | None = None
enabled: frozenset = frozenset()


def _name(jit) -> str:
    return getattr(jit, "__qualname__", repr(jit))


def _on_guard_failed(jit, spec, guard, actual):
    count = getattr(jit, "failure_counts", {}).get(getattr(guard, "key", None), 0)
    _loggers["guards"].info("%s: guard failed in specialization #%s: %s (actual: %s)%s",
                            _name(jit), getattr(spec, "id", "?"), guard.describe(), actual,
                            f"; failed {count} times" if count > 1 else "")


def _on_generated(jit, spec):
    _loggers["regen"].info("%s: generated specialization #%s in %.3f s (%s; %d host guards, "
                           "%d in-graph guards)", _name(jit), spec.id, spec.generation_time,
                           "; ".join(spec.plan.describe()), len(spec.guards), len(spec.in_graph))


def _on_generation_failed(jit, reason):
    _loggers["regen"].info("%s: graph generation failed: %s", _name(jit), reason)


def _on_generalized(jit, old_plan, new_plan):
    added = [line for line in new_plan.describe() if line not in old_plan.describe()]
    _loggers["regen"].info("%s: an assumption keeps failing; regenerating more generally: %s",
                           _name(jit), "; ".join(added) or "; ".join(new_plan.describe()))


def _on_fallback(jit, category, reason):
    _loggers["fallback"].info("%s: runs eagerly (%s): %s", _name(jit),
                              getattr(category, "value", category), reason)


def _on_gave_up(jit, reason):
    _loggers["fallback"].warning("%s: janus gives up and runs it eagerly from now on: %s",
                                 _name(jit), reason)


def _on_heap(jit, spec):
    effects = [e.describe() for e in spec.effects]
    if effects:
        _loggers["heap"].info("%s: specialization #%s defers %d heap write(s) until the graph "
                              "succeeded: %s", _name(jit), spec.id, len(effects), "; ".join(effects))


def _on_internal_error(jit, phase, reason):
    _loggers["fallback"].warning("%s: %s", _name(jit), reason)


def _on_profiled(jit, profile):
    _loggers["profile"].info("%s: profiled call %d", _name(jit), profile.calls)


_EVENTS = {
    "guards": [("guard_failed", _on_guard_failed)],
    "regen": [("generated", _on_generated), ("generation_failed", _on_generation_failed),
              ("generalized", _on_generalized), ("gave_up", _on_gave_up)],
    "fallback": [("fallback", _on_fallback), ("gave_up", _on_gave_up),
                 ("internal_error", _on_internal_error)],
    "heap": [("generated", _on_heap)],
    "profile": [("profiled", _on_profiled)],
    "warm": [],  # janus.cache.warm logs through the same logger
}


def parse(spec: str) -> frozenset:
    names = {part.strip().lower() for part in spec.replace(";", ",").split(",") if part.strip()}
    if names & {"all", "1", "on", "yes", "true"}:
        return frozenset(CATEGORIES)
    unknown = names - set(CATEGORIES) - {"0", "off", "none", "no", "false"}
    if unknown:
        logger.warning("JANUS_LOGS: unknown categories %s (known: %s)",
                       ", ".join(sorted(unknown)), ", ".join(CATEGORIES))
    return frozenset(names & set(CATEGORIES))


def enable(categories="all", stream=None) -> frozenset:
    """Turn on log lines for these categories (a comma-separated string or an iterable)."""
    global enabled, _handler
    if not isinstance(categories, str):
        categories = ",".join(categories)
    chosen = parse(categories)
    disable()
    seen = set()
    for category in sorted(chosen):
        for event, callback in _EVENTS[category]:
            if (event, callback) not in seen:
                seen.add((event, callback))
                events.subscribe(event, callback)
                _subscribed.append((event, callback))
    enabled = chosen
    for category, child in _loggers.items():
        child.setLevel(logging.INFO if category in chosen else logging.WARNING)
    if chosen:
        if logger.level == logging.NOTSET or logger.level > logging.INFO:
            logger.setLevel(logging.INFO)
        if stream is not None or not logging.getLogger().handlers:
            _handler = logging.StreamHandler(stream or sys.stderr)
            _handler.setFormatter(logging.Formatter("janus: %(message)s"))
            logger.addHandler(_handler)
            logger.propagate = False
    return chosen


def disable() -> None:
    global enabled, _handler
    for event, callback in _subscribed:
        events.unsubscribe(event, callback)
    _subscribed.clear()
    if _handler is not None:
        logger.removeHandler(_handler)
        logger.propagate = True
        _handler = None
    for child in _loggers.values():
        child.setLevel(logging.NOTSET)
    enabled = frozenset()


def configure_from_env() -> None:
    spec = os.environ.get("JANUS_LOGS", "")
    if spec.strip():
        enable(spec)


configure_from_env()
