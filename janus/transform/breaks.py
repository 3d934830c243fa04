"""What the source alone says about splitting a function at its graph breaks.

Read before the first trace (janus/transform/segments.py splits with it), so that known
breaks are split at once instead of found by failing traces:

    static_breaks(fn, env)    lines that are breaks whatever the values: `.numpy()`,
                              host randomness/clocks (not the numpy draws a graph
                              makes: janus/draws.py), numpy calls, numpy methods on
                              a local that only ever holds numpy values
    in_graph_reads(fn, env)   the `.numpy()` reads that are no break: a scalar's value
                              only compared, converted, computed with (`s.hits +=
                              int(t)`) or handed to TF stays in the graph
                              (janus/graphgen/host_scalars.py)
    probability_reads(fn)     ... and `rng.choice(n, p=t.numpy()[0])`'s (host_draws.py)
    static_openings(fn)       compound statements better left Python with their bodies
                              split: a loop that updates variables from a gradient tape
                              each iteration, an `if` that leaves a loop
    op_count(stmts, ...)      how many operations a stretch runs (None: a call of user
                              code, a loop: unknown): a stretch of a few operations
                              cannot pay for a graph call and runs inline

    advantages = np.zeros_like(rewards)                # break: numpy call
    advantages = (advantages - advantages.max()) / 2   # break: `advantages` is numpy
    advantages = advantages / advantages.std()         # no break: a graph computes it
    for start in range(0, n, mb):                      # opened: tape + apply_gradients
        if approx_kl > 0.03:                           # opened: leaves the loop
            break
"""
from __future__ import annotations

import random
import types

import gast
import numpy as np

from janus import user_attributes
from janus import draws
from janus.transform import computed_reads, scope, stored_reads

_HOST_STATE_TYPES = (np.random.Generator, np.random.RandomState, random.Random)
_HOST_STATE_MODULES = ("random", "time", "datetime", "secrets", "uuid", "numpy.random")
_LOOPS = (gast.For, gast.AsyncFor, gast.While)
_CONTAINER_METHODS = frozenset((
    "append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add",
    "discard", "get", "items", "keys", "values", "copy", "count", "index", "popitem"))
"""Methods of Python lists/dicts/sets: a call of one on a local is host bookkeeping."""
_ARRAY_METHODS_IN_GRAPH = frozenset(("astype", "tolist", "sum", "mean", "var", "std"))
"""Methods of a numpy array a graph computes as numpy does (graphgen/host_arrays.py; a
dtype it does not take fails the trace there, which finds the break)."""
_REDUCTIONS_IN_GRAPH = frozenset(("sum", "mean", "var", "std"))
"""Those of them a local array's value reaches the trace with (a fed array)."""
_UPDATES = frozenset(("apply_gradients", "minimize", "assign", "assign_add", "assign_sub"))


def static_breaks(fn: gast.FunctionDef, env: dict, params: dict | None = None,
                  surely_run: bool = False) -> dict[int, str]:
    """Lines that are breaks whatever the values: `.numpy()` and calls of host randomness,
    clocks and numpy, resolved through `env` (the globals) and `params` (the arguments of a
    call: only through instance dictionaries, so no property runs), and numpy methods
    called on locals that only ever hold numpy values. `surely_run`: only those that run
    whenever the function runs (not in a branch, handler or nested function)."""
    found = {}
    local = scope.local_names(fn)
    params = params or {}
    arrays = numpy_locals(fn, env)
    kept = in_graph_reads(fn, env) | probability_reads(fn)
    skipped = _conditional(fn) if surely_run else set()
    for node in gast.walk(fn):
        if id(node) in skipped:
            continue
        if isinstance(node, (gast.Assign, gast.AugAssign)):
            targets = node.targets if isinstance(node, gast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, gast.Subscript) and (
                        isinstance(target.value, gast.Name) and target.value.id in arrays or
                        isinstance(_param_value(target.value, params), np.ndarray)):
                    found.setdefault(node.lineno, "writes into a numpy array in place "
                                     "(host state: it stays on the host)")
            continue
        if not isinstance(node, gast.Call):
            continue
        func = node.func
        if isinstance(func, gast.Attribute) and func.attr == "numpy" and not node.args:
            if id(node) not in kept:
                found.setdefault(node.lineno, "calls .numpy() on a tensor")
            continue
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
                func.value.id in arrays and func.attr not in _REDUCTIONS_IN_GRAPH:
            found.setdefault(node.lineno, f"calls .{func.attr}() of {func.value.id}, a numpy "
                             "value (numpy work stays on the host)")
            continue
        chain = []
        while isinstance(func, gast.Attribute):
            chain.append(func.attr)
            func = func.value
        if isinstance(func, gast.Name) and func.id in params and chain:
            owner = _through_dicts(params[func.id], chain[:0:-1])
            if _graph_draw(owner, chain[0], node):
                continue
            if isinstance(owner, _HOST_STATE_TYPES):
                found.setdefault(node.lineno, f"calls {type(owner).__name__}.{chain[0]} "
                                 "(host randomness: it stays on the host)")
            elif isinstance(owner, np.ndarray) and len(chain) > 1 and \
                    chain[0] not in _ARRAY_METHODS_IN_GRAPH:
                found.setdefault(node.lineno, f"calls .{chain[0]}() of a numpy array "
                                 "(numpy work stays on the host)")
            continue
        if not isinstance(func, gast.Name) or func.id in local or func.id not in env:
            continue
        value = env[func.id]
        if len(chain) == 1 and _graph_draw(value, chain[0], node):
            continue
        if isinstance(value, _HOST_STATE_TYPES):
            found.setdefault(node.lineno, f"calls a method of the global {func.id} "
                             "(host randomness: it stays on the host)")
            continue
        module = _module_of(value, chain)
        name = f"{module}.{chain[0] if chain else func.id}"
        if any(module == m or module.startswith(m + ".") for m in _HOST_STATE_MODULES):
            found.setdefault(node.lineno, f"calls {name} (host randomness or clock: it stays "
                             "on the host)")
        elif module.split(".")[0] == "numpy" and _numpy_function(value, chain) and \
                not _constant_arguments(node, env) and not _packs_numbers(value, chain, node) \
                and not _reduces(chain, node):
            found.setdefault(node.lineno, f"calls {name} (numpy work stays on the host)")
    return found


def _graph_draw(owner, name: str, call: gast.Call) -> bool:
    """`rng.uniform(-1.0, 1.0, size=4)`: a numpy draw a graph makes (janus/draws.py)."""
    if not draws.owner_supported(owner, name) or \
            any(isinstance(a, gast.Starred) for a in call.args) or \
            any(k.arg is None for k in call.keywords):
        return False
    keywords = {k.arg: k.value.value if isinstance(k.value, gast.Constant) else ...
                for k in call.keywords}
    return draws.arguments_supported(name, len(call.args), keywords)


def probability_reads(fn: gast.FunctionDef) -> set[int]:
    """Ids of the `.numpy()` calls a `.choice(...)` takes as its `p`
    (`rng.choice(2, p=probs.numpy()[0])`): the array stays in the graph
    (graphgen/host_arrays.py) for a numpy draw a graph makes, checked as numpy checks it.
    (Another `choice` on that line is a break itself: host randomness.)"""
    found = set()
    for node in gast.walk(fn):
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and
                node.func.attr == "choice"):
            continue
        for keyword in node.keywords:
            expr = keyword.value if keyword.arg == "p" else None
            while isinstance(expr, gast.Subscript) and isinstance(expr.slice, gast.Constant):
                expr = expr.value
            if expr is not None and _is_numpy_read(expr):
                found.add(id(expr))
    return found


_NUMBER_CONVERSIONS = ("int", "float", "bool")


def in_graph_reads(fn: gast.FunctionDef, env: dict) -> set[int]:
    """Ids of the `.numpy()` calls (and `int()`/`float()`/`bool()` conversions) of `fn`
    whose value a graph can hold: `name = <expr>.numpy()` (or `name = int(<expr>)`...)
    where every read of `name` (in `fn`'s own scope), or the read itself in an `if` or
    `while` test (`if int(tok[0]) == EOS:`), compares it with
    names or constants, converts it with `int()`/`float()`/`bool()`, computes with it
    (`+ - * /`, a sign, `abs()`, `round()`, `math.cos()`...), tests it (`if
    name:`), appends it to a list, returns or stores it, or is an item of a list or
    tuple handed to a call (`tf.expand_dims([name], 0)`) or returned, or is an operand of
    `not`, of `and`/`or` or a conditional expression whose value goes to one of those
    places (`done = v > LIMIT or late`); and a read where it stands computed with
    (`s.hits += int(t)`, `total + float(loss) * 2`, `-float(t)`: F461), not with a numpy
    call's value. At run time the scalar read this way stays a tensor
    (graphgen/host_scalars.py, a fed number: graphgen/exact_numbers.py);
    anything else it meets there fails the trace at that line."""
    parents = {id(child): node for node in gast.walk(fn) for child in gast.iter_child_nodes(node)}
    own = list(scope.walk_own_scope(fn.body))
    local = scope.local_names(fn)
    conversions = {c for c in _NUMBER_CONVERSIONS if c not in local and c not in env}
    loads: dict[str, list] = {}
    for node in own:
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            loads.setdefault(node.id, []).append(node)
    everywhere: dict[str, int] = {}
    for node in gast.walk(fn):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Load, gast.Del)):
            everywhere[node.id] = everywhere.get(node.id, 0) + 1
    kept = set()
    rounding = {"round"} - local - set(env)
    for node in own:  # `s.hist.append(round(float(loss), 4))`: rounded after the run
        if not (_is_round(node, rounding) and (_is_numpy_read(node.args[0]) or
                                               _is_conversion(node.args[0], conversions))):
            continue
        parent = parents.get(id(node))
        if isinstance(parent, gast.Assign) and len(parent.targets) == 1 and \
                isinstance(parent.targets[0], gast.Name):  # `r = round(...)`: where r goes
            uses = loads.get(parent.targets[0].id, [])
            stored = len(uses) == everywhere.get(parent.targets[0].id, 0) and \
                all(_stored(use, parents) for use in uses)
        else:
            stored = _stored(node, parents)
        if stored:
            kept.add(id(node.args[0]))  # (graphgen/rounded.py)
    for node in own:  # a read tested where it stands: `if int(tok[0]) == EOS: break`
        read = _read_of(node, conversions)
        if read is not None and _in_test(node, parents) and \
                _kept_use(node, parents, conversions):
            kept.add(id(read))
    for node in own:  # a read only stored or formatted where it stands (F456:
        # `s.hist.append(float(loss))`, `return {"loss": float(loss)}`, `f"{v.numpy():.3f}"`)
        read = _read_of(node, conversions)
        if read is not None and stored_reads.where_it_stands(node, parents):
            kept.add(id(read))
    numpy_call = lambda e: isinstance(e, gast.Call) and not _is_numpy_read(e) and \
        _is_numpy(e, set(), env)  # noqa: E731
    for node in own:  # a read computed with where it stands (F461: `s.hits += int(t)`)
        read = _read_of(node, conversions)
        if read is not None and computed_reads.computed_with(node, parents, numpy_call):
            kept.add(id(read))
    for node in own:
        read = _read_of(node.value, conversions) if isinstance(node, gast.Assign) else None
        if not (read is not None and len(node.targets) == 1 and
                isinstance(node.targets[0], gast.Name)):
            continue
        name = node.targets[0].id
        uses = loads.get(name, [])
        if len(uses) == everywhere.get(name, 0) and \
                all(_kept_use(use, parents, conversions) for use in uses):
            kept.add(id(read))
    return kept


_READ_METHODS = ("item", "sum", "mean")


def _read_of(node, conversions: set[str]):
    """The read `node` is, if it is one: `t.numpy()`, `float(t)` (`int`, `bool`), or
    `t.numpy().item()` (its `.numpy()`: the Python number numpy's `item` gives, F460),
    `t.numpy().sum()`, `.mean()` (its `.numpy()`: numpy's scalar, `reduced_reads`)."""
    if _is_numpy_read(node) or _is_conversion(node, conversions):
        return node
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
            node.func.attr in _READ_METHODS and not node.args and not node.keywords and \
            _is_numpy_read(node.func.value):
        return node.func.value
    return None


def _in_test(node, parents: dict) -> bool:
    """Whether `node` is (in a comparison, `and`/`or`/`not` or conversion of) the test of
    an `if` or `while`."""
    while True:
        parent = parents.get(id(node))
        if isinstance(parent, (gast.If, gast.While)):
            return parent.test is node
        if not (isinstance(parent, (gast.Compare, gast.BoolOp)) or
                isinstance(parent, gast.UnaryOp) and isinstance(parent.op, gast.Not) or
                isinstance(parent, gast.Call) and parent.args == [node]):
            return False
        node = parent


def _is_round(node, rounding: set[str]) -> bool:
    """`round(<expr>)` or `round(<expr>, <int>)` of the builtin."""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
        node.func.id in rounding and not node.keywords and (
            len(node.args) == 1 or len(node.args) == 2 and
            isinstance(node.args[1], gast.Constant) and type(node.args[1].value) is int)


def _stored(node, parents: dict) -> bool:
    """Whether `node`'s value is only stored: returned, printed, appended to a list or
    assigned to an attribute or item (`s.best = ...`, `log[k] = ...`)."""
    parent = parents.get(id(node))
    if isinstance(parent, gast.Return):
        return True
    if isinstance(parent, gast.Assign):
        return parent.value is node and \
            all(isinstance(t, (gast.Attribute, gast.Subscript)) for t in parent.targets)
    if isinstance(parent, (gast.List, gast.Tuple)) and isinstance(parents.get(id(parent)),
                                                                gast.Return):
        return True
    return isinstance(parent, gast.Call) and node in parent.args and (
        isinstance(parent.func, gast.Name) and parent.func.id == "print" or
        parent.args == [node] and not parent.keywords and
        isinstance(parent.func, gast.Attribute) and parent.func.attr == "append")


def _is_numpy_read(node) -> bool:
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
        node.func.attr == "numpy" and not node.args and not node.keywords


def _is_conversion(node, conversions: set[str]) -> bool:
    """`int(<expr>)` / `float(<expr>)` / `bool(<expr>)` of something not a constant."""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
        node.func.id in conversions and len(node.args) == 1 and not node.keywords and \
        not isinstance(node.args[0], (gast.Constant, gast.Starred))


_MATH_FUNCTIONS = frozenset(("cos", "sin", "tan", "sqrt", "exp", "log", "tanh", "atan",
                             "log1p", "expm1", "fabs", "isnan", "isinf", "isfinite",
                             "floor", "ceil"))
"""`math` functions of a fed number a graph computes (graphgen/number_functions.py; the
tests and roundings of a read: F459, `if math.isnan(float(loss)): raise ...`)."""


def _kept_use(use, parents: dict, conversions: set[str]) -> bool:
    parent = parents.get(id(use))
    if isinstance(parent, gast.BinOp) and isinstance(parent.op, computed_reads.ARITHMETIC) or \
            isinstance(parent, gast.UnaryOp) and isinstance(parent.op, (gast.USub, gast.UAdd)):
        return True  # numpy's float arithmetic (graphgen/host_scalars.py)
    if computed_reads.augmented(use, parent):
        return True  # `s.hits += n` (F461)
    if isinstance(parent, gast.Call) and parent.args == [use] and not parent.keywords and (
            isinstance(parent.func, gast.Name) and parent.func.id == "abs" or
            isinstance(parent.func, gast.Attribute) and parent.func.attr in _MATH_FUNCTIONS
            and isinstance(parent.func.value, gast.Name) and parent.func.value.id == "math"):
        return True
    if _is_round(parent, {"round"}) and parent.args[0] is use:
        return _stored(parent, parents)  # (rounded after the run: graphgen/rounded.py)
    if isinstance(parent, gast.Compare):
        return all(o is use or isinstance(o, (gast.Constant, gast.Attribute)) or
                   isinstance(o, gast.Name) and o.id != getattr(use, "id", None)
                   for o in [parent.left] + parent.comparators)
    if isinstance(parent, gast.UnaryOp) and isinstance(parent.op, gast.Not):
        return True  # (its truth: a test)
    if isinstance(parent, gast.FormattedValue) or isinstance(parent, gast.Dict) and \
            any(v is use for v in parent.values) or isinstance(parent, gast.Call) and \
            isinstance(parent.func, gast.Name) and parent.func.id == "print" and \
            any(a is use for a in parent.args):  # (formatted, printed, a dict's value: F456)
        return stored_reads.where_it_stands(use, parents)
    if isinstance(parent, gast.BoolOp) or isinstance(parent, gast.IfExp) and \
            parent.test is not use:  # the value of `v or w`, `v if t else w`: where it goes
        return _kept_use(parent, parents, conversions)
    if isinstance(parent, gast.Call):
        return parent.args == [use] and not parent.keywords and (
            isinstance(parent.func, gast.Name) and parent.func.id in conversions or
            isinstance(parent.func, gast.Attribute) and parent.func.attr == "append")
    if isinstance(parent, (gast.If, gast.While, gast.IfExp)):
        return parent.test is use
    if isinstance(parent, (gast.Return, gast.Assign)):  # returned, stored, renamed
        return parent.value is use
    if isinstance(parent, (gast.List, gast.Tuple)):
        holder = parents.get(id(parent))
        return (isinstance(holder, gast.Call) and parent is not holder.func or
                isinstance(holder, gast.Return)) and \
            all(isinstance(e, (gast.Name, gast.Constant)) for e in parent.elts)
    return False


def _conditional(fn: gast.FunctionDef) -> set[int]:
    """Ids of the nodes of `fn` that run only on some paths: in an `if` (statement or
    expression), after the first operand of `and`/`or`, in an exception handler or a
    loop's `else`, in a comprehension's condition, in a nested function or lambda."""
    parts = []
    for node in gast.walk(fn):
        if isinstance(node, (gast.If, gast.IfExp)):
            parts += [node.body, node.orelse]
        elif isinstance(node, gast.BoolOp):
            parts += node.values[1:]
        elif isinstance(node, gast.Try):
            parts += node.handlers + node.orelse
        elif isinstance(node, (gast.For, gast.AsyncFor, gast.While)):
            parts += node.orelse
        elif isinstance(node, gast.comprehension):
            parts += node.ifs
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda,
                               gast.ClassDef)) and node is not fn:
            parts.append(node)
    skipped = set()
    for part in parts:
        for node in part if isinstance(part, list) else [part]:
            skipped |= {id(n) for n in gast.walk(node)}
    return skipped


def _packs_numbers(module, chain: list, call: gast.Call) -> bool:
    """`np.array([x, v, 0.5])` of a list written out: a graph packs fed numbers and numpy
    scalars (graphgen/number_functions.pack_array), or its trace fails at that line."""
    return chain in (["array"], ["asarray"]) and len(call.args) == 1 and \
        isinstance(call.args[0], (gast.List, gast.Tuple)) and \
        all(k.arg == "dtype" for k in call.keywords)


def _reduces(chain: list, call: gast.Call) -> bool:
    """`np.mean(a)`, `np.array(rewards)`: a graph reduces a fed 1-D float array, and packs
    a list of Python floats whose length varies (graphgen/reductions.py), or its trace
    fails at that line."""
    keywords = {k.arg for k in call.keywords}
    if chain in (["array"], ["asarray"]):
        return len(call.args) == 1 and isinstance(call.args[0], gast.Name) and \
            keywords <= {"dtype"}
    return chain in (["sum"], ["mean"], ["var"], ["std"]) and len(call.args) == 1 and \
        not isinstance(call.args[0], gast.Starred) and keywords <= {"axis", "dtype", "ddof"}


def _constant_arguments(call: gast.Call, env: dict) -> bool:
    """Whether `call`'s arguments are constants (`np.sqrt(2.0)`, `np.log(np.pi)`): a graph
    folds its result in, no tensor can reach numpy there."""
    return all(_constant(a, env) for a in call.args) and \
        all(_constant(k.value, env) for k in call.keywords)


def _constant(expr, env: dict) -> bool:
    if isinstance(expr, gast.Constant):
        return True
    if isinstance(expr, gast.UnaryOp):
        return _constant(expr.operand, env)
    if isinstance(expr, gast.BinOp):
        return _constant(expr.left, env) and _constant(expr.right, env)
    if isinstance(expr, (gast.Tuple, gast.List)):
        return all(_constant(e, env) for e in expr.elts)
    if isinstance(expr, gast.Attribute) and isinstance(expr.value, gast.Name):
        module = env.get(expr.value.id)
        return isinstance(module, types.ModuleType) and module.__name__ == "numpy" and \
            isinstance(getattr(module, expr.attr, None), (int, float))
    return False


def _module_of(value, chain: list[str]) -> str:
    owner = value
    for attr in reversed(chain):
        if not isinstance(value, types.ModuleType):
            break
        owner, value = value, getattr(value, attr, None)
    if isinstance(value, types.ModuleType):
        return value.__name__
    return user_attributes.get(value, "__module__", None) or user_attributes.get(owner, "__name__", "") or ""


def _numpy_function(value, chain) -> bool:
    value = _resolve(value, chain)
    return callable(value) and not isinstance(value, type)


def _resolve(value, chain):
    for attr in reversed(chain):
        if not isinstance(value, types.ModuleType):
            return None
        value = getattr(value, attr, None)
    return value


def _param_value(expr, params: dict):
    """The value of `param.a.b` (instance dictionaries only; None if not such a path)."""
    chain = []
    while isinstance(expr, gast.Attribute):
        chain.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, gast.Name) or expr.id not in params:
        return None
    return _through_dicts(params[expr.id], chain[::-1])


def _through_dicts(value, attrs: list[str]):
    """`value.a.b...` read from instance dictionaries only (None where one lacks it)."""
    for attr in attrs:
        try:
            value = vars(value).get(attr)
        except TypeError:
            return None
    return value


def numpy_locals(fn: gast.FunctionDef, env: dict) -> set[str]:
    """Locals every binding of which is a numpy value: a numpy call's result (arrays),
    `<tensor>.numpy()` (and items of it), or arithmetic of such values and constants."""
    bindings: dict[str, list] = {}
    simple = set()  # the Name nodes of plain `name = value` bindings
    nodes = list(scope.walk_own_scope(fn.body))
    for node in nodes:
        if isinstance(node, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
            targets = node.targets if isinstance(node, gast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, gast.Name):
                    simple.add(id(target))
                    value = node.value if not isinstance(node, gast.AugAssign) else \
                        gast.BinOp(left=target, op=node.op, right=node.value)
                    bindings.setdefault(target.id, []).append(value)
    for node in nodes:  # any other binding (unpacking, for/with/except targets, def...)
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)) and \
                id(node) not in simple:
            bindings.setdefault(node.id, []).append(None)
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            bindings.setdefault(node.name, []).append(None)
        elif isinstance(node, gast.alias):
            bindings.setdefault((node.asname or node.name).split(".")[0], []).append(None)
    args = fn.args
    params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs} | \
        {a.id for a in (args.vararg, args.kwarg) if a is not None}
    arrays = {name for name, values in bindings.items() if values and name not in params}
    changed = True
    while changed:  # drop names with a binding not surely numpy, until nothing changes
        changed = False
        for name in list(arrays):
            if not all(v is not None and _is_numpy(v, arrays, env) for v in bindings[name]):
                arrays.discard(name)
                changed = True
    return arrays


def _is_numpy(expr, arrays: set[str], env: dict) -> bool:
    if isinstance(expr, gast.Name):
        return expr.id in arrays
    if isinstance(expr, gast.Constant):
        return isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool)
    if isinstance(expr, gast.BinOp):
        sides = [expr.left, expr.right]
        return all(_is_numpy(s, arrays, env) for s in sides) and \
            any(not isinstance(s, gast.Constant) for s in sides)
    if isinstance(expr, gast.UnaryOp):
        return _is_numpy(expr.operand, arrays, env)
    if isinstance(expr, gast.Subscript):
        return _is_numpy(expr.value, arrays, env)
    if isinstance(expr, gast.Call):
        func = expr.func
        if isinstance(func, gast.Attribute) and func.attr == "numpy" and not expr.args:
            return True
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
                func.value.id in arrays:
            return True  # `a.mean()`, `a.astype(...)`
        chain = []
        while isinstance(func, gast.Attribute):
            chain.append(func.attr)
            func = func.value
        if not isinstance(func, gast.Name) or func.id not in env or not chain:
            return False
        value = env[func.id]
        return isinstance(value, types.ModuleType) and value.__name__ == "numpy" and \
            chain[-1] != "random" and _numpy_function(value, chain)
    return False


def static_openings(fn: gast.FunctionDef) -> dict[int, str]:
    """Compound statements (by line) better kept Python, their bodies split: a loop whose
    body records a gradient tape and updates variables (two updates in one graph lose
    their gradients), and an `if` that leaves a loop (a tensor test there flips between
    calls; in a graph each flip would cost a new trace)."""
    found = {}
    for node in scope.walk_own_scope(fn.body):
        if isinstance(node, _LOOPS):
            inner = list(scope.walk_own_scope(node.body))
            tape = any(isinstance(n, gast.Call) and _called_name(n) == "GradientTape"
                       for n in inner)
            update = any(isinstance(n, gast.Call) and _called_name(n) in _UPDATES
                         for n in inner)
            if tape and update:
                found[node.lineno] = "a loop updating variables from a gradient tape"
            for stmt in inner:
                if isinstance(stmt, gast.If) and leaves(stmt):
                    found.setdefault(stmt.lineno, "an `if` that leaves the loop")
    return found


def leaves(stmt) -> bool:
    """Whether `stmt` holds a break/continue of a loop around it (not of a loop inside)."""
    if isinstance(stmt, (gast.Break, gast.Continue)):
        return True
    if isinstance(stmt, _LOOPS):
        return any(leaves(s) for s in stmt.orelse)
    if isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)):
        return False
    return any(leaves(s) for field in ("body", "orelse", "finalbody")
               for s in getattr(stmt, field, None) or []) or \
        any(leaves(s) for h in getattr(stmt, "handlers", []) for s in h.body)


def _called_name(call: gast.Call) -> str:
    return getattr(call.func, "attr", getattr(call.func, "id", ""))


def op_count(stmts: list, env: dict, local: set[str], host_call) -> int | None:
    """Operations `stmts` run, at most: TensorFlow calls and operators, each one (None
    when unknown: a loop, or a call of user code or of a local). `host_call(func)` tells
    calls of builtins/numpy (no tensor work) apart."""
    count = 0
    for node in scope.walk_own_scope(stmts):
        if isinstance(node, _LOOPS + (gast.ListComp, gast.SetComp, gast.DictComp,
                                      gast.GeneratorExp)):
            return None
        if isinstance(node, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Subscript,
                             gast.AugAssign)):
            count += 1
        elif isinstance(node, gast.Call):
            func = node.func
            if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
                    func.value.id in local and func.attr in _CONTAINER_METHODS:
                continue
            if host_call(func):
                continue
            root = func
            while isinstance(root, gast.Attribute):
                root = root.value
            value = env.get(root.id) if isinstance(root, gast.Name) and \
                root.id not in local else None
            if root is func or not isinstance(value, types.ModuleType) or \
                    value.__name__.split(".")[0] != "tensorflow":
                return None  # user code: could be anything
            count += 1
    return count
