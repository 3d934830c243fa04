"""A generalized `while` (no exit test in its body) as one `tf.while_loop`.

    obs, done, steps = env.reset(), False, 0       state = <after iteration 0, peeled>
    while not done:                                 while not done:            (one loop)
        a = policy(obs)                   ->            obs, r, done = env.step(a)
        obs, r, done = env.step(a)                      steps += 1             (a fed int)
        steps += 1                                  env.state, env.steps = ... (deferred)

Two ways, in this order:

* its test is a tensor from the start and its body changes only tensors: a
  `tf.while_loop` over those tensors (general.py `_while`), no iteration peeled, so a
  call that runs it zero times is no special case;
* else (the test is Python-valued until the body makes it a tensor, as `while not done`
  is where `done` starts False; or the body writes heap attributes or changes Python
  numbers) its first iteration is peeled and the loop is built as a loop that breaks on a
  tensor is (exits.py `_while_exit`, with no exit test): heap attributes the body writes
  are carried (graphgen/loop_heap.py), Python numbers it changes are lifted to fed numbers,
  lists it appends to grow in a TensorArray. A first test that is a tensor is then asserted
  true in-graph (the peeled iteration must run: a call where it is false reruns plainly).

The first way is tried under a ledger checkpoint: where the body changes more than
tensors, the attempt is undone and the second way taken. A `while` is generalized where
the plan says so: its test (or an `and`/`or`/`not` operand of it, each a site of its own)
was tensor-valued and varied while profiling, or was Python-valued while profiling and is a
tensor in a trace (Tracer.note_exit: a graph per trip count otherwise).
"""
from __future__ import annotations

from janus.errors import ConversionError
from janus.graphgen.bool_values import _undone
from janus.graphgen.exits import _OPERAND, LoopItems, _predicate
from janus.graphgen.general import all_symbolic
from janus.graphgen.value_kinds import is_symbolic
from janus.transform.runtime import UNDEFINED


class _Test:
    """A `while`'s test as the loop built of it evaluates it: its `and`/`or`/`not` operands
    (sites of their own) give their predicates unguarded, as an exit test's do."""

    def __init__(self, test, exits: dict, operands: dict):
        self.test, self.exits, self.operands = test, exits, operands

    def __call__(self):
        self.exits.update(self.operands)
        try:
            return self.test()
        finally:
            for key in self.operands:
                self.exits.pop(key, None)


class _FirstThen:
    """A loop's test whose first value was already computed (it ran once, not twice).
    In the loop it must be a tensor: a Python value there (nothing the body changes
    decides it) would make a loop the graph never leaves."""

    def __init__(self, first, test):
        self.first, self.test, self.used = first, test, False

    def __call__(self):
        if not self.used:
            self.used = True
            return self.first
        value = self.test()
        if not is_symbolic(_predicate(value)):
            raise ConversionError("the test of a generalized `while` is a Python value "
                                  "inside the loop")
        return value


class GeneralWhile:
    """Mixed into the graph runtime (with GeneralControlFlow and ExitLoops)."""

    def _while_general(self, site) -> bool:
        """Whether the plan generalizes this `while` (its test's site or an operand's)."""
        general = self.tracer.plan.general_branches
        return any((self.key, s) in general
                   for s in (site,) + tuple(self.function.sites[site].parts))

    def _general_while(self, site, test, body, get_state, set_state, names) -> None:
        """The `while` at `site` as one tf.while_loop (the module docstring's two ways)."""
        tracer = self.tracer
        test = _Test(test, tracer.loop_exits, {(self.key, p): _OPERAND
                                               for p in self.function.sites[site].parts})
        first = test()
        initial = get_state()
        if is_symbolic(first) and all(v is UNDEFINED or all_symbolic(v) for v in initial):
            point = (tracer.ledger.checkpoint(), tracer.shadow.writes, tracer.local_writes)
            try:
                return self._while(site, first, test, body, get_state, set_state, names)
            except ConversionError:
                if not _undone(tracer, point):
                    raise
                set_state(initial)
        self._while_exit(site, (self.key, site), LoopItems(None, None, _FirstThen(first, test)),
                         body, get_state, set_state, names, ())
