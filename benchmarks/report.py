"""Benchmark output: a terminal table, a JSON file and a PNG bar chart."""
from __future__ import annotations

import json
import os
from typing import Optional

import numpy as np


def _fmt(x: Optional[float], spec: str, none: str = "-") -> str:
    return none if x is None else format(x, spec)


def status_text(rec: dict) -> str:
    """Short verdict for one executor: ok / WRONG / error / n/a, plus counters."""
    if rec["status"] == "unavailable":
        return f"n/a: {rec.get('error_first_line') or ''}"[:60]
    if rec["status"] == "error":
        where = "" if rec.get("error_step") is None else f" at step {rec['error_step']}"
        kind, line = rec.get("error_type") or "", rec.get("error_first_line") or ""
        text = line if line.startswith(kind) else f"{kind}: {line}"
        return f"ERROR{where}: {text}"[:100]
    parts = []
    if rec.get("correct") is False:
        parts.append(f"WRONG from step {rec.get('first_wrong_step')}")
    elif rec.get("correct"):
        parts.append("ok")
    if rec.get("retraces") is not None:
        parts.append(f"{rec['retraces']} traces")
    stats = rec.get("janus_stats") or {}
    if stats and "error" not in stats:
        parts.append("janus " + " ".join(f"{k.replace('_calls', '')}={stats[k]}" for k in
                                          ("generations", "graph_calls", "fallback_calls", "profile_calls")
                                          if k in stats))
    decided = [d.split(" (")[0] for d in rec.get("janus_xla") or [] if d]
    if decided:
        parts.append("xla " + "/".join(decided))
    if rec.get("settle_s", 0) > 0.05:
        parts.append(f"settled {rec['settle_s']:.1f}s")
    if rec.get("truncated"):
        parts.append(f"budget: {rec['steps_run']} steps")
    return ", ".join(parts)


def table(results: dict) -> str:
    """Per model and executor: throughput, speedups, first-call latency, correctness."""
    head = (f"{'model':<10} {'executor':<12} {'steps/s':>9} {'items/s':>10} {'x eager':>8} "
            f"{'/expert':>8} {'1st call':>9} {'max|dloss|':>10}  status")
    lines = [head, "-" * len(head)]
    for model in results["models"].values():
        for name, rec in model["executors"].items():
            ok = rec["status"] == "ok"
            lines.append(
                f"{model['name']:<10} {name:<12} "
                f"{_fmt(rec.get('steps_per_s') if ok else None, '9.2f'):>9} "
                f"{_fmt(rec.get('items_per_s') if ok else None, '10.1f'):>10} "
                f"{_fmt(rec.get('speedup_vs_eager'), '7.2f') + ('x' if rec.get('speedup_vs_eager') else ''):>8} "
                f"{_fmt(rec.get('ratio_to_expert'), '8.2f'):>8} "
                f"{_fmt(rec.get('first_call_s'), '8.2f') + ('s' if rec.get('first_call_s') is not None else ''):>9} "
                f"{_fmt(rec.get('max_abs_loss_diff'), '10.1e'):>10}  {status_text(rec)}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def write_json(results: dict, path: str) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(results, f, indent=1, default=_json_default)


def _json_default(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)


def chart(results: dict, path: str) -> None:
    """Grouped bars: throughput normalized to eager per model and executor (log scale).

    Failed executors get an 'x' at the baseline, wrong results a hatched red-edged bar.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = list(results["models"].values())
    executors = []
    for m in models:
        executors += [e for e in m["executors"] if e not in executors]
    colors = {"eager": "#9e9e9e", "tf.function": "#f4a259", "janus": "#3b7dd8",
              "expert": "#5b8e3e", "expert_xla": "#a3c585", "janus_noxla": "#c9a0dc",
              "janus_xla": "#1f4e9c"}
    width = 0.8 / max(1, len(executors))
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(models) + 2), 4.2))
    ymax, ymin = 1.0, 1.0
    for j, name in enumerate(executors):
        for i, m in enumerate(models):
            rec = m["executors"].get(name)
            x = i - 0.4 + width * (j + 0.5)
            if rec is None:
                continue
            value = 1.0 if name == "eager" and rec["status"] == "ok" else rec.get("speedup_vs_eager")
            if not value:
                label = "n/a" if rec["status"] == "unavailable" else "x"
                ax.text(x, 1.05, label, ha="center", va="bottom", fontsize=7, color="#c0392b")
                continue
            ymax, ymin = max(ymax, value), min(ymin, value)
            wrong = rec.get("correct") is False
            ax.bar(x, value, width, color=colors.get(name, None), hatch="//" if wrong else None,
                   edgecolor="#c0392b" if wrong else "white", label=name if i == 0 else None)
            text = f"{value:.2g}" if value < 1 else f"{value:.1f}"
            ax.text(x, value * 1.05, text + (" wrong" if wrong else ""), ha="center",
                    va="bottom", fontsize=6, rotation=90, color="#c0392b" if wrong else "black")
    handles, labels = [], []
    for name in executors:
        handles.append(plt.Rectangle((0, 0), 1, 1, color=colors.get(name, "#777777")))
        labels.append(name)
    ax.legend(handles, labels, fontsize=8, ncol=len(executors), loc="upper left")
    ax.set_yscale("log")
    ax.set_ylim(min(0.5, ymin / 2), ymax * 6)
    ax.axhline(1.0, color="#555555", linewidth=0.6)
    ax.set_xticks(range(len(models)))
    ax.set_xticklabels([f"{m['name']}\n({m['category']})" for m in models], fontsize=8)
    ax.set_ylabel("throughput / eager (log)")
    meta = results.get("meta", {})
    ax.set_title(f"janus benchmarks ({meta.get('size', '?')} size, {meta.get('cpus', '?')} CPU cores); "
                 "x = failed, hatched = wrong results", fontsize=9)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
