"""Fixtures shared by the integration, end-to-end and editor tests.

The expensive one is a real embedded index of the Next.js 16.2.0 docs with the offline
``light`` profile: embedding a whole version takes minutes on two cores, so it is built
once through the CLI (exactly as a user would) and cached under the raggin cache folder,
keyed by a hash of the code that decides its contents. Tests that write to an index get a
copy of it.
"""

import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from raggin_lsp import paths

ROOT = Path(__file__).resolve().parent.parent
RAGGIN = (sys.executable, "-m", "raggin_lsp")  # the CLI, as the user's `raggin-lsp`
INDEXED_VERSION = "16.2.0"
# The code whose changes change what an index holds (sections, vectors, point layout).
_INDEX_INPUTS = (
    "raggin_lsp/corpus",
    "raggin_lsp/embed",
    "raggin_lsp/store/schema.py",
    "raggin_lsp/store/manifest.py",
    "raggin_lsp/store/format.py",
)
# Derived from the parsed docs next to the index, never stored in it (its own cache key).
_NOT_INDEX_INPUTS = ("raggin_lsp/corpus/apis.py",)


def _inputs_digest() -> str:
    digest = hashlib.sha256()
    for name in _INDEX_INPUTS:
        inputs = [ROOT / name] if name.endswith(".py") else sorted((ROOT / name).rglob("*"))
        for path in inputs:
            relative = path.relative_to(ROOT).as_posix()
            if relative in _NOT_INDEX_INPUTS:
                continue
            if path.is_file() and path.suffix in (".py", ".txt", ".yaml"):
                digest.update(path.relative_to(ROOT).as_posix().encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def build_light_index(version: str, target: Path) -> None:
    """``raggin-lsp index VERSION --profile light`` into ``target`` (a fresh folder)."""
    subprocess.run(
        [*RAGGIN, "index", version, "--profile", "light", "--qdrant-path", str(target), "-q"],
        check=True,
        cwd=ROOT,
        timeout=60 * 60,
    )


@pytest.fixture(scope="session")
def light_index_dir() -> Path:
    """An embedded index holding the 16.2.0 docs (light profile). Do not write to it."""
    cache = paths.cache_dir() / "test-index" / f"light-{INDEXED_VERSION}-{_inputs_digest()}"
    if not cache.exists():
        cache.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".building-", dir=cache.parent))
        try:
            build_light_index(INDEXED_VERSION, staging / "qdrant")
            # Published by rename only when complete: an interrupted build is never reused.
            staging.replace(cache)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        for stale in cache.parent.glob(f"light-{INDEXED_VERSION}-*"):
            if stale != cache:
                shutil.rmtree(stale, ignore_errors=True)
    return cache / "qdrant"


@pytest.fixture
def writable_light_index(light_index_dir: Path, tmp_path: Path) -> Path:
    """A private copy of the 16.2.0 index that a test may index into or remove from."""
    copy = tmp_path / "qdrant"
    shutil.copytree(light_index_dir, copy)
    return copy
