"""The package holds the product only: no test code, no benchmark, pygls only in server/.

An installed wheel has neither ``tests/`` nor ``bench/`` nor the test extra, so a module
of ``raggin_lsp`` that imported one of them would break there (``make bench`` runs
``python -m bench`` from a checkout instead of a ``raggin-lsp bench`` command).
"""

from importlib.metadata import version
from pathlib import Path

import pytest

from raggin_lsp import package_version
from raggin_lsp.cli import build_parser, main
from tests.support.package_imports import (
    boundary_violations,
    import_cycles,
    import_graph,
    imported_modules,
)

PACKAGE = Path(__file__).resolve().parents[2] / "raggin_lsp"


def test_the_package_imports_no_test_code_and_pygls_only_in_server() -> None:
    assert boundary_violations(PACKAGE) == []


def test_no_module_imports_one_that_imports_it_back() -> None:
    """Data flows one way: not even a lazy import inside a function closes a circle."""
    assert import_cycles(import_graph(PACKAGE)) == []


def test_a_circle_through_a_lazy_import_is_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.b import thing\n")
    (package / "b.py").write_text("def thing():\n    from pkg import c\n")
    (package / "c.py").write_text("import pkg.a\n")
    (package / "d.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.a\n"
    )
    graph = import_graph(package)
    assert graph["pkg.b"] == {"pkg.c"}
    assert graph["pkg.d"] == set()  # type-only imports never run
    assert import_cycles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("import pygls.server", {"pygls.server"}, id="import"),
        pytest.param("from tests.support import x", {"tests.support"}, id="from-import"),
        pytest.param("def f():\n    import onnx\n", {"onnx"}, id="lazy-in-function"),
        pytest.param("from . import sibling", set(), id="relative-skipped"),
    ],
)
def test_imports_are_read_wherever_they_are(source: str, expected: set[str]) -> None:
    assert imported_modules(source) == expected


def test_a_lazy_pygls_import_outside_server_is_caught(tmp_path: Path) -> None:
    package = tmp_path / "raggin_lsp"
    (package / "server").mkdir(parents=True)
    (package / "server" / "ok.py").write_text("from pygls.lsp.server import LanguageServer\n")
    (package / "retrieve.py").write_text("def f():\n    import pygls\n")
    (package / "cli.py").write_text("from bench.runner import run_bench\n")
    assert boundary_violations(package) == [
        "raggin_lsp/cli.py: bench.runner (test or benchmark code)",
        "raggin_lsp/retrieve.py: pygls (pygls outside server/)",
    ]


def test_the_cli_has_no_bench_command() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bench"])


def test_the_cli_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"raggin-lsp {package_version()}"
    assert package_version() == version("raggin-lsp")  # pyproject.toml reads it from us


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["serve", "--help"], id="serve"),
        pytest.param(["-v", "serve", "--help"], id="verbose-serve"),
    ],
)
def test_serve_builds_only_its_own_parser(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Editors spawn `serve` on every start: its help works without the other commands."""
    assert main(argv) == 0
    assert "--tcp" in capsys.readouterr().out
    with pytest.raises(SystemExit):  # the other commands are not even registered
        build_parser("serve").parse_args(["index", "16.4.6"])


def test_every_other_command_line_knows_every_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--help"]) == 0
    listed = capsys.readouterr().out
    for command in ("index", "search", "eval", "mcp", "serve", "demo", "apis", "diff"):
        assert command in listed
