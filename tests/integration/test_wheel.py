"""The built wheel holds the product only: ``raggin_lsp`` with its data, no tests, no bench.

Builds the wheel as a user or CI would (``pip wheel . --no-deps``, with build isolation,
so setuptools comes from the index) and reads it as a zip. That the installed command
works is checked by ``.ci/run`` (a fresh venv and ``tests/support/wheel_smoke.py``).
"""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.support.package_imports import boundary_violations

pytestmark = [pytest.mark.network, pytest.mark.slow]

PACKAGE_DATA = (
    "raggin_lsp/py.typed",
    "raggin_lsp/corpus/data/versions.yaml",
    "raggin_lsp/embed/data/english_stopwords.txt",
    "raggin_lsp/eval/data/questions.yaml",
    "raggin_lsp/eval/data/questions-noisy.yaml",
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(out)],
        check=True,
        timeout=10 * 60,
    )
    (built,) = out.glob("raggin_lsp-*.whl")
    return built


def test_the_wheel_holds_only_the_package_and_its_metadata(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert tops == {"raggin_lsp", wheel.name.split("-py3")[0] + ".dist-info"}
    assert not [n for n in names if "/tests/" in n or "/bench/" in n or "conftest" in n]


def test_the_wheel_carries_its_data_and_the_command(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    names = set(archive.namelist())
    assert set(PACKAGE_DATA) <= names
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert "raggin-lsp = raggin_lsp.cli:main" in archive.read(entry_points).decode()


def test_the_wheel_imports_no_test_code_and_pygls_only_in_server(
    wheel: Path, tmp_path: Path
) -> None:
    zipfile.ZipFile(wheel).extractall(tmp_path)
    assert boundary_violations(tmp_path / "raggin_lsp") == []
