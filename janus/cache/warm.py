"""Warm start: a later process skips profiling by reusing what an earlier one learned.

What can honestly cross a process boundary is the *decision* part of a
specialization, not the graph: a graph captures this process's variables and
objects, and its guards compare identities. So janus stores, per function, the
profile (branch outcomes, trip counts, call signatures: plain values) and the plan
that last generated a graph, keyed by the function's source hash, the TensorFlow,
janus (version + hash of janus's sources) and Python versions. A warm process
restores them on its first call and generates its graph right away, on that
call's arguments. Every assumption is still guarded as usual, so a stale profile
costs a fallback, never a wrong result; an edited function or a new TF/janus
has another key and finds nothing.

With them: the portable graphs (cache/portable.py) of the last `GRAPHS_KEPT`
specializations, each with its plan and the process that generated it (several
JitFunctions of one step on differently shaped models, or one function with several
specializations, each find theirs), and the XLA decision measured for each
(graphgen/xla_trial.py), by record id. A graph is offered to every generation of the
warm process until it is loaded; a process never reuses what it recorded itself
(`warm_start_same_process`), and merely loading a graph records nothing new.
"""
from __future__ import annotations

import json
import logging
import os
import time
import weakref

from janus.cache import record as rec
from janus.cache.config import settings
from janus.cache.record import CorruptEntry
from janus.cache.store import current_store, reject, warn_once
from janus.graphgen.plan import Plan
from janus.graphgen.sources import UnresolvedKey, from_record
from janus.profiler.profile import Profile
from janus.transform import convert

log = logging.getLogger("janus.warm")
_warm: "weakref.WeakSet" = weakref.WeakSet()
_abandoned: "weakref.WeakSet" = weakref.WeakSet()
_tried: "weakref.WeakSet" = weakref.WeakSet()   # one attempt per JitFunction
PROCESS = f"{os.getpid()}-{time.time():.6f}"     # who wrote a warm state
GRAPHS_KEPT = 8   # recorded graphs per warm state (the most recently generated)


def state_key(identity: rec.FunctionIdentity, versions: dict) -> str:
    return rec.sha256(json.dumps([identity.source_hash, versions], sort_keys=True))[:16]


def encode_state(profile, plan, inputs=()) -> dict | None:
    """The warm-start state, or None when something in it is not plain data.

    The whole Profile object is recorded field by field (whatever the profiler learns
    in the future comes along); it must decode again before it is written."""
    try:
        state = {"profile": rec.encode(profile), "plan": rec.encode_dataclass(plan),
                 "plan_text": list(plan.describe()),
                 # the graph's inputs: a warm generation traces once instead of twice
                 "inputs": [[source.to_json(), kind, dtype, list(shape)]
                            for source, kind, (dtype, shape) in inputs]}
        decode_state(json.loads(json.dumps(state)))
        decode_inputs(state)   # what a later process would refuse is not written
        return state
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        log.debug("janus cache: no warm start for this function: %s", exc)
        return None


def decode_state(state: dict):
    profile = rec.decode(state["profile"])
    if type(profile) is not Profile:
        raise ValueError("not a profile")
    fresh = Profile()
    missing = set(vars(fresh)) - set(vars(profile))
    if missing:
        raise ValueError(f"the profile lacks {sorted(missing)}")
    return profile, rec.decode_dataclass(Plan, state["plan"])


def decode_inputs(state: dict) -> list:
    """The expected graph inputs recorded with a warm-start state (may be empty); sources
    are validated paths (SourceError, a ValueError, for anything else)."""
    inputs = []
    for source, kind, dtype, shape in state.get("inputs", []):
        if kind not in rec.INPUT_KINDS or type(dtype) is not str or \
                not all(d is None or type(d) is int for d in shape):
            raise ValueError("malformed graph inputs")
        inputs.append((from_record(source), kind, (dtype, tuple(shape))))
    return inputs


def graph_entry(sid: str, plan, graph: dict) -> dict:
    """A recorded graph as kept in a warm state (its plan: the one it was traced under)."""
    return {"spec": sid, "plan": rec.encode_dataclass(plan), "process": PROCESS,
            "graph": graph}


def merge_state(old: dict | None, new: dict, entry: dict | None, keep_origin: bool) -> dict:
    """The warm state after a generation: `new`'s profile and plan, the graphs and XLA
    decisions of `old` with `entry` added (at most GRAPHS_KEPT graphs, the latest last).
    `keep_origin`: the generating function was itself warm-started, so its profile came
    from `old`'s process, which stays the state's origin."""
    old = old if isinstance(old, dict) else {}
    state = dict(new)
    if keep_origin and type(old.get("process")) is str:
        state["process"] = old["process"]
    graphs = old.get("graphs") if isinstance(old.get("graphs"), list) else []
    graphs = [g for g in graphs if isinstance(g, dict) and
              (entry is None or g.get("spec") != entry["spec"])]
    if entry is not None:
        graphs.append(entry)
    state["graphs"] = graphs[-GRAPHS_KEPT:]
    state["xla"] = dict(old["xla"]) if isinstance(old.get("xla"), dict) else {}
    return state


def with_xla(old: dict | None, sid: str, decision: dict) -> dict | None:
    """The warm state with the XLA decision of specialization `sid` (None: no state)."""
    if not isinstance(old, dict):
        return None
    xla = dict(old["xla"]) if isinstance(old.get("xla"), dict) else {}
    if xla.get(sid) == decision:
        return None
    xla[sid] = decision
    return dict(old, xla=xla)


def decode_graphs(state: dict) -> list:
    """[(record id, plan, graph)] a warm start offers, the latest first: those of other
    processes (and this one's with `warm_start_same_process`). The graphs themselves are
    validated when loaded (portable.load); an entry that does not decode is left out."""
    out = []
    graphs = state.get("graphs")
    for entry in reversed(graphs if isinstance(graphs, list) else []):
        try:
            sid, graph = entry["spec"], entry["graph"]
            if type(sid) is not str or not isinstance(graph, dict):
                raise ValueError("malformed recorded graph entry")
            if entry.get("process") == PROCESS and not settings.warm_start_same_process:
                continue
            out.append((sid, rec.decode_dataclass(Plan, entry["plan"]), graph))
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            log.debug("janus cache: a recorded graph entry left out: %s", exc)
    return out


def decode_xla(state: dict) -> dict:
    """{record id: XLA decision} of a warm state, each checked field by field (keep: bool,
    text: str, plain_s: the plain graph's median seconds, positive where XLA is kept,
    rechecks: an int); anything else is left out."""
    out = {}
    xla = state.get("xla")
    for sid, d in (xla.items() if isinstance(xla, dict) else ()):
        if isinstance(d, dict) and type(d.get("keep")) is bool and \
                type(d.get("text")) is str and type(d.get("rechecks")) is int and \
                type(d.get("plain_s")) in (int, float) and d["plain_s"] >= 0 and \
                (d["plain_s"] > 0 or not d["keep"]) and \
                0 <= d["rechecks"] <= 64:
            out[sid] = {"keep": d["keep"], "text": d["text"][:300],
                        "plain_s": float(d["plain_s"]), "rechecks": d["rechecks"]}
    return out


def _jit_of(fn):
    if hasattr(fn, "profile") and hasattr(fn, "specializations"):
        return fn
    inner = getattr(fn, "jit", None)
    if inner is not None and hasattr(inner, "profile"):
        return inner
    raise TypeError(f"{fn!r} is not a janus.jit function")


def warm_start(fn, store=None) -> bool:
    """Before the first call of a jitted function: restore the profile and plan an earlier
    process recorded for this very source and these versions. True if restored, in which
    case the function skips profiling and generates its graph on its first call."""
    jit = _jit_of(fn)
    if jit in _tried or not settings.warm_start_used() or jit.profile.calls \
            or jit.specializations or jit.plan is not None \
            or getattr(jit, "unsupported", None) is not None:
        return False
    _tried.add(jit)
    try:
        converted = convert(jit.fn)
    except Exception:  # noqa: BLE001 - unconvertible: it runs eagerly anyway
        return False
    identity = rec.identify(jit, converted)
    key = state_key(identity, rec.versions())
    store = store or current_store()
    try:
        state = store.read_warm(identity.key).get(key)
    except CorruptEntry as exc:
        reject(exc)
        return False
    except OSError as exc:  # an unusable cache directory: the recorder says so when writing
        log.debug("janus cache: no warm start: %s", exc)
        return False
    if not state:
        return False
    if state.get("process") == PROCESS and not settings.warm_start_same_process:
        return False   # recorded by this very process: it behaves as without a cache
    try:
        profile, plan = decode_state(state)
        inputs = decode_inputs(state)
        graphs, xla_decisions = decode_graphs(state), decode_xla(state)
    except UnresolvedKey as exc:  # (an Enum key of a module this process did not import)
        log.debug("janus cache: no warm start for %s: %s", identity.qualname, exc)
        return False
    except Exception as exc:  # noqa: BLE001 - written by other janus code: not usable
        warn_once(f"janus cache: ignoring an unreadable warm-start entry of "
                         f"{identity.qualname}: {type(exc).__name__}: {exc}")
        return False
    if profile.calls < jit.config.profile_calls:
        return False
    with jit._lock:
        if jit.profile.calls or jit.specializations:
            return False
        jit.profile = profile
        jit.plan = plan
        jit.plan_history = [Plan()] if plan != Plan() else []
        jit._expected_inputs = inputs
        jit._warm_graphs = graphs  # recorded graphs, tried before generating
        jit._xla_recorded = xla_decisions
        jit.last_decision = "warm start: profile and plan restored from the cache"
    _warm.add(jit)
    log.info("%s: warm start from the cache (%s); profiling skipped",
             jit.__qualname__, "; ".join(plan.describe()))
    return True


def is_warm(fn) -> bool:
    return _jit_of(fn) in _warm


def on_generation_failed(jit, reason: str) -> None:
    """A warm-started function whose first graph fails goes back to profiling."""
    if jit in _warm and not jit.specializations:
        _warm.discard(jit)
        jit.profile = Profile(jit.config.max_profile_values)
        jit.plan = None
        jit.plan_history = []
        jit.blocked_plans = set()
        _abandoned.add(jit)
        log.info("%s: the warm-start plan did not generate (%s); profiling afresh",
                 jit.__qualname__, reason)


def abandoned_warm_start(fn) -> bool:
    """True once after a warm start was abandoned (see on_generation_failed): the caller
    should not count that failure against the function."""
    jit = _jit_of(fn)
    if jit in _abandoned:
        _abandoned.discard(jit)
        return True
    return False
