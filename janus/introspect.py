"""`janus.explain`: what janus decided for a function and, for given arguments, which
specialization fits or which guard fails."""
from __future__ import annotations

from janus.fallback.mixed import PLAIN_AFTER


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
        if jit.unsupported is None:
            lines.append(f"  this call: {verdict}")
    lines.append(f"  last call: {jit.last_decision}")
    if getattr(jit, "segmented", None):
        lines.append(f"  split at graph breaks: {jit.stats.segmented_calls} calls, "
                     f"{jit.stats.segment_graph_calls} segment graph runs")
        lines += ["  " + line for line in jit.segmented.report()]
    runners = [getattr(jit, "_mixed_runner", None),
               getattr(getattr(jit, "segmented", None), "runner", None)]
    if any(getattr(r, "plain", False) for r in runners):
        lines.append("  runs as it is, without janus's hooks: no callee's graph ran in its "
                     f"first {PLAIN_AFTER} calls run mixed (callees as their own graphs)")
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
