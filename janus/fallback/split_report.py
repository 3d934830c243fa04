"""How a function split at its graph breaks is described: for `janus.explain` and for
`janus cache list/show` (which read it back from the cache, so no TensorFlow here).

A *summary* is a plain JSON-able dict (made by `Segmented.summary`):

    {"filename": ..., "splits": 2,
     "breaks":   [{"line": 86, "reason": "calls .numpy() on a tensor", "text": "..."}],
     "opened":   [{"line": 91, "reason": "an `if` that leaves the loop", "text": "..."}],
     "segments": [{"index": 0, "first_line": 83, "last_line": 85, "inputs": [...],
                   "outputs": [...], "state": "graph", "why": "", "calls": 183,
                   "graph_calls": 174}],
     "inline":   [{"first_line": 77, "last_line": 80, "why": "too small ..."}],
     "no_more_graphs": "12 graphs generated for the function's segments ran ...",
     "as_a_whole": "runs as it is: the split does not pay (median split call ...)"}

and `lines(summary)` renders it, one break per line with its reason and source line
(like `torch._dynamo.explain`'s break reasons).
"""
from __future__ import annotations

_STATES = {"measuring": "measuring its eager time", "graph": "graph (on trial)",
           "kept": "graph", "eager": "eager"}


def _span(first: int, last: int) -> str:
    return f"lines {first}-{last}" if last != first else f"line {first}"


def lines(summary: dict) -> list[str]:
    """The summary as text lines (without indentation of their own)."""
    where = summary.get("filename", "?")
    breaks, opened = summary.get("breaks", []), summary.get("opened", [])
    out = [f"graph breaks ({len(breaks)}), split {summary.get('splits', 1)} time(s):"]
    for b in breaks:
        out.append(f"  break at {where}:{b['line']}: {b['reason']}")
        if b.get("text"):
            out.append(f"    {b['line']:>5} | {b['text']}")
    for o in opened:
        out.append(f"  Python statement at {where}:{o['line']} (its body split): {o['reason']}")
        if o.get("text"):
            out.append(f"    {o['line']:>5} | {o['text']}")
    segments = summary.get("segments", [])
    out.append(f"segments ({len(segments)}):")
    for s in segments:
        state = _STATES.get(s["state"], s["state"])
        if s.get("why"):
            state += f": {s['why']}"
        out.append(f"  segment {s['index']} ({_span(s['first_line'], s['last_line'])}) "
                   f"({', '.join(s['inputs'])}) -> ({', '.join(s['outputs'])}): {state}; "
                   f"{s['calls']} calls, {s['graph_calls']} as graph")
    if summary.get("as_a_whole"):
        out.append(f"as a whole: {summary['as_a_whole']}")
    if summary.get("no_more_graphs"):
        out.append(f"no more segment graphs: {summary['no_more_graphs']}")
    inline = summary.get("inline", [])
    if inline:
        out.append(f"run inline, in Python ({len(inline)}):")
    for i in inline:
        out.append(f"  {_span(i['first_line'], i['last_line'])}: {i['why']}")
    return out


def headline(summary: dict, counters: dict) -> str:
    """One line for `janus cache list`."""
    segments = summary.get("segments", [])
    graphs = sum(1 for s in segments if s["state"] == "kept")
    return (f"split at {len(summary.get('breaks', []))} graph break(s): "
            f"{len(segments)} segment(s), {graphs} kept as graph; "
            f"{counters.get('segmented_calls', 0)} split call(s), "
            f"{counters.get('segment_graph_calls', 0)} segment graph run(s)")


def summarize(segmented) -> dict:
    """A `fallback.segmented.Segmented` as a JSON-able dict (read under its lock): its
    breaks, opened loops, segments and what runs inline and why."""
    inline = [{"first_line": s.stretch.first_line, "last_line": s.stretch.last_line,
               "why": seg_why} for s, seg_why in
              ((s, s.why_eager) for s in segmented.all_segments())
              if s.state == "eager" and
              (s.stretch.first_line, s.stretch.last_line) in segmented.inline]
    inline += [{"first_line": first, "last_line": last, "why": why}
               for (first, last), why in segmented.inline_reasons.items()]
    seen = {(i["first_line"], i["last_line"]) for i in inline}
    parts = getattr(segmented, "split", None)
    for line, why in (parts.python if parts is not None else []):
        if why not in ("graph break",) and (line, line) not in seen and \
                not why.startswith(("its segment's graph", "a trace of it")):
            inline.append({"first_line": line, "last_line": line, "why": why})
            seen.add((line, line))
    return {
        "filename": segmented.info.filename, "splits": segmented.splits + 1,
        "breaks": [{"line": b.line, "reason": b.reason, "text": b.text.strip()}
                   for _, b in sorted(segmented.breaks.items())],
        "opened": [{"line": line, "text": segmented.info.line(line).strip(),
                    "reason": segmented.open_reasons.get(line, "a trace failed inside it")}
                   for line in sorted(segmented.opened)],
        "segments": [{"index": seg.stretch.index, "first_line": seg.stretch.first_line,
                      "last_line": seg.stretch.last_line,
                      "inputs": list(seg.stretch.inputs),
                      "outputs": list(seg.stretch.outputs), "state": seg.state,
                      "why": seg.why_eager, "calls": seg.calls,
                      "graph_calls": seg.jit.stats.graph_calls}
                     for seg in segmented.segments],
        "inline": sorted(inline, key=lambda i: (i["first_line"], i["last_line"])),
        "no_more_graphs": segmented.budget.spent, "as_a_whole": segmented.whole.why}
