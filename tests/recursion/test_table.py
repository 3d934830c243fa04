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
