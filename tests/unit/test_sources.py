"""ensure_docs end to end against a fake registry and codeload host on 127.0.0.1."""

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from raggin_lsp.corpus import versions
from raggin_lsp.corpus.fetch import cached_versions, ensure_docs, source_info
from raggin_lsp.corpus.versions import catalog_from_metadata, write_snapshot
from raggin_lsp.errors import (
    IntegrityError,
    OfflineError,
    RagginError,
    UnknownVersionError,
    UnsafeArchiveError,
)
from tests.support.npm_fake import (
    FakeHost,
    fake_host,
    github_archive,
    npm_tarball,
    registry_metadata,
    tar_bytes,
    unused_local_url,
    write_files,
)

DOCS = {
    "index.md": "# Next.js Docs\n",
    "01-app/01-getting-started/01-installation.md": "# Installation\n\nRun it.\n",
}
GOOD = npm_tarball("16.4.6", DOCS)
HOSTILE = tar_bytes(
    {"package/dist/docs/index.md": "# Docs\n", "package/dist/docs/../../../../escaped.md": "x"}
)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("RAGGIN_CACHE_DIR", str(root))
    monkeypatch.setattr(versions, "snapshot_paths", lambda: [tmp_path / "no-snapshot.yaml"])
    return root


@pytest.fixture
def host(cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHost]:
    with fake_host() as server:
        tarballs = {"16.4.6": GOOD, "16.3.0": GOOD, "16.2.0": HOSTILE}
        metadata = registry_metadata(server.base_url, tarballs, other_versions=("16.1.0",))
        # 16.3.0 is served with bytes that differ from its published checksum.
        metadata_versions = metadata["versions"]
        assert isinstance(metadata_versions, dict)
        metadata_versions["16.3.0"]["dist"]["integrity"] = "sha512-" + "A" * 86 + "=="
        server.serve_json("/next", metadata)
        for version, data in tarballs.items():
            server.routes[f"/next/-/next-{version}.tgz"] = data
        server.routes["/gh/v16.1.0"] = github_archive(
            "16.1.0", {"01-app/index.mdx": "# App\n"}, {"no-cache.mdx": "# No Cache\n"}
        )
        monkeypatch.setenv("RAGGIN_NPM_REGISTRY", server.base_url)
        monkeypatch.setenv("RAGGIN_GITHUB_ARCHIVE_URL", f"{server.base_url}/gh")
        yield server


def docs_files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.suffix in (".md", ".mdx")}


def assert_nothing_left(cache: Path, tmp_path: Path) -> None:
    assert cached_versions() == []
    docs_root = cache / "docs"
    assert not docs_root.exists() or list(docs_root.iterdir()) == []
    assert not list(tmp_path.rglob("escaped.md"))


def test_npm_tarball_is_verified_and_cached(host: FakeHost, cache: Path) -> None:
    seen: list[tuple[int, int | None]] = []
    root = ensure_docs("16.4.6", progress=lambda done, total: seen.append((done, total)))
    assert root == cache / "docs" / "16.4.6"
    assert docs_files(root) == {f"docs/{name}" for name in DOCS}
    info = source_info("16.4.6")
    assert info is not None
    assert info["kind"] == "npm"
    assert info["verified"] is True
    assert info["location"].endswith("/next/-/next-16.4.6.tgz")
    assert seen[-1] == (len(GOOD), len(GOOD))
    assert cached_versions() == ["16.4.6"]
    requests = len(host.requests)
    assert ensure_docs("16.4.6") == root
    assert len(host.requests) == requests  # served from the cache


def test_checksum_mismatch_leaves_no_cache_entry(
    host: FakeHost, cache: Path, tmp_path: Path
) -> None:
    with pytest.raises(IntegrityError, match="does not match"):
        ensure_docs("16.3.0")
    assert_nothing_left(cache, tmp_path)


def test_hostile_tarball_leaves_no_cache_entry(host: FakeHost, cache: Path, tmp_path: Path) -> None:
    with pytest.raises(UnsafeArchiveError, match="climbs out"):
        ensure_docs("16.2.0")
    assert_nothing_left(cache, tmp_path)


def test_github_tag_archive_gives_docs_and_errors(host: FakeHost) -> None:
    root = ensure_docs("16.1.0")
    assert docs_files(root) == {"docs/01-app/index.mdx", "errors/no-cache.mdx"}
    assert "/gh/v16.1.0" in host.paths_requested()
    info = source_info("16.1.0")
    assert info is not None
    assert info["kind"] == "github"
    assert info["verified"] is False


def make_project(root: Path, installed: str) -> Path:
    write_files(
        root,
        {
            "package.json": json.dumps({"dependencies": {"next": f"^{installed}"}}),
            "node_modules/next/package.json": json.dumps({"name": "next", "version": installed}),
            "node_modules/next/dist/docs/index.md": "# Workspace Docs\n",
            "src/app/page.tsx": "export default function Page() {}\n",
        },
    )
    return root


def test_workspace_with_the_same_version_needs_no_network(host: FakeHost, tmp_path: Path) -> None:
    project = make_project(tmp_path / "project", "16.4.6")
    root = ensure_docs("16.4.6", workspace=project / "src" / "app")
    assert (root / "docs" / "index.md").read_text() == "# Workspace Docs\n"
    assert host.requests == []
    info = source_info("16.4.6")
    assert info is not None
    assert info["kind"] == "workspace"


def test_workspace_with_another_version_is_skipped(host: FakeHost, tmp_path: Path) -> None:
    project = make_project(tmp_path / "project", "16.4.5")
    root = ensure_docs("16.4.6", workspace=project)
    assert (root / "docs" / "index.md").read_text() == DOCS["index.md"]
    info = source_info("16.4.6")
    assert info is not None
    assert info["kind"] == "npm"


@pytest.mark.parametrize(
    ("layout", "expected"),
    [
        pytest.param("docs-folder", {"docs/index.md"}, id="docs-folder"),
        pytest.param("repo-folder", {"docs/index.md", "errors/e.mdx"}, id="repo-folder"),
        pytest.param("project", {"docs/index.md"}, id="project-with-node-modules"),
        pytest.param("npm-tarball", {f"docs/{name}" for name in DOCS}, id="npm-tarball"),
        pytest.param("github-archive", {"docs/a.mdx", "errors/b.mdx"}, id="github-archive"),
    ],
)
def test_from_path(cache: Path, tmp_path: Path, layout: str, expected: set[str]) -> None:
    given = tmp_path / "given"
    if layout == "docs-folder":
        write_files(given, {"index.md": "# Docs\n", "notes.txt": "skip"})
    elif layout == "repo-folder":
        write_files(given, {"docs/index.md": "# Docs\n", "errors/e.mdx": "# E\n"})
    elif layout == "project":
        make_project(given, "16.4.6")
    elif layout == "npm-tarball":
        given = tmp_path / "next-16.4.6.tgz"
        given.write_bytes(GOOD)
    else:
        given = tmp_path / "v16.4.6.tar.gz"
        given.write_bytes(github_archive("16.4.6", {"a.mdx": "# A\n"}, {"b.mdx": "# B\n"}))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAGGIN_NPM_REGISTRY", unused_local_url())  # proves no network is used
        root = ensure_docs("16.4.6", from_path=given)
    assert docs_files(root) == expected
    info = source_info("16.4.6")
    assert info is not None
    assert info["kind"] == "path"


@pytest.mark.parametrize(
    "layout",
    [
        pytest.param("npm-tarball", id="npm-tarball"),
        pytest.param("github-archive", id="github-archive"),
        pytest.param("project", id="project"),
    ],
)
def test_from_path_of_another_version_is_refused(cache: Path, tmp_path: Path, layout: str) -> None:
    if layout == "npm-tarball":
        given = tmp_path / "next.tgz"
        given.write_bytes(npm_tarball("16.4.5", DOCS))
    elif layout == "github-archive":
        given = tmp_path / "v16.0.0.tar.gz"
        given.write_bytes(github_archive("16.0.0", {"a.mdx": "# A\n"}))
    else:
        given = make_project(tmp_path / "project", "16.4.5")
    with pytest.raises(RagginError, match=r"not 16\.4\.6"):
        ensure_docs("16.4.6", from_path=given)
    assert cached_versions() == []


def test_offline_with_nothing_cached(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dead = unused_local_url()
    snapshot = tmp_path / "snapshot.yaml"
    write_snapshot(catalog_from_metadata(registry_metadata(dead, {"16.4.6": GOOD})), snapshot)
    monkeypatch.setattr(versions, "snapshot_paths", lambda: [snapshot])
    monkeypatch.setenv("RAGGIN_NPM_REGISTRY", dead)
    with pytest.raises(OfflineError, match=r"16\.4\.6 are not cached yet") as caught:
        ensure_docs("16.4.6")
    assert "--from PATH" in str(caught.value)
    assert cached_versions() == []


def test_cached_docs_need_no_network(host: FakeHost, monkeypatch: pytest.MonkeyPatch) -> None:
    root = ensure_docs("16.4.6")
    monkeypatch.setenv("RAGGIN_NPM_REGISTRY", unused_local_url())
    assert ensure_docs("16.4.6") == root


@pytest.mark.parametrize(
    ("asked", "message"),
    [
        pytest.param("16.4.99", r"16\.4\.99 is not a release; nearest: 16\.4\.6", id="unknown"),
        pytest.param("../../etc", "not a Next.js version number", id="path-trick"),
        pytest.param("16.4", "not a Next.js version number", id="partial"),
    ],
)
def test_unknown_versions_are_refused(
    host: FakeHost, cache: Path, asked: str, message: str
) -> None:
    with pytest.raises(UnknownVersionError, match=message):
        ensure_docs(asked)
    assert cached_versions() == []


def test_an_entry_finished_meanwhile_is_kept(host: FakeHost, tmp_path: Path) -> None:
    """Another process finishing the same version first wins; ours is discarded cleanly."""
    other = write_files(tmp_path / "other", {"index.md": "# From the other process\n"})
    started: list[bool] = []

    def other_process_finishes_first(done: int, total: int | None) -> None:
        if not started:
            started.append(True)
            ensure_docs("16.4.6", from_path=other)

    root = ensure_docs("16.4.6", progress=other_process_finishes_first)
    assert (root / "docs" / "index.md").read_text() == "# From the other process\n"
    info = source_info("16.4.6")
    assert info is not None
    assert info["kind"] == "path"
    assert [p.name for p in root.parent.iterdir()] == ["16.4.6"]


def test_concurrent_fetches_agree(host: FakeHost) -> None:
    results: list[Path] = []
    errors: list[BaseException] = []

    def fetch() -> None:
        try:
            results.append(ensure_docs("16.4.6"))
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=fetch) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    assert len(set(results)) == 1
    assert docs_files(results[0]) == {f"docs/{name}" for name in DOCS}
    assert [p.name for p in results[0].parent.iterdir()] == ["16.4.6"]


def test_force_replaces_the_entry(host: FakeHost, tmp_path: Path) -> None:
    ensure_docs("16.4.6")
    other = write_files(tmp_path / "other", {"index.md": "# Replacement\n"})
    root = ensure_docs("16.4.6", from_path=other, force=True)
    assert docs_files(root) == {"docs/index.md"}
    assert (root / "docs" / "index.md").read_text() == "# Replacement\n"
    assert [p.name for p in root.parent.iterdir()] == ["16.4.6"]
