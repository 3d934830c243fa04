"""Run one workload under several executors on identical batches and measure.

For each executor: fresh state from ``make_state``, wrap the step, run ``warmup`` steps
then up to ``steps`` measured steps (stopping early when the executor's budget of step
time is spent), time every call (the loss is pulled to the host, so the time covers the
whole step), and compare each loss with the eager loss on the same batch. After the
warm-up, janus first finishes its background XLA compilations, untimed (``settle_s``),
and while it still decides something (`janus.deciding`: a trial of its graph against
plain Python or XLA, a segment on trial...) its calls count as warm-up
(``warmup_steps``), for up to ``decide_steps`` more batches; every executor runs the
same batches (eager, the reference, runs them all; every executor measures ``steps``
of them). By default the executors' measured steps run in interleaved rounds (see
`run_workload`): on a shared machine a load change between two executors' runs
otherwise shows up as a speed difference.
"""
from __future__ import annotations

import dataclasses
import gc
import math
import time
import traceback
from typing import Any, Callable, Optional, Sequence

import numpy as np

from benchmarks.executors import Unavailable, prepare
from models.common import Workload, to_float

SLOW_STEP_S = 2.0  # print a progress line for any step slower than this


@dataclasses.dataclass
class RunConfig:
    """How many steps to run and how to summarize them."""

    warmup: int = 3        # untimed steps (janus profiles and generates here)
    steps: int = 10        # measured steps
    windows: int = 5       # throughput = median over this many windows of measured steps
    budget_s: float = 60.0  # wall time per executor; measured steps stop once it is spent
    decide_steps: int = 16  # extra warm-up batches for an executor still deciding (XLA trial)
    interleaved: bool = True  # measured steps in rounds across executors (see run_workload)


def median_throughput(step_times: Sequence[float], windows: int) -> Optional[float]:
    """Steps/s as the median over ``windows`` consecutive windows of step times."""
    times = np.asarray(step_times, dtype=np.float64)
    if len(times) == 0 or times.sum() <= 0:
        return None
    chunks = [c for c in np.array_split(times, max(1, min(windows, len(times)))) if len(c)]
    return float(np.median([len(c) / c.sum() for c in chunks]))


def first_line(text: str) -> str:
    """The line that says what went wrong.

    TensorFlow's trace-time errors start with "in user code:" and a stack of
    file lines; the actual message is the last line then.
    """
    lines = [line.strip() for line in str(text).strip().splitlines() if line.strip()]
    if not lines:
        return ""
    if lines[0].startswith("in user code:") and len(lines) > 1:
        return lines[-1]
    return lines[0]


def _snapshot(variables: list) -> list[np.ndarray]:
    return [np.array(v) for v in variables]


class ExecutorRun:
    """One executor's run on a workload: its state, and the time and loss of each step.

    `open` prepares it, `step` runs the next batch; `warming` while it warms up (janus:
    until it decides nothing more, `Prepared.settled`), `active` until it stopped (its
    measured steps done, an error, its budget spent; eager, the reference, runs every
    batch). `finish` sums it up."""

    def __init__(self, workload: Workload, executor: str, batches: list, config: RunConfig,
                 progress: Callable[[str], None] = print):
        self.workload, self.executor, self.batches, self.config = workload, executor, batches, config
        self.progress = progress
        self.rec: dict[str, Any] = {
            "executor": executor, "status": "ok", "error": None, "error_type": None,
            "error_first_line": None, "error_step": None, "truncated": False}
        self.tag = f"[{workload.name}] {executor}"
        self.losses: list[float] = []
        self.times: list[float] = []
        self.snapshots: dict[int, list] = {}  # eager: the reference variables after late steps
        self.warmup = config.warmup  # grows while the executor still decides
        self.spent = 0.0  # seconds of its own steps after the first (its budget)
        self.active = False
        self.state = self.prepared = None

    def open(self) -> bool:
        """Make its state and wrap the step; False when it cannot run (recorded)."""
        gc.collect()
        try:
            self.state = self.workload.make_state()
            self.prepared = prepare(self.executor, self.workload, self.state)
        except Unavailable as e:
            self.rec.update(status="unavailable", error=str(e), error_first_line=first_line(str(e)))
            self.progress(f"{self.tag}: unavailable ({first_line(str(e))})")
            return False
        except Exception as e:
            _record_error(self.rec, e, step=None)
            self.progress(f"{self.tag}: error while wrapping: {self.rec['error_first_line']}")
            return False
        self.active = True
        return True

    @property
    def warming(self) -> bool:
        return self.active and len(self.times) < self.warmup

    def step(self) -> None:
        """Run the next batch (the run must be active); timed, its loss kept."""
        i, config, total = len(self.times), self.config, len(self.batches)
        t0 = time.perf_counter()
        try:
            loss = to_float(self.prepared.call(*self.batches[i]))
        except Exception as e:
            _record_error(self.rec, e, step=i)
            self.progress(f"{self.tag}: step {i} raised {self.rec['error_type']}: "
                          f"{self.rec['error_first_line'][:120]}")
            self.active = False
            return
        elapsed = time.perf_counter() - t0
        self.losses.append(loss)
        self.times.append(elapsed)
        self.spent += elapsed if i else 0.0
        if self.executor == "eager" and i + 1 >= config.warmup + config.steps:
            self.snapshots[i + 1] = _snapshot(self.workload.variables(self.state))
        if i + 1 == config.warmup:  # janus: wait for its background XLA compilations
            t1 = time.perf_counter()
            self.prepared.settle()
            self.rec["settle_s"] = time.perf_counter() - t1
        if i + 1 >= self.warmup and i + 1 + config.steps < total and not self.prepared.settled():
            self.warmup = i + 2  # a decision under way (a trial's calls): still warming up
        if elapsed > SLOW_STEP_S:
            self.progress(f"{self.tag}: step {i + 1}/{total} took {elapsed:.1f}s")
        if i + 1 >= total or self.executor != "eager" and i + 1 >= self.warmup + config.steps:
            self.active = False  # (eager runs every batch: the reference for all)
        elif i + 1 >= self.warmup + 1 and self.spent > config.budget_s:
            self.rec["truncated"] = True
            self.progress(f"{self.tag}: budget of {config.budget_s:.0f}s spent after "
                          f"{i + 1}/{total} steps")
            self.active = False

    def finish(self, reference: Optional[dict] = None) -> tuple[dict, Any]:
        """(result record, final variable values or None; for eager, the reference,
        {steps run: variable values} from ``warmup + steps`` steps on)."""
        rec, times, warmup, workload = self.rec, self.times, self.warmup, self.workload
        if self.prepared is None:
            return rec, None
        try:
            rec.update(self.prepared.info() or {})
        except Exception as e:  # counters are a bonus; never fail the run for them
            rec["info_error"] = f"{type(e).__name__}: {e}"
        measured = times[warmup:warmup + self.config.steps] if len(times) > warmup else times[1:]
        steps_per_s = median_throughput(measured, self.config.windows)
        rec.update(
            steps_run=len(times), measured_steps=len(measured),
            first_call_s=times[0] if times else None,
            max_warmup_call_s=max(times[:warmup]) if times[:warmup] else None,
            warmup_steps=min(warmup, len(times)),
            steps_per_s=steps_per_s,
            items_per_s=steps_per_s * workload.items_per_step if steps_per_s else None,
            mean_step_s=float(np.mean(measured)) if measured else None,
            step_times_s=times, losses=self.losses,
        )
        if rec["status"] == "ok" and not all(math.isfinite(v) for v in self.losses):
            rec["status"] = "error"
            rec["error"] = rec["error_first_line"] = "non-finite loss"
        _compare(rec, workload, reference)
        final = _snapshot(workload.variables(self.state)) if rec["status"] == "ok" else None
        expected = (reference or {}).get("variables", {}).get(rec["steps_run"])
        if final is not None and expected is not None:
            rec["max_abs_variable_diff"] = float(max(
                (np.max(np.abs(a - b)) if a.size else 0.0) for a, b in zip(final, expected)))
        thr = f"{steps_per_s:.2f} steps/s" if steps_per_s else "no throughput"
        check = "" if rec.get("correct") is None or rec["status"] != "ok" else (
            "  correct" if rec["correct"] else "  WRONG RESULTS")
        self.progress(f"{self.tag}: {rec['status']}, {thr}, first call "
                      f"{rec['first_call_s'] or 0:.2f}s{check}")
        return rec, (self.snapshots if self.executor == "eager" else final)


def run_executor(workload: Workload, executor: str, batches: list, config: RunConfig,
                 reference: Optional[dict] = None,
                 progress: Callable[[str], None] = print) -> tuple[dict, Optional[list]]:
    """Run one executor alone, start to end (see `ExecutorRun.finish` for the result)."""
    run = ExecutorRun(workload, executor, batches, config, progress)
    if run.open():
        while run.active:
            run.step()
    return run.finish(reference)


def _record_error(rec: dict, e: BaseException, step: Optional[int]) -> None:
    text = f"{type(e).__name__}: {e}"
    rec.update(status="error", error=text[:4000], error_type=type(e).__name__,
               error_first_line=first_line(str(e)) or type(e).__name__, error_step=step,
               traceback=traceback.format_exc(limit=6)[-4000:])


def _compare(rec: dict, workload: Workload, reference: Optional[dict]) -> None:
    """Losses vs the eager reference on the same batches: max abs/rel difference, verdict."""
    rec.update(max_abs_loss_diff=None, max_rel_loss_diff=None, compared_steps=0, correct=None)
    if reference is None or rec["executor"] == "eager":
        return
    ref = reference["losses"]
    n = min(len(ref), len(rec["losses"]))
    if n == 0:
        return
    got, want = np.asarray(rec["losses"][:n]), np.asarray(ref[:n])
    diff = np.abs(got - want)
    rel = diff / np.maximum(1.0, np.abs(want))
    rec.update(max_abs_loss_diff=float(np.max(diff)), max_rel_loss_diff=float(np.max(rel)),
               compared_steps=n,
               first_wrong_step=int(np.argmax(rel > workload.tolerance)) if np.any(rel > workload.tolerance) else None,
               correct=bool(np.all(rel <= workload.tolerance)))


def run_workload(workload: Workload, executors: Sequence[str], config: RunConfig,
                 progress: Callable[[str], None] = print) -> dict:
    """All executors on one workload; eager always comes first (it is the reference).

    With ``config.interleaved`` each executor warms up in turn (all as long as the
    longest, so all measure the same batches), then their measured steps run in rounds,
    one step of each per round (the order reversed every other round), so a change of
    the machine's load falls on all of them alike; otherwise each runs start to end
    before the next."""
    order = ["eager"] + [e for e in executors if e != "eager"]
    batches = workload.batches(config.warmup + config.steps + config.decide_steps)
    result = {"name": workload.name, "category": workload.category, "size": workload.size,
              "items_per_step": workload.items_per_step, "item_name": workload.item_name,
              "tolerance": workload.tolerance, "params": workload.params,
              "eager_run_as_reference": "eager" not in executors,
              "interleaved": config.interleaved, "executors": {}}
    runs = [ExecutorRun(workload, name, batches, config, progress) for name in order]
    if config.interleaved:
        for run in runs:
            if run.open():
                while run.warming:
                    run.step()
        # every executor measures the same batches: who warmed up less warms up more
        start = max((run.warmup for run in runs if run.active), default=0)
        for run in runs:
            run.warmup = max(run.warmup, start)
            while run.warming:
                run.step()
        gc.collect()
        for r in range(config.steps):
            for run in (runs if r % 2 == 0 else runs[::-1]):
                if run.active and len(run.times) < run.warmup + config.steps:
                    run.step()
    reference = None
    for run in runs:
        if not config.interleaved:
            run.open()
        while run.active:  # (interleaved: eager's reference steps after the measured ones)
            run.step()
        rec, final = run.finish(reference)
        if run.executor == "eager":
            if rec["status"] != "ok":
                progress(f"[{workload.name}] eager failed: no reference for correctness")
            else:
                reference = {"losses": rec["losses"], "variables": final}
        result["executors"][run.executor] = rec
        run.state = run.prepared = None  # (its memory, before the next executor's run)
    _relative(result)
    return result


def _relative(result: dict) -> None:
    """Add speedup over eager and ratio to the expert to every executor record."""
    ex = result["executors"]
    base = (ex.get("eager") or {}).get("steps_per_s")
    expert = (ex.get("expert") or {}).get("steps_per_s")
    for rec in ex.values():
        thr = rec.get("steps_per_s")
        ok = rec.get("status") == "ok" and thr
        rec["speedup_vs_eager"] = thr / base if ok and base else None
        rec["ratio_to_expert"] = thr / expert if ok and expert else None
