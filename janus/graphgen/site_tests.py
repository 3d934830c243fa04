"""The tests of a function's `if`/`while` sites as a trace meets them: a Python-valued test
is counted, a tensor-valued one is specialized to the outcome profiling saw and asserted
in-graph (an `InGraphGuard`: a failed assertion reruns the call), a loop's exit test found
tensor-valued is noted for a general `tf.while_loop`.

    if x > 0:            (profiled: True on every call)
        ...              traced: Assert(x > 0, ["janus-guard-3"]), then the `if` body only

A mixin of `graphgen.tracer.Tracer`; it uses the trace's profile, plan, in-graph guards
and assertion ops.
"""
from __future__ import annotations

import tensorflow as tf

from janus.errors import ConversionError, Unprofiled
from janus.graphgen.guards import InGraphGuard


class SiteTests:
    """Mixed into Tracer: the tests of the traced functions' sites."""

    def assume(self, site, function: str, predicate, expected=True) -> None:
        """Assert `predicate` in-graph, as a guard of `site` (a failure reruns the call;
        `expected`: the outcome of the site's test it stands for)."""
        guard = InGraphGuard(len(self.in_graph), site, function, expected)
        self.in_graph.append(guard)
        self.assert_ops.append(tf.debugging.Assert(predicate, [guard.tag]))

    def note_exit(self, function: str, site_id) -> None:
        """A loop's exit test (or a `while`'s own test), Python-valued while profiling, is
        tensor-valued here (a number janus feeds decides it): its loop is better one
        tf.while_loop than a graph per trip count (`generate` traces again with it general:
        graphgen/exits.py, graphgen/general_while.py)."""
        key = (function, site_id)
        record = self.profile.sites.get(key)
        if record is not None and (record.loop_exit or record.while_test) and \
                not record.tensor_tests and \
                key not in self.plan.general_branches:
            self.symbolic_exits.add(key)

    def passed(self, function: str, site_id) -> None:
        """A test at the site had a Python value: counted, so that the profile's sequence
        of outcomes (all of a call's, Python-valued ones too) lines up with `expect`'s
        count where the same site is tensor-valued later in the trace."""
        key = (function, site_id)
        self.test_counts[key] = self.test_counts.get(key, 0) + 1

    def expect(self, site, function: str, value, known: bool | None = None) -> bool:
        """Specialize a tensor-valued test to the outcome the profile saw, asserted in-graph
        (`known`: the outcome a test on fed numbers has in the call being traced, asserted
        instead where a profiled call had it too, graphgen/known_numbers.py: a step
        counter's `if n % 2 == 0:` traced for the call that needs the graph, F455)."""
        if self.callback_depth:
            # its assertion would live in TF's nested graph (and hold per element)
            raise ConversionError(f"the tensor-valued test `{site.text}` is inside a function "
                                  "TensorFlow traces (a loop body or branch)", **site.location())
        key = (function, site.id)
        count = self.test_counts.get(key, 0)
        self.test_counts[key] = count + 1
        record = self.profile.sites.get(key)
        if record is None:  # (a profiled run of this call records it)
            error = Unprofiled(f"the tensor-valued test `{site.text}` was never reached "
                               "while profiling", **site.location())
            error.key = key
            raise error
        if not record.outcomes:  # (Python-valued while profiling: a number janus feeds)
            raise ConversionError(f"the tensor-valued test `{site.text}` was never reached "
                                  "while profiling", **site.location())
        expected = record.stable_outcome
        if expected is None and site.raises_when is not None:
            # (seen both ways: the graph stands for the calls that do not raise; a trace
            # of the raising branch would raise, and its graph be of no use)
            expected = not site.raises_when
        if expected and site.kind == "while" and count >= len(record.sequence):
            # never seen false: no profiled run left the loop normally (it raised or
            # returned inside); unrolling it further would never end
            raise ConversionError(f"the loop test `{site.text}` ran more often than while "
                                  "profiling", **site.location())
        if expected is None:  # a loop test or an `if` in a loop: the last call's sequence
            if count >= len(record.sequence):
                raise ConversionError(f"the tensor-valued test `{site.text}` ran more often "
                                      "than while profiling", **site.location())
            expected = record.sequence[count]
        # (an outcome no profiled call had is not traced first: its branch may hold what
        # a graph refuses, where the other outcome's graph serves: p20's `.numpy()`)
        traced_known = known is not None and known in record.outcomes and \
            site.kind != "while" and not record.loop_exit and \
            (site.raises_when is None or known is not site.raises_when)
        if traced_known:
            expected = known
        predicate = tf.cast(value, tf.bool)
        if predicate.shape.rank not in (0, None):  # (`if x > 0:` on a tensor of shape [1])
            if not (predicate.shape.is_fully_defined() and
                    predicate.shape.num_elements() == 1):
                raise ConversionError(f"the truth value of `{site.text}`, a tensor of more "
                                      "than one element (or of a number of them known only "
                                      "when the graph runs)", **site.location())
            predicate = tf.reshape(predicate, [])
        guard = InGraphGuard(len(self.in_graph), site, function, expected, traced_known)
        self.in_graph.append(guard)
        check = predicate if expected else tf.logical_not(predicate)
        self.assert_ops.append(tf.debugging.Assert(check, [guard.tag]))
        return expected
