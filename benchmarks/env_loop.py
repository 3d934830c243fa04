"""A loop that steps a numpy environment object until it says done (graphgen/loop_heap.py).

    python -m benchmarks.env_loop [--size quick|full] [--rounds R] [--out DIR]

The episode a researcher writes: a policy (a tensor op) picks the push, a Python
`Walker` object on the heap (models/envs.py) keeps a numpy state and a Python step
counter and says `done`; rewards go to a list; `break` when done. janus makes the whole
loop one tf.while_loop (the walker's attributes carried as loop state, written back
once). Side by side, per episode: plain eager, janus, `tf.function` (AutoGraph: it
freezes the numpy environment into constants, so its numbers are not the program's:
shown only as a peer's speed, `tf.function right` says whether its results matched;
where it cannot trace the program at all, the error is shown), and the expert: a hand-
written `tf.function(autograph=False)` with the dynamics in float64 inside a
`tf.while_loop`. Ratios against the expert (`janus/expert` = expert time / janus time).
The same episode written `while not done:` (no `break`), eager and janus, on its own line.
"""
from __future__ import annotations

import argparse
import json
import os
from typing import Optional, Sequence

import numpy as np

from benchmarks.overhead import per_call
from models.envs import Walker
from benchmarks.run import DEFAULT_OUT, quiet_tensorflow

SIZES = {"quick": (60, 0.6), "full": (400, 3.0), "tiny": (12, 0.05)}  # (max steps, wall)


def episode(env, w, obs, horizon):
    """Run the walker with the policy `w` until done; (pushes summed, episode length)."""
    import tensorflow as tf

    rewards = []
    total = tf.constant(0.0)
    for t in range(horizon):
        x = tf.convert_to_tensor(obs)
        push = tf.reduce_sum(x * w) + 0.01 * t - 0.1
        obs, reward, done = env.step(push)
        rewards.append(reward)
        total = total + push
        if done:
            break
    return total, len(rewards)


def episode_while(env, w, obs, horizon):
    """`episode` as `while not done:` (no `break`, the counter a Python int): janus builds
    it as one tf.while_loop too (graphgen/general_while.py)."""
    import tensorflow as tf

    rewards = []
    total = tf.constant(0.0)
    done, t = False, 0
    while not done:
        x = tf.convert_to_tensor(obs)
        push = tf.reduce_sum(x * w) + 0.01 * t - 0.1
        obs, reward, done = env.step(push)
        rewards.append(reward)
        total = total + push
        t += 1
    return total, len(rewards)


def make_expert(limit: float, max_steps: int):
    """The same episode by hand: float64 dynamics in one tf.while_loop."""
    import tensorflow as tf

    @tf.function(autograph=False)
    def expert(state, w):
        def body(t, s, total, done):
            x = tf.cast(s, tf.float32)
            push = tf.reduce_sum(x * w) + 0.01 * tf.cast(t, tf.float32) - 0.1
            force = tf.where(push > 0, tf.constant(0.5, tf.float64),
                             tf.constant(-0.3, tf.float64))
            v = s[1] + 0.01 * force
            s = tf.stack([s[0] + 0.01 * v, v])
            done = tf.logical_or(tf.abs(s[0]) > limit, t + 1 >= max_steps)
            return t + 1, s, total + push, done

        t, s, total, _ = tf.while_loop(lambda t, s, total, done: tf.logical_not(done), body,
                                       (tf.constant(0), state, tf.constant(0.0),
                                        tf.constant(False)))
        return total, t, s

    return expert


def measure(size: str, rounds: int) -> dict:
    import tensorflow as tf

    import janus

    max_steps, limit = SIZES[size]
    w = tf.constant([0.3, 0.2])
    start = np.array([0.001, -0.002])
    envs = {name: Walker(limit, max_steps, dt=0.01)
            for name in ("eager", "janus", "tf.function", "eager while", "janus while")}
    jitted, traced = janus.jit(episode), tf.function(episode)
    jitted_while = janus.jit(episode_while)
    expert = make_expert(limit, max_steps)

    def run(fn, env):
        env.state, env.steps = start.copy(), 0
        return fn(env, w, env.state.astype(np.float32), max_steps + 10)

    fns = {"eager": lambda: run(episode, envs["eager"]),
           "janus": lambda: run(jitted, envs["janus"]),
           "tf.function": lambda: run(traced, envs["tf.function"]),
           "eager while": lambda: run(episode_while, envs["eager while"]),
           "janus while": lambda: run(jitted_while, envs["janus while"]),
           "expert": lambda: expert(tf.constant(start), w)}
    failed = {}
    try:
        fns["tf.function"]()
    except Exception as exc:  # noqa: BLE001 - the peer cannot run this program: say why
        failed["tf.function"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
        del fns["tf.function"]
    for _ in range(6):  # (janus profiles, generates, settles)
        for fn in fns.values():
            fn()
    reference = fns["eager"]()
    right = {name: _same(reference, fns[name]()) and envs[name].steps == envs["eager"].steps
             for name in ("janus", "tf.function", "eager while", "janus while") if name in fns}
    times = per_call(fns, calls=5, rounds=rounds)
    stats, stats_while = janus.stats(jitted), janus.stats(jitted_while)
    return {"size": size, "steps": int(reference[1]),
            "ms": {k: v * 1e3 for k, v in times.items()},
            "janus_over_eager": times["eager"] / times["janus"],
            "janus_over_expert": times["expert"] / times["janus"],
            "tf_function_over_expert": times["expert"] / times["tf.function"]
            if "tf.function" in times else None,
            "janus_right": right["janus"], "tf_function_right": right.get("tf.function"),
            "tf_function_failed": failed.get("tf.function"),
            "janus_generations": stats.generations, "janus_graph_calls": stats.graph_calls,
            "while_janus_over_eager": times["eager while"] / times["janus while"],
            "while_right": right["eager while"] and right["janus while"],
            "while_generations": stats_while.generations,
            "while_graph_calls": stats_while.graph_calls}


def _same(a, b) -> bool:
    """Equal lengths, and sums within the differential tests' tolerance (tests/
    differential.py: TF's graph rewrites may regroup a float32 sum by an ulp)."""
    return int(a[1]) == int(b[1]) and bool(np.isclose(float(a[0]), float(b[0]), rtol=1e-5,
                                                      atol=1e-5))


def main(argv: Optional[Sequence[str]] = None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", choices=["quick", "full", "both", "tiny"], default="both")
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--out", default=DEFAULT_OUT)
    args = p.parse_args(argv)
    quiet_tensorflow()
    rows = [measure(s, args.rounds) for s in (["quick", "full"] if args.size == "both"
                                               else [args.size])]
    for r in rows:
        ms = r["ms"]
        if r["tf_function_failed"] is None:
            peer = f"tf.function {ms['tf.function']:.2f} ms " \
                f"({r['tf_function_over_expert']:.2f} of the expert, " \
                f"right: {r['tf_function_right']})"
        else:
            peer = f"tf.function fails ({r['tf_function_failed']})"
        print(f"{r['size']} ({r['steps']} steps), ms/episode: eager {ms['eager']:.2f}, janus "
              f"{ms['janus']:.2f}, expert {ms['expert']:.2f} | janus/eager "
              f"{r['janus_over_eager']:.2f}x, janus/expert {r['janus_over_expert']:.2f} | "
              f"janus right: {r['janus_right']} ({r['janus_generations']} generations) | "
              f"{peer}")
        print(f"  `while not done:` form, ms/episode: eager {ms['eager while']:.2f}, janus "
              f"{ms['janus while']:.2f} | janus/eager {r['while_janus_over_eager']:.2f}x | "
              f"janus right: {r['while_right']} ({r['while_generations']} generations)")
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "env_loop.json")
    with open(path, "w") as f:
        json.dump(rows, f, indent=1)
    print(f"wrote {path}")
    return rows


if __name__ == "__main__":
    main()
