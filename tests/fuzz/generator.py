"""A seeded generator of small imperative TensorFlow programs and their call sequences.

    program = generate(seed)
    program.source   # a module: globals, helpers, class State, def f(s, x, xs, n, flag)
    program.calls    # a list of call specs (plain data, see tests/fuzz/inputs.py)

The body of `f` (and of its helpers) is made of statements drawn from the rule
registry in `tests/fuzz/rules.py`; a rule is one construct, so adding a construct
is adding one entry there. Every program terminates: loops are bounded by counters.
"""
from __future__ import annotations

import dataclasses
import importlib
import random

from tests.fuzz import inputs

GENERATOR_VERSION = 113

HEADER = '''\
import functools
import math

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)  # the fuzzer sets janus.jit on the janus side

G_LIST = []
G_DICT = {}
G_SCALE = 1.5
G_COUNT = 0
ENV = {"scale": 2.0}
V0 = tf.Variable(0.5)
V1 = tf.Variable(tf.zeros([]))
'''

STATE = '''\
class State:
    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.hist = []
        self.d = {}
        self.h = tf.zeros([])
'''


@dataclasses.dataclass
class Program:
    seed: int
    source: str
    calls: list
    rules: list  # names of the rules used (for coverage counts)


class Gen:
    """What a rule needs while writing code: randomness, names in scope, module parts."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.counter = 0
        self.helpers: list[str] = []          # module-level defs (source text)
        self.methods: list[str] = []          # State methods (source text, indented)
        self.tensor_fns: list[str] = []       # callables t -> t usable in expressions
        self.scopes: list[dict] = [{"tensor": ["x", "acc"], "int": ["k", "n"]}]
        self.iterating: set[str] = set()      # lists being iterated (not mutated)
        self.globals_declared: set[str] = set()
        self.depth = 0
        self.loop_depth = 0
        self.in_nested_def = False
        self.used: list[str] = []
        self.graphable = False                # leave out constructs janus runs eagerly

    # -- names
    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def names(self, kind: str) -> list[str]:
        return [n for scope in self.scopes for n in scope.get(kind, [])]

    def bind(self, kind: str, name: str) -> None:
        self.scopes[-1].setdefault(kind, []).append(name)

    def choice(self, seq):
        return self.rng.choice(list(seq))

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    # -- expressions
    def tensor(self) -> str:
        """A name of a tensor local with x's shape and dtype."""
        return self.choice(self.names("tensor"))

    def int_expr(self) -> str:
        return self.choice(self.names("int") + ["len(xs)", "s.count", "len(s.hist)"])

    def texpr(self, depth: int = 0) -> str:
        """A tensor expression of x's shape and dtype."""
        a = self.tensor()
        if depth >= 2 or self.chance(0.3):
            return a
        b = self.texpr(depth + 1)
        options = [
            f"tf.tanh({b})",
            f"{a} * 0.5 + {b}",
            f"{b} - 0.5 * tf.reduce_mean({a})",  # (centred exactly, a test on its mean
            # against 0 is rounding noise: long-run seed 404305)
            f"tf.maximum({a}, {b})",
            f"{b} * G_SCALE",
            f"{b} * tf.cast(V0, x.dtype)",
            f"{b} + float(k)",
            f"tf.sin({b}) * 0.9",
        ]
        if self.tensor_fns:
            options += [f"{self.choice(self.tensor_fns)}({b})"] * 2
        return self.choice(options)

    def pcond(self) -> str:
        """A condition on Python values."""
        c = self.rng.randint(0, 3)
        return self.choice([
            f"n > {c}", f"k % 2 == {c % 2}", "flag", "not flag", f"len(xs) > {c}",
            "len(xs) == 1", f"s.count < {c + 1}", "'a' in s.d", f"G_COUNT > {c}",
            f"len(s.hist) >= {c}",
        ])

    def tcond(self) -> str:
        """A condition on a tensor value (a scalar boolean tensor)."""
        c = self.choice(["-0.5", "0.0", "0.5", "1.0", "2.0"])
        red = self.choice(["reduce_sum", "reduce_mean", "reduce_max", "reduce_min"])
        return f"tf.{red}({self.tensor()}) > {c}"

    def cond(self) -> str:
        r = self.rng.random()
        if r < 0.4:
            return self.pcond()
        if r < 0.7:
            return self.tcond()
        a, b = self.pcond(), self.tcond()
        if self.chance(0.5):
            a, b = b, a
        return f"{a} {self.choice(['and', 'or'])} {b}"

    # -- statements
    def block(self, count: int | None = None) -> list[str]:
        """A nested block of statements in a new scope (names bound in it stay in it)."""
        from tests.fuzz.rules import statement  # (rules registered by generate)

        self.scopes.append({})
        self.depth += 1
        try:
            n = count if count is not None else self.rng.randint(1, 3)
            lines = []
            for _ in range(n):
                lines += statement(self)
            return lines or ["pass"]
        finally:
            self.depth -= 1
            self.scopes.pop()


def indent(lines: list[str], by: int = 1) -> list[str]:
    return ["    " * by + line for line in lines]


RETURNS = ["acc", "(acc, k)", "(acc, out)", "{'acc': acc, 'k': k}", "[acc, x]",
           "(k, len(out))", "(acc, s.count)"]
EAGER_RETURNS = ["float(tf.reduce_sum(acc))", "acc.numpy()"]
GRAPHABLE = 0.6  # fraction of programs without the constructs janus runs eagerly
METHOD_ENTRY = 0.2  # fraction of programs whose entry point is a jitted method
METHOD_RUN = """\
    @JIT
    def run(self, x, xs, n, flag):
        return f(self, x, xs, n, flag)
"""


# The rule modules, in registration order: a rule's place in the registry decides which
# program a seed makes, so a new module goes at the end (and GENERATOR_VERSION moves).
RULE_MODULES = (
    "rules_boolvals", "rules_deferred", "rules_exact", "rules_exits", "rules_extra",
    "rules_identity", "rules_keras", "rules_loops", "rules_more", "rules_more9",
    "rules_raising", "rules_rng", "rules_slow", "rules_sizes", "rules_tapes", "rules_sums",
    "rules_zoo", "rules_zoo2", "rules_zoo3", "rules_zoo4", "rules_s27", "rules_s27_keras",
    "rules_s27_state", "rules_s28_edges", "rules_s28_frames", "rules_s28_heap_calls",
    "rules_s28_held_state", "rules_s28_kept_graphs", "rules_s28_library_state",
    "rules_s28_split_churn", "rules_s29_entry", "rules_s29_handoffs", "rules_s29_settings",
    "rules_s29_held", "rules_s30_lengths", "rules_s30_held", "rules_s30_trace_state",
    "rules_s30_modules", "rules_s30_layers", "rules_s30_optimizers",
    "rules_s30_library_objects", "rules_s30_frames", "rules_s31_arrays",
    "rules_s31_closures", "rules_s31_deep_recursion", "rules_s31_identity",
    "rules_s31_library_state", "rules_s31_modes", "rules_s31_segments",
    "rules_s31_tape_arrays", "rules_s31_tests", "rules_s31_varying",
    "rules_s32_reads_identity", "rules_s32_rare_outcomes", "rules_s32_recursion",
    "rules_s32_regenerations", "rules_s32_fed_numbers", "rules_s32_rows",
    "rules_s32_ambient",
    "rules_s33_unseen_reads", "rules_s33_scatter_commit", "rules_s33_tensor_attrs",
    "rules_s33_callables", "rules_s33_append_len",
    "rules_s34_threads", "rules_s34_number_lists", "rules_s34_plain_helper_room",
    "rules_s34_conversions", "rules_s34_dispatch", "rules_s34_lifetimes_dispatch",
    "rules_s34_class_reads",
    "rules_s35_numpy_modes",
    "rules_s35_tf_threads",
    "rules_s35_tf_config",
    "rules_s35_variable_truth",
    "rules_s35_hidden_effects",
    "rules_s35_short_sums",
    "rules_s35_dunder_effects",
    "rules_s35_warning_frames",
    "rules_s37_library_state",
    "rules_s37_enum_keys",
    "rules_s37_process_reads",
    "rules_s37_hidden_state",
    "rules_s38_operator_lists",
    "rules_s38_library_conds",
    "rules_s38_tensor_index",
    "rules_s38_unseen",
    "rules_s38_frames_threads",
    "rules_s38_lifetimes",
    "rules_s39_thread_writes",
    "rules_s39_bounds",
    "rules_s39_reads",
    "rules_s39_unseen",
    "rules_s39_periodic",
)


def register_rules() -> None:
    """Import every rule module (each registers its rules), in RULE_MODULES' order."""
    for name in RULE_MODULES:
        importlib.import_module(f"tests.fuzz.{name}")


def generate(seed: int, n_calls: int | None = None) -> Program:
    """The program and call sequence of `seed` (deterministic for a generator version)."""
    register_rules()
    from tests.fuzz.rules import statement

    rng = random.Random(seed)
    g = Gen(rng)
    g.graphable = rng.random() < GRAPHABLE
    body = ["acc = x * 0.5", "k = 0", "out = []"]
    for _ in range(rng.randint(3, 7)):
        body += statement(g)
    body.append(f"return {rng.choice(RETURNS + ([] if g.graphable else EAGER_RETURNS))}")
    if rng.random() < METHOD_ENTRY:
        g.methods.insert(0, METHOD_RUN)
    if g.globals_declared:
        body.insert(0, "global " + ", ".join(sorted(g.globals_declared)))
    parts = [HEADER]
    parts += ["\n".join(h.rstrip("\n").splitlines()) + "\n" for h in g.helpers]
    state = STATE + "".join("\n" + m for m in g.methods)
    parts.append(state)
    if g.methods and g.methods[0] is METHOD_RUN:
        parts.append('ENTRY = "method"  # the fuzzer calls s.run(x, xs, n, flag)\n')
    parts.append("def f(s, x, xs, n, flag):\n" + "\n".join(indent(body)) + "\n")
    source = "\n\n".join(p.rstrip("\n") + "\n" for p in parts)
    calls = inputs.call_sequence(random.Random(seed * 7919 + 1), n_calls)
    return Program(seed, source, calls, sorted(set(g.used)))
