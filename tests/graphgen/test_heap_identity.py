"""The identity of heap objects a trace observes (graphgen/heap_identity.py, F347).

A graph traced on one Node ran for another: `id(node)`, a default `hash(node)`, `node is
s.last`, `sorted([a, b], key=id)`, a memo keyed by `id(node)` or by the node over a tree
whose children may be one object, a cache keyed by `id()` of the input tensor were
constants of the graph, and the only guard on the object was its type (probe round h3,
session 31: R1*, a07n, a10, a16, a20). Each test compares janus with plain Python call by
call; all fail on the code before the fix but `dag_children_one_object` (two paths to
one object: graphgen/heap_aliases.py already) and the heap dict keyed by the object (not
converted).
"""
import pytest
import tensorflow as tf

from tests.differential import assert_same


class Node:
    def __init__(self, x, kids=()):
        self.x = x
        self.kids = list(kids)


class State:
    def __init__(self):
        self.memo = {}
        self.cache = {}
        self.last = None
        self.hits = 0
        self.w = tf.Variable(0.7)


A, B = Node(1.0), Node(5.0)
SEQ = [A, B, A, B, B, A, A, B, A, B, B, B, A, A]


def memo_by_id(s, node):
    k = id(node)
    if k not in s.memo:
        s.memo[k] = tf.constant(node.x) * 2.0
    return s.memo[k]


HASH_OF_B = hash(B)


def default_hash(s, node):
    return tf.constant(node.x) * (2.0 if hash(node) == HASH_OF_B else 1.0)


def is_the_last(s, node):
    same = node is s.last
    s.last = node
    return tf.constant(node.x) * (3.0 if same else 1.0)


def sorted_by_id(s, a, b):
    first, second = sorted([a, b], key=id)
    return tf.constant(first.x) - second.x


def id_in_a_tuple_key(s, node):
    key = (id(node), 0)
    if key not in s.memo:
        s.memo[key] = tf.constant(node.x)
    return s.memo[key] * 1.0


def test_id_hash_is_and_sort_key_of_user_objects():
    for fn in (memo_by_id, default_hash, is_the_last, id_in_a_tuple_key):
        stats = assert_same(fn, [(n,) for n in SEQ], State)
        assert stats.graph_calls >= 6, (fn.__name__, stats)
    stats = assert_same(sorted_by_id, [(n, A if n is B else B) for n in SEQ], State)
    assert stats.graph_calls >= 6, stats


SHARED = Node(1.0)
DAG = Node(0.5, [SHARED, SHARED])
TREE = Node(0.5, [Node(1.0), Node(-3.0)])
SHAPES = [DAG, DAG, DAG, TREE, DAG, TREE, TREE, DAG, TREE, DAG, DAG, TREE]


def _encode_by_id(s, node, memo):
    k = id(node)
    if k in memo:
        return memo[k]
    h = tf.constant(node.x) * s.w
    for c in node.kids:
        h = h + _encode_by_id(s, c, memo)
    memo[k] = tf.tanh(h)
    return memo[k]


def dag_memo_by_id(s, root):
    memo = {}
    return _encode_by_id(s, root, memo), len(memo)


def _encode_by_node(s, node, memo):
    if node in memo:
        return memo[node]
    h = tf.constant(node.x) * s.w
    for c in node.kids:
        h = h + _encode_by_node(s, c, memo)
    memo[node] = tf.tanh(h)
    return memo[node]


def dag_memo_by_node(s, root):
    memo = {}
    return _encode_by_node(s, root, memo), len(memo)


def dag_seen_set(s, root):
    seen = set()
    total = tf.constant(0.0)
    for c in [root] + root.kids:
        if c not in seen:
            seen.add(c)
            total = total + c.x * s.w
    return total, len(seen)


def dag_children_one_object(s, root):
    if root.kids[0] is root.kids[1]:
        return tf.constant(root.kids[0].x) * 2.0
    return tf.constant(root.kids[0].x) + root.kids[1].x


def dag_positions(s, root):
    where = {c: i for i, c in enumerate(root.kids)}  # (hashed past janus's hooks)
    return tf.constant(float(where[root.kids[0]])) * s.w, len(where)


def test_a_dag_whose_children_are_one_object():
    for fn in (dag_memo_by_id, dag_memo_by_node, dag_seen_set, dag_children_one_object,
               dag_positions):
        stats = assert_same(fn, [(t,) for t in SHAPES], State)
        assert stats.graph_calls >= 6, (fn.__name__, stats)


def heap_dict_keyed_by_node(s, node):
    if node in s.cache:
        return s.cache[node] + 0.0
    h = tf.constant(node.x) * 2.0
    s.cache[node] = h
    return h


def test_a_heap_dict_keyed_by_the_object():
    assert_same(heap_dict_keyed_by_node, [(n,) for n in SEQ], State)


BATCHES = [tf.constant([float(i), 1.0]) for i in range(4)]


def cache_by_id_of_the_input(s, x):
    k = id(x)
    if k in s.cache:
        s.hits += 1
        return s.cache[k]
    y = tf.reduce_sum(x) * s.w
    s.cache[k] = y
    return y


def test_id_of_an_input_tensor():
    seq = [0, 1, 2, 0, 3, 1, 1, 2, 0, 3, 3, 2, 1, 0]
    assert_same(cache_by_id_of_the_input, [(BATCHES[i],) for i in seq], State)


# -- identity observed past the hooks (F355): `==` of objects without `__eq__`, `in` a
# list, tuple, set or dict, `xs.index/count/remove`, a set's size: objects distinct while
# tracing are one object on later calls (or the other way round)

class Pair:
    def __init__(self):
        self.p, self.q, self.r = Node(1.0), Node(2.0), Node(3.0)
        self.items = [self.q, self.r]


def made_one(s, i):
    """From the 8th call on, `q` is `p` (and the heap list holds `p`)."""
    if i >= 8:
        s.q = s.p
        s.items = [s.p, s.r] if i % 2 else [s.r, s.p]
    return (s,)


def equal_by_identity(s):
    return tf.constant(2.0 if s.p == s.q else 1.0), tf.constant(1.0 if s.p != s.q else 0.0)


def in_a_list_display(s):
    return tf.constant(3.0 if s.p in [s.q, s.r] else 4.0) + \
        (1.0 if s.p in (s.q, s.r) else 0.0) + (10.0 if s.p in {s.q, s.r} else 0.0)


def in_a_heap_list(s):
    return tf.constant(3.0 if s.p in s.items else 4.0)


def index_and_count(s):
    xs = [s.q, s.p, s.r]
    return tf.constant(float(xs.index(s.p) * 10 + xs.count(s.p)))


def removed(s):
    xs = [s.q, s.p, s.r]
    xs.remove(s.p)
    return tf.constant(xs[0].x * 10.0 + xs[1].x)


def distinct_in_a_set(s):
    seen = {s.q: 1.0}
    return tf.constant(float(len({s.p, s.q, s.r}))) + (2.0 if s.p in seen else 0.0)


def visited_walk(s):
    visited, total = [], tf.constant(0.0)
    for n in [s.p, s.q, s.r]:
        if n in visited:
            continue
        visited.append(n)
        total = total + n.x
    return total


@pytest.mark.parametrize("fn", [equal_by_identity, in_a_list_display, in_a_heap_list,
                                index_and_count, removed, distinct_in_a_set, visited_walk],
                         ids=lambda fn: fn.__name__)
def test_identity_compared_past_the_hooks(fn):
    calls = [(lambda s, i=i: made_one(s, i)) for i in range(14)]
    stats = assert_same(fn, calls, Pair)
    assert stats.graph_calls >= 6, stats


def test_one_object_while_tracing_distinct_later():
    def split(s, i):
        if i >= 8 and s.q is s.p:
            s.q = Node(2.0)
        return (s,)

    def shared():
        s = Pair()
        s.q = s.p
        return s

    calls = [(lambda s, i=i: split(s, i)) for i in range(14)]
    for fn in (equal_by_identity, in_a_list_display, index_and_count):
        stats = assert_same(fn, calls, shared)
        assert stats.graph_calls >= 6, (fn.__name__, stats)
