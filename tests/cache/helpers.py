"""Running janus programs and the `janus` command in subprocesses, several at a time."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclasses.dataclass
class Result:
    args: list
    returncode: int
    stdout: str
    stderr: str

    def __str__(self):
        return (f"$ {' '.join(map(str, self.args))}\n-> {self.returncode}\n"
                f"--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}")


def env_for(cache_dir, **extra) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    env["JANUS_CACHE_DIR"] = str(cache_dir)
    env.pop("JANUS_LOGS", None)
    env.pop("JANUS_CACHE", None)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def janus_command() -> list:
    """The installed console script if there is one next to this Python, else -m janus.cli."""
    script = os.path.join(os.path.dirname(sys.executable), "janus")
    if os.path.exists(script):
        return [script]
    return [sys.executable, "-m", "janus.cli"]


def python_script(tmp_path, name: str, source: str) -> str:
    path = os.path.join(str(tmp_path), name)
    with open(path, "w") as f:
        f.write(textwrap.dedent(source))
    return path


def run_many(jobs, parallel: int = 3, timeout: float = 120) -> list:
    """jobs: [(argv, env, stdin_text)] -> [Result], run `parallel` at a time."""
    results = [None] * len(jobs)
    running = []
    queue = list(enumerate(jobs))
    deadline = time.monotonic() + timeout
    while queue or running:
        while queue and len(running) < parallel:
            index, (argv, env, stdin) = queue.pop(0)
            proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, stdin=subprocess.PIPE, text=True)
            running.append((index, argv, proc, stdin))
        index, argv, proc, stdin = running.pop(0)
        out, err = proc.communicate(stdin or "", timeout=max(1, deadline - time.monotonic()))
        results[index] = Result(argv, proc.returncode, out, err)
    return results


# A jitted step the cache tests record, tamper with and run again (in-process and in
# subprocesses): a loop over a list, a heap write, a global, a dict argument.
STEP_PROGRAM = '''import janus
import tensorflow as tf

SCALE = 2.0


class Model:
    def __init__(self):
        self.w = tf.Variable([[0.5, -0.25], [0.75, 0.5]])
        self.last = None


@janus.jit
def step(model, xs, opts):
    h = tf.zeros([1, 2])
    for x in xs:
        h = tf.matmul(h + x, model.w)
    model.last = h * SCALE
    return tf.reduce_sum(h) * opts["k"]
'''
