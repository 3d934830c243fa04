"""Time per environment step of the actor-critic episode, janus beside the expert graph.

    python -m benchmarks.episode_steps [--size full] [--warmup 30] [--rounds 3]

Per episode, `benchmarks.interleaved` compares executors whose episodes drift apart (the
expert's float rounding differs from the numpy environment's after ~20 updates, and its
episodes grow at another pace), so its actor-critic ratio mixes speed with episode length.
This times each executor from a fresh state: `--warmup` episodes untimed, then `--rounds`
rounds of 8 episodes, each round's time divided by the environment steps it took.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks.run import quiet_tensorflow


def per_step(size: str, executor: str, warmup: int, rounds: int) -> list[float]:
    """Microseconds per environment step, one number per round of 8 episodes."""
    import janus
    from models import actor_critic

    state = actor_critic.workload(size).make_state()
    if executor == "janus":
        step = janus.jit(actor_critic.step)
        call = lambda: step(state)  # noqa: E731
    else:
        call = actor_critic.make_expert(state)
    for _ in range(warmup):
        call()
    times = []
    for _ in range(rounds):
        first = len(state.episode_lengths)
        start = time.perf_counter()
        for _ in range(8):
            call()
        elapsed = time.perf_counter() - start
        times.append(elapsed / sum(state.episode_lengths[first:]) * 1e6)
    return times


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="full", choices=["full", "quick", "tiny"])
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    quiet_tensorflow()
    out = {name: per_step(args.size, name, args.warmup, args.rounds)
           for name in ("expert", "janus")}
    expert = float(np.median(out["expert"]))
    for name, times in out.items():
        median = float(np.median(times))
        print(f"{name:8s} {median:7.1f} us per environment step  "
              f"({' '.join(f'{t:.1f}' for t in times)})  {expert / median:5.2f}x expert")
    return out


if __name__ == "__main__":
    main()
