"""No function janus nests in another calls itself (F440).

A nested function that calls itself keeps itself in its own closure cell: a reference
cycle, with everything else its closure holds (a trace's tracer, the call's arguments,
a recursive call's tree nodes), freed only when the garbage collector runs, calls later
(an argument's `__del__` ran late; its tensors' memory stayed). Module-level helpers
with explicit parameters have no cycle; a nested one its enclosing function `del`s after
use (`recursion/table.py`'s walk) breaks it."""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent / "janus"


def _self_calling(path: pathlib.Path) -> list[str]:
    found = []
    tree = ast.parse(path.read_text())
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    for outer in ast.walk(tree):
        if not isinstance(outer, functions):
            continue
        deleted = {target.id for node in ast.walk(outer) if isinstance(node, ast.Delete)
                   for target in node.targets if isinstance(target, ast.Name)}
        for inner in ast.walk(outer):
            if inner is outer or not isinstance(inner, functions):
                continue
            reads = {node.id for node in ast.walk(inner)
                     if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
            if inner.name in reads and inner.name not in deleted and \
                    _directly_in(inner, outer):
                found.append(f"{path.relative_to(ROOT.parent)}:{inner.lineno} {inner.name}")
    return found


def _directly_in(inner, outer) -> bool:
    """Whether `inner` is defined in `outer`'s own body (not in a class or another
    function nested in it)."""
    pending = list(outer.body)
    while pending:
        node = pending.pop()
        if node is inner:
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                             ast.Lambda)):
            continue
        pending += list(ast.iter_child_nodes(node))
    return False


def test_no_nested_function_calls_itself():
    found = [hit for path in sorted(ROOT.rglob("*.py")) for hit in _self_calling(path)]
    assert not found, "nested functions calling themselves (a reference cycle): " + \
        ", ".join(found)
