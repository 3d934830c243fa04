"""`janus.explain`: what janus decided for a function and, for given arguments, which
specialization fits or which guard fails."""
from __future__ import annotations

from janus import numpy_modes
from janus.fallback import whole_trial
from janus.fallback.mixed import PLAIN_AFTER, MixedRunner
from janus.graphgen import plain_trial


def explain(jit, args: tuple, kwargs: dict) -> str:
    """The explanation of one JitFunction (called under its lock)."""
    lines = [f"janus: {jit.__qualname__}", f"  {jit.stats}"]
    if jit.unsupported is not None:
        lines.append(f"  runs eagerly (unsupported construct): {jit.unsupported.describe()}")
    elif jit.profile.calls < jit.config.profile_calls:
        lines.append(f"  profiling: {jit.profile.calls}/{jit.config.profile_calls} calls")
    if args or kwargs:
        verdict = "no specialization fits: the next call generates one or runs eagerly"
        for spec in jit.specializations:
            failed = spec.guards.check(args, kwargs)
            if failed < 0:
                verdict = f"runs as graph: specialization #{spec.id}"
                if spec.runs_plain and jit.config.plain_trial:
                    verdict = f"runs plainly: specialization #{spec.id} fits and its " \
                              "graph does not pay (graph vs plain, below)"
                break
            lines.append(f"  specialization #{spec.id} does not fit: guard failed: "
                         f"{spec.guards.guards[failed].describe()}")
        if numpy_modes.weak_promotion():
            verdict = f"runs plainly: {numpy_modes.WEAK_PROMOTION.reason}"
        if jit.unsupported is None:
            lines.append(f"  this call: {verdict}")
    lines.append(f"  last call: {jit.last_decision}")
    if getattr(jit, "segmented", None):
        lines.append(f"  split at graph breaks: {jit.stats.segmented_calls} calls, "
                     f"{jit.stats.segment_graph_calls} segment graph runs")
        lines += ["  " + line for line in jit.segmented.report()]
    runners = [getattr(jit, "_mixed_runner", None),
               getattr(getattr(jit, "segmented", None), "runner", None)]
    plain = [r for r in runners if getattr(r, "plain", False)]
    tried = [r.whole.why for r in plain if getattr(r, "whole", None) is not None and
             r.whole.state == "plain"]
    if tried:
        lines.append(f"  {tried[0]}")
    elif plain:
        lines.append("  runs as it is, without janus's hooks: no callee's graph ran in its "
                     f"first {PLAIN_AFTER} calls run mixed (callees as their own graphs)")
    pending = deciding(jit)
    if pending:
        lines.append("  still deciding: " + "; ".join(pending))
    for spec in jit.specializations:
        lines.append("  " + spec.describe().replace("\n", "\n  "))
    for what, actual in list(jit.failures)[-5:]:
        lines.append(f"  failed: {what} (actual: {actual})")
    if getattr(jit, "general_failure", ""):  # (then janus went back to specialized graphs)
        lines.append(f"  a generalized graph failed: {jit.general_failure}")
    if getattr(jit, "last_failure_reason", ""):  # (a graph that could not be built)
        lines.append(f"  last graph failure: {jit.last_failure_reason}")
    for reason in jit.internal_errors:
        lines.append(f"  {reason}")
    return "\n".join(lines)


IDLE_CALLS = 50
"""A specialization that fit none of the function's last this many calls (traced on a
value that never came back) decides nothing its calls wait for: not listed by
`deciding` until it fits a call again."""


def deciding(jit, seen: set | None = None) -> list[str]:
    """What janus still decides for `jit`'s function, a short line each; empty once its
    calls run the way they will keep running. Decisions: profiling, a first graph, a
    trial of the graph against plain Python or XLA, a split function's segment on trial,
    whether its Python parts need janus's hooks; the same of the jits it runs (segments,
    callees run through their own jits). A close graph-vs-plain decision's scheduled
    second measurement is no decision under way, nor is a specialization no call has
    fit for `IDLE_CALLS` calls."""
    seen = set() if seen is None else seen
    if id(jit) in seen:
        return []
    seen.add(id(jit))
    out = []
    cfg = jit.config
    if cfg.disabled or numpy_modes.weak_promotion():  # (plainly, nothing decided)
        return out
    if jit.unsupported is None:
        if jit.profile.calls < cfg.profile_calls:
            out.append(f"profiling ({jit.profile.calls}/{cfg.profile_calls} calls)")
        elif not jit.specializations:
            out.append("no graph yet")
    for spec in jit.specializations:
        if jit.stats.calls - spec.last_call > IDLE_CALLS:
            continue  # (fit no call for long: F256)
        if spec.trial is not None or spec.xla.startswith("compiling"):
            out.append(f"specialization #{spec.id}: XLA ({spec.xla or 'on trial'})")
        trial = spec.plain_trial
        if trial is not None and not trial.decided:
            out.append(f"specialization #{spec.id}: graph vs plain Python, on trial")
        elif not spec.plain and spec.calls <= plain_trial.START + 2 and trial is None and \
                cfg.plain_trial and getattr(jit, "segment_of", None) is None:
            out.append(f"specialization #{spec.id}: graph vs plain Python, not tried yet")
    segmented = getattr(jit, "segmented", None)
    runners = [getattr(jit, "_mixed_runner", None), getattr(segmented, "runner", None)]
    for seg in getattr(segmented, "segments", None) or []:
        if seg.state in ("measuring", "graph"):
            out.append(f"segment {seg.stretch.index}: "
                       f"{'measuring plain time' if seg.state == 'measuring' else 'on trial'}")
        elif seg.state == "kept":
            out += [f"segment {seg.stretch.index}: {line}" for line in deciding(seg.jit, seen)]
    out += _whole_trial(segmented)
    for runner in runners:
        if isinstance(runner, MixedRunner):
            if not runner.plain and not runner.pays:
                out.append(f"whether its Python needs janus's hooks ({runner.graphless}/"
                           f"{PLAIN_AFTER} calls without a callee's graph)")
            elif not runner.plain and runner.whole is not None and \
                    runner.whole.state == "trying":
                out.append("running mixed vs plain Python, on trial")
            for callee in list(runner.callees):
                out += [f"{callee.__qualname__}: {line}" for line in deciding(callee, seen)]
    return out


def _whole_trial(segmented) -> list[str]:
    """The split as a whole against plain Python (fallback/whole_trial.py), while it may
    still be tried: on trial, or waiting for its first steady calls (not once it has
    churned past them: it may never be quiet)."""
    whole = getattr(segmented, "whole", None)
    if whole is None or segmented.runner is segmented.fn:
        return []
    if whole.state == "trying":
        return ["the split as a whole vs plain Python, on trial"]
    if whole.state == "waiting" and whole.trials < whole_trial.MAX_TRIALS and \
            whole.since_build < whole_trial.SETTLE_CALLS + whole_trial.QUIET and \
            any(seg.state in ("graph", "kept") for seg in segmented.segments):
        return ["the split as a whole vs plain Python, not tried yet"]
    return []
