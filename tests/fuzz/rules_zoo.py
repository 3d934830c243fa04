"""Generator rules (v26, v49, v54, v56, v60, v62-v66, v69) from the zoo of realistic
programs (tests/fuzz/zoo): constructs researchers write that the generated programs lacked.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule


@rule(0.6, max_depth=2, eager=True)  # (janus runs it plainly: refused in graphs)
def global_random_draw(g):
    """A draw from TF's global random stream after `tf.random.set_seed` (a VAE's
    reparameterization, a GAN's noise, `tf.nn.dropout`): eagerly the numbers are fixed by
    the seed, and a graph's stateful random op draws others (zoo10-F60); also with an op
    seed, whose eager stream the seed resets."""
    seed = g.choice(["7", "n % 3 + 1", "k + 2"])
    draw = g.choice(["tf.random.normal(tf.shape(acc), dtype=acc.dtype)",
                     "tf.random.uniform(tf.shape(acc), dtype=acc.dtype)",
                     "tf.random.truncated_normal(tf.shape(acc), dtype=acc.dtype, seed=5)",
                     "tf.nn.dropout(tf.ones_like(acc), 0.5)",
                     "tf.cast(tf.random.shuffle(tf.range(tf.size(acc))), acc.dtype)[0]"])
    eps = g.fresh("eps")
    return [f"tf.random.set_seed({seed})",
            f"{eps} = {draw}",
            f"acc = acc + 0.1 * {eps}"]


@rule(0.5, max_depth=1)
def fed_constant(g):
    """`tf.constant(lr)` of a Python number that changes between calls (a learning rate
    handed to a helper as a tensor): janus feeds the number; TF's constant takes Python
    values only in a graph (zoo10-F61)."""
    number = g.choice(["n * 0.5", "float(n)", "n + 1", "G_SCALE * n"])
    kind = g.choice(["", ", acc.dtype", ", dtype=acc.dtype, shape=[2]", ", tf.int32"])
    lr = g.fresh("lr")
    lines = [f"{lr} = {number}"]
    if g.chance(0.3):  # (v69: a list of them, F158; an int dtype, F159)
        return lines + [f"acc = acc + tf.reduce_sum(tf.cast(tf.constant([{lr}, 0.5]{kind}), "
                        "acc.dtype))"]
    if "shape" in kind:
        return lines + [f"acc = acc + tf.reduce_sum(tf.constant({lr}{kind}))"]
    return lines + [f"acc = acc * tf.cast(tf.constant({lr}{kind}), acc.dtype)"]


@rule(0.6, max_depth=1)
def log_every_k(g):
    """`if step % k == 0:` on a counter kept on the heap, with a print or a heap or
    variable update in the branch (progress logging): the counter is fed, the test cannot
    become a tf.cond, so janus keeps a graph per outcome and runs the other outcome's
    graph when an in-graph guard fails (zoo10-F62)."""
    k = g.choice(["2", "3", "4"])
    body = g.choice(['print("step", s.count)', "V1.assign_add(tf.reduce_sum(acc))",
                     "s.total += 1.0", 'print("step %d" % s.count, acc.shape)'])
    return ["s.count += 1",
            f"if s.count % {k} == 0:",
            f"    {body}",
            f"    acc = acc + {g.choice(['1.0', 'tf.cast(s.count, acc.dtype)'])}"]


@rule(0.5, max_depth=1)
def tape_stop_recording(g):
    """`with tape.stop_recording():` around a logged statistic inside a tape (a TF
    context manager made by a generator, traced as it is: zoo10-F63)."""
    t, y = g.fresh("tp"), g.fresh("ty")
    logged = g.choice(["s.h = tf.reduce_sum(ty)", "s.hist.append(tf.reduce_max(ty))",
                       "print('stat', tf.reduce_mean(ty).shape)"]).replace("ty", y)
    return [f"with tf.GradientTape() as {t}:",
            f"    {t}.watch(acc)",
            f"    {y} = acc * {g.choice(['2.0', '0.5', 'acc'])}",
            f"    with {t}.stop_recording():",
            f"        {logged}",
            f"    {y} = tf.reduce_sum({y} * {y})",
            f"acc = acc + 0.1 * {t}.gradient({y}, acc)"]


_REGULARIZED = '''\
DENSE_R = tf.keras.layers.Dense(2, kernel_initializer=tf.keras.initializers.Constant(0.2),
                                activity_regularizer=tf.keras.regularizers.L2(0.1))


def summary3(a):
    """A [1, 3] float32 summary of a tensor of any shape."""
    a = tf.cast(a, tf.float32)
    return tf.reshape(tf.stack([tf.reduce_mean(a), tf.reduce_max(a), tf.reduce_min(a)]), [1, 3])
'''


@rule(0.5, max_depth=1)
def layer_losses(g):
    """A Keras layer with an activity regularizer: its `losses` after a call are that
    call's values, read at the next call (zoo10-F65: a graph's trace left its symbolic
    tensors there)."""
    from tests.fuzz.rules_more9 import _helper
    _helper(g, _REGULARIZED)
    return ["s.total += sum(float(r) for r in DENSE_R.losses)",
            f"acc = acc + tf.cast(tf.reduce_sum(DENSE_R(summary3({g.texpr()}))), acc.dtype) * 0.1"]


_KEYS = ["n", "n", "len(xs)", "s.count", "n % 3", "k", "x.shape[0]", "n + len(xs)"]
"""Python ints that change between calls (janus feeds them to the graph once they do)."""
_TAGS = {1: "group", 2: "latest", 4: "sum"}
"""The second part of a tuple key: one kind of value per tag (no type clash)."""


@rule(0.6, max_depth=1)
def int_keyed_dict(g):
    """(v49) A heap dict (the state's, the module's `G_DICT` or one of its own) keyed by a
    Python int that changes between calls (`n`, `len(xs)`, a step counter, a static
    dimension): janus feeds such an int to the graph, and Python hashes a key's value
    (zoo p43/p50, F145: janus's stand-in became a key of the user's dict). Written with
    `d[k] =`, `setdefault`, `get`, `+=`, `pop`, tested with `in`, as an int, a tuple key
    or text formatted from it."""
    from tests.fuzz.rules_more9 import _helper
    _helper(g, "BY_KEY = {}\n")
    table = g.choice(["s.d", "G_DICT", "BY_KEY", "BY_KEY"])
    key = g.choice(_KEYS)
    lines = ["s.count += 1"] if key == "s.count" and g.chance(0.7) else []
    kind = g.rng.randint(0, 5)
    tagged = f"({key}, {_TAGS.get(kind)!r})"
    if kind == 0:  # a count per key
        return lines + [f"{table}[{key}] = {table}.get({key}, 0) + 1",
                        f"acc = acc + tf.cast({table}[{key}], acc.dtype) * 0.1"]
    if kind == 1:  # a group per key
        return lines + [f"{table}.setdefault({tagged}, []).append(tf.reduce_sum(acc))",
                        f"acc = acc + tf.cast({table}[{tagged}][0], acc.dtype) * 0.01"]
    if kind == 2:  # the latest value per key, read back when there is one
        return lines + [f"if {tagged} in {table}:",
                        f"    acc = acc + tf.cast({table}[{tagged}], acc.dtype) * 0.5",
                        f"{table}[{tagged}] = tf.reduce_mean(acc)"]
    if kind == 3:  # the previous key's count taken out
        old = g.fresh("kp")
        return lines + [f"{table}[{key}] = {table}.get({key}, 0) + 2",
                        f"{old} = {table}.pop({key} - 1, None)",
                        f"if {old} is not None:",
                        f"    acc = acc + float({old}) * 0.1"]
    if kind == 4:  # an augmented write
        return lines + [f"{table}[{tagged}] = {table}.get({tagged}, 0.0)",
                        f"{table}[{tagged}] += float(n) * 0.5 + 1.0",
                        f"acc = acc * 0.5 + {table}[{tagged}] * 0.01"]
    text = g.choice([f"f'k{{{key}}}'", f"str({key})", f"'step %d' % {key}"])
    return lines + [f"{table}[{text}] = {table}.get({text}, 0) + 1",
                    f"acc = acc + tf.cast({table}[{text}], acc.dtype)"]


_LOG_KEYS = _KEYS + ["(s.count, 'loss')", "f'step{n}'", "(n, len(xs))", "-n", "n * 0.5"]
"""Keys of a log dict: Python numbers that change between calls, tuples and text of them."""


@rule(0.6, max_depth=2)
def keyed_log(g):
    """(v62) A heap dict only written to, keyed by a Python number that changes between
    calls (`s.loss_at[s.steps] = loss`, zoo p46/p50): janus replays the writes after the
    graph ran (graphgen/keyed_writes.py), the dict's keys unguarded; a later read of it
    in the call (`len`, `get`, `in`, a method) has janus copy it again."""
    from tests.fuzz.rules_more9 import _helper
    _helper(g, "BY_KEY = {}\n")
    table = g.choice(["s.d", "G_DICT", "BY_KEY", "BY_KEY"])
    key = g.choice(_LOG_KEYS)
    lines = ["s.count += 1"] if "s.count" in key and g.chance(0.7) else []
    value = g.choice(["tf.reduce_sum(acc)", "acc * 0.5", "float(n) * 0.5", "(n, 'x')",
                      "[tf.reduce_mean(acc)]", "None"])
    kind = g.rng.randint(0, 5)
    if kind == 0:
        return lines + [f"{table}[{key}] = {value}"]
    if kind == 1:  # two writes, one with a constant key
        return lines + [f"{table}['last'] = {value}", f"{table}[{key}] = tf.reduce_max(acc)"]
    if kind == 2:  # a read after the write
        read = g.choice([f"acc = acc + 0.1 * len({table})",
                         f"acc = acc + (1.0 if {key} in {table} else 0.0)",
                         f"{table}.pop('last', None)",
                         f"acc = acc + 0.01 * sum(1 for _ in {table})"])
        return lines + [f"{table}[{key}] = {value}", read]
    if kind == 3:  # under a tensor test
        return lines + ["if tf.reduce_sum(acc) > 0.0:",
                        f"    {table}[{key}] = {value}",
                        "else:",
                        f"    {table}[('neg', {key})] = tf.reduce_min(acc)"]
    return lines + ["for _i in range(2):",  # in a loop of the call
                    f"    {table}[({key}, _i)] = acc[0] * _i"]


@rule(0.6, max_depth=2)
def rounded_number(g):
    """(v63) `round()` of a number that changes between calls (a fed float or int, a
    tensor's value by `float()` or `.numpy()`) stored, returned or printed (janus rounds
    it after the run: graphgen/rounded.py; zoo p46's `s.decays.append(round(decay, 4))`),
    or computed with, compared or handed to TF (refused: as before)."""
    value = g.choice(["float(tf.reduce_sum(acc))", "tf.reduce_mean(acc).numpy()",
                      "n * 0.37", "s.total", "G_SCALE * n / 3", "float(n) + 0.5", "n",
                      "len(xs) * 0.25"])
    digits = g.choice(["", ", 2", ", 0", ", 3", ", -1", ", 1"])
    r = g.fresh("rd")
    kind = g.rng.randint(0, 6)
    if kind == 0:
        return [f"s.hist.append(round({value}{digits}))"]
    if kind == 1:
        return [f"s.total = round({value}{digits})", "s.total = float(s.total)"] \
            if g.chance(0.3) else [f"G_DICT['r'] = round({value}{digits})"]
    if kind == 2:
        return [f"{r} = round({value}{digits})", f"s.hist.append({r})", f"print('r', {r})"]
    if kind == 3:  # computed with
        return [f"{r} = round({value}{digits})", f"acc = acc + tf.cast({r}, acc.dtype) * 0.1"]
    if kind == 4:  # decided on
        return [f"if round({value}{digits}) > 0.5:", "    acc = acc * 0.5"]
    return [f"s.hist.append([round({value}{digits}), round({value})])"]


@rule(0.6, max_depth=2)
def named_result(g):
    """(v64) A namedtuple made in the call (`Losses(data, reg, total)`, zoo p25): stored on
    the heap, read by field, `_replace`d, flattened by tf.nest; janus rebuilds it after
    the run (it refused: "a new Losses object escapes")."""
    from tests.fuzz.rules_more9 import _helper
    _helper(g, "import collections\n\nPair = collections.namedtuple('Pair', ['a', 'b'])\n")
    p = g.fresh("nt")
    make = g.choice(["Pair(tf.reduce_sum(acc), n)", "Pair(a=acc * 0.5, b=len(xs))",
                     "Pair(tf.reduce_mean(acc), float(n) * 0.5)._replace(b=k)",
                     "Pair._make([acc[0], s.count])", "Pair(acc, None)"])
    kind = g.rng.randint(0, 4)
    if kind == 0:
        return [f"{p} = {make}", f"s.hist.append({p})"]
    if kind == 1:
        return [f"{p} = {make}", f"acc = acc + tf.reduce_sum(tf.cast({p}.a, acc.dtype)) * 0.1",
                f"G_DICT['pair'] = {p}._replace(a=acc)"]
    if kind == 2:
        return [f"{p} = {make}",
                f"acc = acc + tf.reduce_sum(tf.cast(tf.nest.flatten({p})[0], acc.dtype)) * 0.1",
                f"s.hist.append(({p}.b, {p}))"]
    return [f"{p} = {make}", f"s.last_pair = {p}" if g.chance(0.5) else f"G_LIST.append({p})"]


@rule(0.6, max_depth=2)
def numpy_number(g):
    """(v65) A numpy scalar kept on the heap between calls (an `np.float32` rate, an
    `np.int64` count, `np.bool_`), made anew every call with the same or another value:
    janus guards it by value and feeds it as the numpy scalar once it changes
    (graphgen/tracer.py; it guarded its identity: a graph per call, zoo p29)."""
    v = g.fresh("npn")
    make = g.choice(["np.float32(0.1 * (n + 1))", "np.float32(0.25)", "np.float64(n) * 0.5",
                     "np.int64(n + 1)", "np.int64(2)", "np.int32(len(xs))",
                     "np.float32(s.total)", "np.bool_(n > 1)"])
    use = g.choice([v, f"{v} * 0.5", f"float({v})", f"{v} + 1", f"-{v}", f"{v} / 4",
                    f"({v} > 1)", f"int({v})"])
    keep = g.choice([f"G_DICT['np'] = {make}", f"s.hist.append({make})"])
    read = "G_DICT.get('np', np.float32(1.0))" if keep.startswith("G_DICT") else \
        "s.hist[-1] if s.hist else np.float32(1.0)"
    return [f"{v} = {read}", f"acc = acc * tf.cast({use}, acc.dtype)", keep]


@rule(0.6, max_depth=2)
def tested_read(g):
    """(v66) A tensor's value read with `int()`/`float()`/`bool()`/`.numpy()` right in an
    `if` or `while` test (`if int(token[0]) == EOS: break`, zoo p26's greedy decoder):
    a tensor test, no graph break (transform/breaks.in_graph_reads)."""
    read = g.choice(["int(tf.argmax(acc))", "float(tf.reduce_sum(acc))",
                     "tf.reduce_max(acc).numpy()", "bool(tf.reduce_any(acc > 0.5))",
                     "int(tf.size(acc))", "float(tf.reduce_mean(acc).numpy())"])
    test = g.choice([f"{read} == 0", f"{read} > 0.5", f"not {read}",
                     f"{read} < 1 or n > 2", f"{read} != 2 and flag"])
    kind = g.rng.randint(0, 3)
    if kind == 0:
        return [f"if {test}:", "    acc = acc * 0.5"]
    if kind == 1:
        i = g.fresh("ti")
        return [f"for {i} in range(3):", "    acc = acc * 0.9 + 0.2",
                f"    if {test}:", "        break"]
    return [f"while ({test}) and k < 4:", "    acc = acc * 0.8 - 0.1", "    k += 1"]


@rule(0.6, max_depth=1)
def number_schedule(g):
    """(v54) A schedule kept in the state with `max`/`min` (an epsilon or learning-rate
    decay with a floor, a step count capped): the number changes every call, janus feeds
    it and folds `max`/`min` as Python does (zoo p45's weight EMA: a graph per value up
    to the limit). Also a mix of an int and a float, whose result type depends on which
    wins (not fed as one type)."""
    v = g.fresh("sch")
    kind = g.rng.randint(0, 4)
    if kind == 0:
        floor = g.choice(["0.05", "-0.0", "G_SCALE * 0.1"])
        line = f"s.total = max({floor}, s.total * 0.7 + 0.1 * n)"
    elif kind == 1:
        line = "s.total = min([s.total + 0.5, 3.0, G_SCALE * n, s.total * 2.0])"
    elif kind == 2:
        line = g.choice(["s.count = min(s.count + 1, 5)", "s.count = max(n, s.count - 1, 0)"])
        return [line, f"{v} = max(s.count, len(xs))",
                f"acc = acc + tf.cast({v}, acc.dtype) * 0.1"]
    else:
        line = g.choice(["s.total = max(n, s.total * 0.5)", "s.total = min(0.5, n + s.total)"])
    return [line, f"{v} = s.total",
            f"acc = acc * 0.5 + tf.cast({v}, acc.dtype)"]


_TEXTS = ["str({v})", "f'{{{v}}}'", "f'k{{{v}}}'", "'%s' % {v}", "'n=%s' % ({v},)",
          "format({v})", "'{{}}'.format({v})", "'-'.join([str({v}), 'a'])",
          "str({v}) + 'x'"]
"""Text formatted from a value (`{v}`): a Python int that changes between calls or a
tensor, both markers the write-back fills in while janus traces."""
_DECISIONS = ["if {t} == '3':\n    acc = acc + 1.0",
              "if {t} != 'k2':\n    acc = acc * 0.5",
              "acc = acc + 0.1 * len({t})",
              "if {t} in ('1', '3', 'k2', 'n=4', '2-a'):\n    acc = acc - 1.0",
              "if '1' in {t}:\n    acc = acc + 2.0",
              "if {t}.startswith('2') or {t}.endswith('3'):\n    acc = acc * 2.0",
              "s.hist.append({t}[:2])",
              "s.hist.append({t}.upper().replace('K', 'q'))",
              "s.hist.append(int({t}) if {t}.isdigit() else -1)",
              "if {t}[1:]:\n    acc = acc + 0.5",
              "if {t} < '2':\n    acc = acc - 0.5",
              "s.hist.extend({t}.split('-'))",
              "s.hist.append(f'[{{{t}:>5}}]')",
              "s.hist.append('[%6s]' % ({t},))",
              "s.hist.append(repr({t}))",
              "s.d[{t}] = s.d.get({t}, 0) + 1"]
"""A Python decision on the text, or a transformation a write-back does not redo."""
_MOVES = ["print('text', {t})", "s.hist.append({t})", "G_LIST.append({t} + '!')"]
"""What only moves the text about (a graph fills it in after its run)."""


@rule(0.6, max_depth=1)
def formatted_text(g):
    """(v56) Text formatted from a Python int that changes between calls (`n`, `k`,
    `len(xs)`, `s.count`, `x.shape[0]`) or from a tensor (`str(t)`, an f-string, `%`,
    `format`, `.format`, `join`), then decided on by Python (`==`, `in`, `len`, str
    methods, slicing, `int()`, truth, ordering, a spec, `repr`) or only printed and stored
    (F145: in a trace the text is a marker, and a decision on it was taken on the
    marker's characters and kept by the graph; janus/graphgen/formatted_text.py)."""
    value = g.choice(_KEYS + ["tf.reduce_sum(acc)", "tf.reduce_max(x)"])
    lines = ["s.count += 1"] if value == "s.count" and g.chance(0.7) else []
    text = g.fresh("txt")
    operand = f"({value})" if " " in value else value  # (`'%s' % (n % 3)`)
    lines.append(f"{text} = {g.choice(_TEXTS).format(v=operand)}")
    for _ in range(g.rng.randint(1, 2)):
        use = g.choice(_DECISIONS if g.chance(0.8) else _MOVES)
        lines += use.format(t=text).split("\n")
    return lines


_WALK = '''

def walk(s, node, depth=0):
    """A recursive helper over a nested list, appending each leaf's depth to a heap list."""
    if isinstance(node, list):
        parts = [walk(s, c, depth + 1) for c in node]
        return tf.add_n(parts) * 0.5 if parts else tf.zeros([])
    DEPTHS.append(depth)
    return tf.cast(tf.reduce_sum(node), tf.float32)


DEPTHS = []
TREES = [lambda x, xs: [x, [x]], lambda x, xs: [[x, x], xs], lambda x, xs: [[[x]], x]]
'''


@rule(0.5, max_depth=1)
def appended_in_recursion(g):
    """(v60) A recursive helper over a nested list whose shape changes between calls
    (`xs` of varying length; a tree chosen by a counter), appending every leaf's depth to
    a module list that grows on every call (zoo p13: the list's length guard never failed first, so it
    was never left unassumed: a graph per call, then janus stopped generating)."""
    from tests.fuzz.rules_more9 import _helper
    _helper(g, _WALK)
    nest = g.choice(["xs", "[xs, [x]]", "[[x], xs]", "[x, [x, xs]]",
                     "TREES[s.count % 3](x, xs)", "TREES[len(s.hist) % 3](x, xs)"])
    lines = ["s.count += 1"] if "s.count" in nest else []
    return lines + [f"acc = acc + tf.cast(walk(s, {nest}), acc.dtype)"]


_NUMBER_LISTS = ["[(j % 3, j + n) for j in range(len(xs) + n + int(flag) + 1)]",
                 "[(j, 2 * j - 1) for j in range(n + len(xs) + int(flag) + 1)]",
                 "[0.25 * j - n for j in range(len(xs) + n + int(flag) + 2)]",
                 "[j + n for j in range(len(xs) + n + int(flag) + 1)]",
                 "[j % 2 == 0 for j in range(n + len(xs) + int(flag) + 1)]",
                 "[(0.5 * j, float(n)) for j in range(len(xs) + n + int(flag) + 1)]",
                 "[1.0, 1e300, 2.0][: n % 3 + 1]"]
"""Lists of Python numbers (or of tuples of them) whose length changes between calls."""


@rule(0.6, max_depth=2)
def number_list(g):
    """(v69) A list of Python numbers (ints, floats, bools, or tuples of them: an edge
    list of `(src, dst)` pairs, zoo p43) made in one call and read in the next, with
    another length: janus feeds it as one tensor (graphgen/number_lists.py: `tf.constant`,
    `len`, a `for` over it, an item); anything else done with it (sorted, sum, a
    comprehension, an append) has janus guard it item by item again."""
    ids = g.fresh("ids")
    make = g.choice(_NUMBER_LISTS)
    table = g.choice(["G_DICT", "s.d"])  # (the list this line stored in the last call)
    lines = [f"{ids} = {table}.get('{ids}')", f"if {ids} is None:", f"    {ids} = {make}"]
    use = g.rng.randint(0, 8)
    if use == 0:
        dtype = g.choice(["", ", tf.int32", ", dtype=tf.float32", ", tf.float64", ", tf.int64"])
        lines.append(f"acc = acc + tf.reduce_sum(tf.cast(tf.constant({ids}{dtype}), acc.dtype))")
    elif use == 1:
        lines.append(f"acc = acc * tf.cast(len({ids}), acc.dtype) * 0.1")
        lines.append(f"s.count += len({ids})")
    elif use == 2:
        v = g.fresh("v")
        lines += [f"for {v} in {ids}:",
                  f"    acc = acc + 0.1 * tf.reduce_sum(tf.cast(tf.constant({v}), acc.dtype))"]
    elif use == 3:
        lines.append(f"acc = acc + tf.reduce_sum(tf.cast(tf.convert_to_tensor({ids}[-1]), "
                     "acc.dtype))")
    elif use == 4 and g.chance(0.6):  # (handed to TF ops; the sum of ints or floats)
        take = f"tf.gather(tf.range(-9, 9), {ids})" if g.chance(0.5) else \
            f"tf.reduce_sum({ids}) + sum({ids})"
        lines.append(f"acc = acc + tf.reduce_sum(tf.cast({take}, acc.dtype)) * 0.1")
    elif use == 4:
        lines.append(f"acc = acc + 0.01 * tf.cast(tf.size(tf.constant(sorted({ids}))), "
                     "acc.dtype)")
    elif use == 5:
        v = g.fresh("v")
        lines.append(f"acc = acc + 0.01 * len([{v} for {v} in {ids}])")
    elif use == 6:
        i, v = g.fresh("i"), g.fresh("v")
        lines += [f"for {i}, {v} in enumerate({ids}):",
                  f"    acc = acc + tf.cast({i}, acc.dtype) * 0.1"]
    else:
        lines.append(f"{ids}.append({ids}[0])")
    return lines + [f"{table}['{ids}'] = {make}"]


@rule(0.5, max_depth=2)
def keyed_lists(g):
    """(v69) A dict of lists, one per value of a Python number, appended to under the
    call's key (`s.loss_by_size.setdefault(n_nodes, []).append(loss)`, zoo p43): the list
    of every key is only appended to (plan.append_only by role), no graph per length."""
    table = g.choice(["s.d", "G_DICT"])
    key = g.choice(["n", "len(xs)", "n % 2", "flag"])
    value = g.choice(["tf.reduce_sum(acc)", "acc * 0.5", "float(n)", "n"])
    lines = [f"{table}.setdefault({key}, []).append({value})"]
    if g.chance(0.3):
        lines.append(f"acc = acc + 0.1 * len({table}[{key}])")
    return lines


_LOSS_TABLE = '''LOSS_FNS = {"l1": lambda a, b: tf.reduce_mean(tf.abs(a - b)),
            "l2": lambda a, b: tf.reduce_mean(tf.square(a - b)) * 0.5}


def weigh(loss, weight, a, b):
    return weight * loss(a, b)
'''


@rule(0.5, max_depth=2)
def partial_call(g):
    """(v69) `functools.partial` over a lambda of a module dict written across lines,
    called by the function itself (zoo p31's weighted losses): janus converted the
    wrapper it makes for a library's callbacks as if it were the lambda ("the lambda's
    source is not one lambda of its line") and ran the whole function eagerly."""
    from tests.fuzz.rules_more9 import _helper
    _helper(g, _LOSS_TABLE)
    key = g.choice(['"l1"', '"l2"', '"l1" if flag else "l2"', '("l1", "l2")[n % 2]'])
    weight = g.choice(["0.5", "float(n)", "G_SCALE"])
    t = g.fresh("pt")
    if g.chance(0.5):
        return [f"{t} = functools.partial(weigh, LOSS_FNS[{key}], {weight})",
                f"acc = acc + {t}(acc, acc * 0.5)"]
    return [f"{t} = [functools.partial(weigh, LOSS_FNS[k], w) for k, w in "
            f"(('l1', 0.3), ({key}, {weight}))]",
            f"acc = acc + sum(p(acc, acc * 0.25) for p in {t})"]
