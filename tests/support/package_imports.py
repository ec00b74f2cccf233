"""Which modules a package's source files import, read from their syntax trees.

Every ``import`` and ``from ... import`` counts, at module level or inside a function
(the package imports heavy libraries lazily), so a test can assert what the installed
package may and may not reach: no test code, no benchmark, pygls only under ``server/``.
"""

import ast
from collections.abc import Iterator
from pathlib import Path

# Never imported by the package: the tests, the benchmark and the test extra's packages.
TEST_ONLY = ("tests", "bench", "pytest", "pytest_lsp", "pytest_asyncio", "hypothesis")


def imported_modules(source: str, filename: str = "<source>") -> set[str]:
    """The absolute module names one source file imports (relative imports are skipped)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def top_level(module: str) -> str:
    return module.partition(".")[0]


def package_imports(root: Path) -> Iterator[tuple[str, set[str]]]:
    """(path relative to ``root``'s parent, imported modules) for every ``.py`` under it."""
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root.parent).as_posix()
        yield relative, imported_modules(path.read_text(encoding="utf-8"), relative)


def boundary_violations(root: Path) -> list[str]:
    """Each import the package must not make, as ``"path: module"`` lines."""
    violations = []
    for relative, modules in package_imports(root):
        for module in sorted(modules):
            top = top_level(module)
            if top in TEST_ONLY:
                violations.append(f"{relative}: {module} (test or benchmark code)")
            elif top == "pygls" and not relative.startswith(f"{root.name}/server/"):
                violations.append(f"{relative}: {module} (pygls outside server/)")
    return violations


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import that runs, at module level or in a function; ``if TYPE_CHECKING:``
    blocks are left out (they never run)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        yield from _runtime_imports(node)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (``from a import b`` counts as
    ``a.b`` when that is a module, else as ``a``)."""
    modules = {_module_name(path, root): path for path in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names if alias.name in modules)
            elif node.level == 0 and node.module in modules:
                for alias in node.names:
                    child = f"{node.module}.{alias.name}"
                    targets.add(child if child in modules else node.module)
        graph[name] = targets - {name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or through others
    (strongly connected components of more than one module, Tarjan's algorithm)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if target not in order:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], order[target])
        if low[module] == order[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return cycles
