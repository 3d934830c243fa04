"""Loops over a list whose length varies from call to call (graphgen/general.py
`_while_for`): Python numbers the loop changes are carried as fed numbers, lists grow at
either end (`append`, `insert(0, x)`), and an iteration that reads the list it grows is
no independent iteration (it used to be batched as one, each reading an empty list: a
silent wrong answer). Every test compares janus with plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same


def scalars(*values):
    return [tf.constant(v) for v in values]


LISTS = [(scalars(*[0.5 * i + k for i in range(n)]),) for k, n in
         enumerate((3, 5, 4, 7, 2, 6, 3, 8, 5))]


def discounted(rs):
    returns = []
    s = 0.0
    for r in rs[::-1]:
        s = r + 0.9 * s
        returns.insert(0, s)
    return tf.stack(returns), s


def counted(rs):
    out = []
    total, count, seen = 0.0, 0, False
    for r in rs:
        total = total + 0.25
        count += 1
        seen = True
        out.append(r * 2.0)
    return tf.stack(out), total, count, seen


def reads_its_list(rs):
    out = []
    for r in rs:
        out.append(r + float(len(out)))
    return tf.stack(out)


def reads_its_last_item(rs):
    out = [tf.constant(1.0)]
    for r in rs:
        out.append(r * out[-1])
    return tf.stack(out)


def grows_both_ends(rs):
    out = []
    for r in rs:
        out.append(r)
        out.insert(0, -r)
    return tf.stack(out)


def inserts_in_the_middle(rs):
    out = [tf.constant(0.0), tf.constant(1.0)]
    for r in rs:
        out.insert(1, r)
    return tf.stack(out)


def episode_returns(w, limit):
    """Rewards (Python floats) grown by a loop that stops on a tensor, then discounted
    into a list built at its front: actor-critic's bookkeeping."""
    rewards = []
    x = tf.constant(0.0)
    for t in range(30):
        x = x + w
        rewards.append(1.0 if t % 2 else 0.5)
        if x > limit:
            break
    returns = []
    s = 0.0
    for r in rewards[::-1]:
        s = r + 0.99 * s
        returns.insert(0, s)
    return returns, s, len(rewards)


def test_a_python_float_carried_and_a_list_grown_at_its_front():
    stats = assert_same(discounted, LISTS)
    assert stats.generations == 1 and stats.graph_calls >= 5, stats


def test_python_numbers_changed_by_the_loop_are_carried():
    stats = assert_same(counted, LISTS)
    assert stats.generations == 1 and stats.graph_calls >= 5, stats


def test_an_iteration_reading_the_list_it_grows_is_not_batched():
    assert_same(reads_its_list, LISTS)
    assert_same(reads_its_last_item, LISTS)


def test_lists_grown_otherwise_run_as_python_does():
    assert_same(grows_both_ends, LISTS)
    assert_same(inserts_in_the_middle, LISTS)


def test_returns_discounted_over_the_rewards_of_an_episode():
    calls = [(tf.constant(w), tf.constant(2.0)) for w in (0.3, 0.15, 0.5, 0.1, 0.25, 0.2, 0.4)]
    stats = assert_same(episode_returns, calls)
    assert stats.graph_calls >= 4, stats


def changes_kind(rs):
    c = 0
    for r in rs:
        c = c + tf.constant(1, tf.int64) if c else 1
    return c


def test_a_number_that_becomes_a_tensor_runs_as_python_does():
    assert_same(changes_kind, LISTS)


def changes_kind_in_an_exit_loop(x):
    c = 0
    for t in range(10):
        c = c + tf.constant(1, tf.int64) if c else 1
        if x < float(t):
            break
    return c


def test_a_number_that_becomes_a_tensor_in_an_exit_loop_runs_as_python_does():
    assert_same(changes_kind_in_an_exit_loop,
                [(tf.constant(v),) for v in (2.5, 4.5, 1.5, 6.5, 3.5, 0.5, 5.5)])
