"""Multi-task regression with a spaced-repetition curriculum: the task due next is kept in
a `heapq` priority queue of `(due_step, task_id)` tuples on the state (`heappop` the due
task, `heappush` it back with a Python-doubled or reset interval depending on a Python
threshold on the call's difficulty), the learning rate looked up with
`bisect.bisect_right` in a boundaries list, milestones recorded with `bisect.insort`
into a sorted Python list, per-task heads as tf.Variables in a dict keyed by task name,
a shared trunk variable, and a Python step counter; the batch size changes between calls.

janus (this session): diverges at the first graph call: `heapq.heappush`/`heapreplace`
and `bisect.insort` mutate the heap list inside a C function, and the mutation is lost
in graph calls (repro /tmp/s25/repros3/list_mutation_via_function_lost.py)."""
import bisect
import heapq

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16
TASKS = ["sin", "lin", "quad"]
BOUNDARIES = [4, 8, 12]
RATES = [0.2, 0.1, 0.05, 0.02]


class State:
    def __init__(self):
        rng = np.random.RandomState(77)
        self.trunk = tf.Variable(rng.randn(2, 6).astype(np.float32) * 0.5)
        self.heads = {t: tf.Variable(rng.randn(6, 1).astype(np.float32) * 0.1)
                      for t in TASKS}
        self.queue = [(0, 0), (1, 1), (2, 2)]  # (due step, task index)
        self.interval = [1, 1, 1]
        self.step = 0
        self.milestones = []
        self.seen = {t: 0 for t in TASKS}


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(700 + i)
    n = 4 + i % 3
    x = rng.uniform(-1, 1, size=(n, 2)).astype(np.float32)
    hard = float(rng.uniform(0, 1))
    return tf.constant(x), hard


def target(task, x):
    if task == "sin":
        return tf.sin(3.0 * x[:, :1])
    if task == "lin":
        return x[:, :1] - 0.5 * x[:, 1:]
    return x[:, :1] * x[:, 1:]


@JIT
def train_step(s, x, hard):
    s.step += 1
    due, k = heapq.heappop(s.queue)
    task = TASKS[k]
    s.seen[task] += 1
    lr = RATES[bisect.bisect_right(BOUNDARIES, s.step)]
    head = s.heads[task]
    with tf.GradientTape() as tape:
        h = tf.tanh(x @ s.trunk)
        loss = tf.reduce_mean(tf.square(h @ head - target(task, x)))
    g_trunk, g_head = tape.gradient(loss, [s.trunk, head])
    s.trunk.assign_sub(lr * g_trunk)
    head.assign_sub(lr * g_head)
    if hard > 0.6:
        s.interval[k] = 1
    else:
        s.interval[k] = min(s.interval[k] * 2, 8)
    heapq.heappush(s.queue, (s.step + s.interval[k], k))
    if s.seen[task] % 3 == 0:
        bisect.insort(s.milestones, (s.step, task))
    return loss, task, lr, len(s.milestones)


STEP = train_step
