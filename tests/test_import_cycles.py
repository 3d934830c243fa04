"""No import cycle among janus's modules: their module-level imports (read from the source,
not run; imports inside functions and `if TYPE_CHECKING:` left out) form no loop. A
package counts as its `__init__`; `from janus.x import y` names the module `janus.x.y`
where there is one, else `janus.x`."""
import ast
import pathlib

import janus

ROOT = pathlib.Path(janus.__file__).parent.parent


def _modules() -> dict:
    found = {}
    for path in (ROOT / "janus").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def _imported(node, package: str, modules: dict) -> list:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        parent = package.split(".")[:len(package.split(".")) - node.level + 1]
        base = ".".join(parent + ([base] if base else []))
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]


def _module_level(tree: ast.AST):
    """The import statements of `tree` run as its module is imported."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child
        elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            continue
        elif not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield from _module_level(child)


def _graph() -> dict:
    modules = _modules()
    graph = {}
    for name, (path, package) in modules.items():
        here = name if package else name.rpartition(".")[0]
        targets = set()
        for node in _module_level(ast.parse(path.read_text())):
            for target in _imported(node, here, modules):
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target.startswith("janus") and target != name:
                    targets.add(target)
        graph[name] = targets
    return graph


def _cycle(graph: dict):
    """One loop of `graph` (a list of modules, the first again last), or None."""
    state = {}

    def visit(name, path):
        state[name] = "open"
        for target in sorted(graph[name]):
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            if target not in state:
                found = visit(target, path + [target])
                if found:
                    return found
        state[name] = "done"
        return None

    for name in sorted(graph):
        if name not in state:
            found = visit(name, [name])
            if found:
                return found
    return None


def test_janus_modules_import_one_another_without_a_cycle():
    graph = _graph()
    assert len(graph) > 100 and graph["janus.graphgen.keras_epoch"]  # (the walk found them)
    cycle = _cycle(graph)
    assert cycle is None, "module-level imports loop: " + " -> ".join(cycle)


def test_the_walk_finds_a_loop():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
