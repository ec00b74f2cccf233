"""Real downloads from the npm registry into the user's cache (shared between runs)."""

from pathlib import Path

import pytest

from raggin_lsp.corpus.fetch import ensure_docs, source_info
from raggin_lsp.corpus.versions import load_catalog, load_snapshot, parse_stable, snapshot_paths

pytestmark = pytest.mark.network


@pytest.mark.parametrize(
    ("version", "markdown_files"),
    [
        pytest.param("16.2.0", 391, id="first-bundled"),
        pytest.param("16.4.6", 475, id="16.4.6"),
    ],
)
def test_npm_docs_of_a_release(version: str, markdown_files: int) -> None:
    root = ensure_docs(version)
    assert sum(1 for _ in (root / "docs").rglob("*.md")) == markdown_files
    assert (root / "docs" / "index.md").is_file()
    info = source_info(version)
    assert info is not None
    assert info["integrity"].startswith("sha512-")


def test_live_catalog() -> None:
    catalog = load_catalog(refresh=True)
    assert catalog.origin == "registry"
    assert "16.4.6" in catalog
    assert catalog.versions[0] == "13.0.0"
    assert all(parse_stable(version) is not None for version in catalog.versions)
    assert not any("canary" in version for version in catalog.versions)
    assert catalog.require("16.2.0").source == "npm-bundled"
    assert catalog.require("16.1.0").source == "github-tag"


def test_committed_snapshot_agrees_with_the_registry() -> None:
    snapshot = load_snapshot([snapshot_paths()[0]])
    assert snapshot is not None, f"missing {snapshot_paths()[0]}: run make versions"
    live = load_catalog()
    for release in snapshot.releases:
        assert live.get(release.version) == release, release.version
    packaged = load_snapshot([snapshot_paths()[1]])
    assert packaged is not None
    assert packaged.releases == snapshot.releases


def test_repo_snapshot_is_where_the_makefile_writes_it() -> None:
    assert snapshot_paths()[0] == Path(__file__).resolve().parents[2] / "corpus" / "versions.yaml"
