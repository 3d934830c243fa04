"""Guards of one role over a container's items compile into one loop, and still check
every item: the index returned is the failing item's own guard."""
import tensorflow as tf

import janus
from janus.graphgen.guards import Guard, GuardSet
from janus.graphgen.sources import arg
from tests.differential import assert_same


class Node:
    def __init__(self, label):
        self.label = label


class Other:
    @property
    def label(self):  # reading it would be a user-visible effect: must never be read
        raise AssertionError("a guard read an attribute of an object of the wrong type")


def item_guards(n, labels, container_type=list):
    xs = arg(0)
    guards = [Guard("type", xs, container_type), Guard("len", xs, n)]
    guards += [Guard("type", xs.item(k), Node) for k in range(n)]
    guards += [Guard("value", xs.item(k).attr("label"), labels[k]) for k in range(n)]
    return GuardSet(guards, {}, ())


def test_guards_over_items_are_one_loop_per_role():
    guards = item_guards(25, list(range(25)))
    assert guards.source_code.count("for k, e in enumerate(args[0]):") == 2
    assert "args[0][7]" not in guards.source_code
    assert len(guards.source_code.splitlines()) < 30


def test_every_item_is_still_checked_and_named():
    labels = [k % 5 for k in range(25)]
    guards = item_guards(25, labels)
    nodes = [Node(k) for k in labels]
    assert guards.check((nodes,), {}) == -1
    changed = list(nodes)
    changed[17] = Node(labels[17] + 1)
    failed = guards.check((changed,), {})
    assert guards.guards[failed].source.expr == "args[0][17].label"
    changed[17] = Node(float(labels[17]))  # equal value, other type
    assert guards.guards[guards.check((changed,), {})].source.expr == "args[0][17].label"
    changed[17] = Other()  # its type guard fails before its label is read
    assert guards.guards[guards.check((changed,), {})].describe().startswith(
        "type(args[0][17]) is Node")
    assert guards.guards[guards.check((nodes[:24],), {})].kind == "len"
    assert guards.check((tuple(nodes),), {}) == 0


def test_some_items_of_a_container_index_them():
    xs = arg(0)
    guards = [Guard("type", xs, tuple)] + \
        [Guard("type", xs.item(k), Node) for k in (0, 2, 4, 6)]
    guard_set = GuardSet(guards, {}, ())
    assert "for k, i in enumerate(GK1):" in guard_set.source_code
    nodes = tuple(Node(k) for k in range(7))
    assert guard_set.check((nodes,), {}) == -1
    bad = nodes[:4] + (Other(),) + nodes[5:]
    assert guard_set.guards[guard_set.check((bad,), {})].source.expr == "args[0][4]"
    assert guard_set.check((nodes[:6],), {}) == 4  # item 6 missing: its guard, not a crash


def test_a_dict_with_int_keys_is_indexed_not_enumerated():
    d = arg(0)
    guards = [Guard("type", d, dict)] + [Guard("type", d.item(k), Node) for k in (1, 2, 3)]
    guard_set = GuardSet(guards, {}, ())
    assert "enumerate(args[0])" not in guard_set.source_code
    assert guard_set.check(({1: Node(0), 2: Node(0), 3: Node(0)},), {}) == -1
    assert guard_set.check(({1: Node(0), 2: Node(0), 3: 5},), {}) == 3


def weighted(xs, x):
    total = x
    for node in xs:
        total = total + tf.cast(node.label, tf.float32)
    return total


def test_janus_with_looped_guards_equals_python_when_items_change():
    nodes = [Node(k) for k in range(6)]
    x = tf.constant([1.0, 2.0])
    calls = [(nodes, x)] * 3 + [([Node(2)] * 6, x), (nodes, x), (list(reversed(nodes)), x),
                                (nodes[:3] + [Node(9)] + nodes[4:], x), (nodes[:5], x)]
    stats = assert_same(weighted, calls)
    assert stats.graph_calls >= 3
