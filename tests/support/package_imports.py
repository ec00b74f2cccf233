"""Which modules a package's source files import, read from their syntax trees.

Every ``import`` and ``from ... import`` counts, at module level or inside a function
(the package imports heavy libraries lazily), so a test can assert what the installed
package may and may not reach: no test code, no benchmark, pygls only under ``server/``.
"""

import ast
from collections.abc import Iterator
from pathlib import Path

# Never imported by the package: the tests, the benchmark and the test extra's packages.
TEST_ONLY = ("tests", "bench", "onnx", "pytest", "pytest_lsp", "pytest_asyncio", "hypothesis")


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
