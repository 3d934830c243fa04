"""The host side of recursion: cases matched by compiled tests, node tables by level."""
import numpy as np
import pytest

from janus.recursion.cases import Case
from janus.recursion.table import NoCase, build_table, compile_visitor, table_layout


class Node:
    def __init__(self, word=None, left=None, right=None):
        self.is_leaf = left is None
        self.word, self.left, self.right = word, left, right


LEAF = Case(tests=(("is_leaf", True),), inputs=(("word", int),), children=(), result=("float32", (1, 2)))
INNER = Case(tests=(("is_leaf", False), ("left", ("type", Node)), ("right", ("type", Node))),
             inputs=(), children=("left", "right"), result=("float32", (1, 2)))


def test_table_orders_rows_by_level_and_children_precede_parents():
    a, b, c = Node(1), Node(2), Node(3)
    root = Node(left=Node(left=a, right=b), right=c)
    table = build_table([root, Node(7)], [LEAF, INNER])
    assert set(table) == {name for name, _, _ in table_layout([LEAF, INNER])}
    assert table["num_levels"] == 3
    np.testing.assert_array_equal(table["input_0_0"], [1, 2, 3, 7])   # leaves first, level 0
    np.testing.assert_array_equal(table["splits_1"], [0, 0, 1, 2])    # one inner node per level
    np.testing.assert_array_equal(table["children_1"], [[0, 1], [4, 2]])
    np.testing.assert_array_equal(table["roots"], [5, 3])


def test_deep_chain_does_not_hit_the_recursion_limit():
    node = Node(0)
    for i in range(3000):
        node = Node(left=node, right=Node(i))
    table = build_table([node], [LEAF, INNER])
    assert table["num_levels"] == 3001


@pytest.mark.parametrize("bad", [
    lambda: Node(left=Node(1), right=None),   # a child missing where one was always seen
    lambda: Node(word=1.5),                   # a float where an int was always seen
])
def test_unknown_structure_is_a_guard_failure(bad):
    with pytest.raises(NoCase):
        build_table([bad()], [LEAF, INNER])


def test_visitor_is_one_compiled_function():
    visit = compile_visitor([LEAF, INNER])
    assert visit(Node(4)) == (0, (), (4,))


class Tri:
    """A node with a float input, a type test and up to three children (some shared)."""

    def __init__(self, kind, weight=0.5, kids=()):
        self.kind, self.weight, self.kids = kind, weight, list(kids)
        for i, kid in enumerate(kids):
            setattr(self, f"c{i}", kid)


TRI_CASES = [
    Case(tests=(("kind", "leaf"),), inputs=(("weight", float),), children=(), result=None),
    Case(tests=(("kind", "pair"),), inputs=(), children=("c0", "c1"), result=None),
    Case(tests=(("kind", "tri"), ("c2", ("type", Tri))), inputs=(("weight", float),),
         children=("c2", "c0", "c1"), result=None),
    Case(tests=(("kind", "odd"),), inputs=(), children=("c0",), result=None),  # no members
]


def _random_forest(rng, count):
    made = []

    def tree(depth):
        if depth == 0 or rng.random() < 0.3:
            if made and rng.random() < 0.2:
                return made[rng.integers(len(made))]  # a shared subtree (a DAG)
            node = Tri("leaf", float(rng.random()))
        elif rng.random() < 0.5:
            node = Tri("pair", kids=(tree(depth - 1), tree(depth - 1)))
        else:
            node = Tri("tri", float(rng.random()), (tree(depth - 1), tree(depth - 1),
                                                     tree(depth - 1)))
        made.append(node)
        return node
    roots = [tree(int(rng.integers(0, 6))) for _ in range(count)]
    return roots + roots[:1]  # the same root twice


@pytest.mark.parametrize("seed", range(8))
def test_compiled_builder_equals_the_visitor_walk(seed):
    rng = np.random.default_rng(seed)
    roots = _random_forest(rng, int(rng.integers(1, 6)))
    fast = build_table(roots, TRI_CASES)
    reference = build_table(roots, TRI_CASES, compile_visitor(TRI_CASES))
    assert set(fast) == set(reference) == {n for n, _, _ in table_layout(TRI_CASES)}
    for name, value in reference.items():
        assert np.asarray(fast[name]).dtype == np.asarray(value).dtype, name
        np.testing.assert_array_equal(fast[name], value, err_msg=name)


def test_compiled_builder_tries_the_next_case_when_an_attribute_is_missing():
    lone = Tri("tri", 0.25, (Tri("leaf"), Tri("leaf")))  # no c2: not a "tri" node
    with pytest.raises(NoCase):
        build_table([lone], TRI_CASES)
    assert build_table([lone], TRI_CASES[:1] + [Case(
        tests=(("kind", "tri"),), inputs=(), children=("c0", "c1"), result=None)]
    )["num_levels"] == 2
