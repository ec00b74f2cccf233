"""The places a version's docs can come from, each able to copy them into a cache entry.

In the order :func:`raggin_lsp.corpus.fetch.ensure_docs` tries them:

1. a path the user names (a docs folder, a project with ``node_modules``, an npm
   tarball or a GitHub-style archive);
2. the workspace: ``node_modules/next/dist/docs`` when the installed ``next`` is the
   requested version (no network at all);
3. the npm tarball (16.2.0 and later bundle ``dist/docs/``), checked against the
   integrity the registry publishes;
4. the GitHub tag archive (older releases), members ``docs/**`` and ``errors/**``.
"""

import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from raggin_lsp.corpus.download import download
from raggin_lsp.corpus.extract import (
    DOC_SUFFIXES,
    Layout,
    Limits,
    MissingDocsError,
    copy_docs_tree,
    extract_docs,
    is_archive,
)
from raggin_lsp.corpus.versions import Release
from raggin_lsp.errors import RagginError

Progress = Callable[[int, int | None], None]

GITHUB_ARCHIVE_BASE = "https://codeload.github.com/vercel/next.js/tar.gz/refs/tags"


def github_archive_url(version: str) -> str:
    """The tag archive (top folder ``next.js-<version>/``).

    ``RAGGIN_GITHUB_ARCHIVE_URL`` replaces the base, so tests can serve archives locally.
    """
    base = os.environ.get("RAGGIN_GITHUB_ARCHIVE_URL") or GITHUB_ARCHIVE_BASE
    return f"{base.rstrip('/')}/v{version}"


class DocsSource(Protocol):
    """Copies one version's docs into a fresh cache entry and says where they came from."""

    @property
    def kind(self) -> str:
        """``workspace``, ``path``, ``npm`` or ``github``: recorded in ``source.json``."""
        ...

    @property
    def location(self) -> str:
        """The folder, file or URL the docs are read from."""
        ...

    def stage(self, entry: Path, *, progress: Progress | None, limits: Limits) -> dict[str, Any]:
        """Fills ``entry/docs`` (and maybe ``entry/errors``); returns extra ``source.json`` keys."""
        ...


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def installed_next_version(project: Path) -> str | None:
    """The ``next`` version installed in ``project/node_modules``, if any."""
    manifest = _read_json(project / "node_modules" / "next" / "package.json")
    version = manifest.get("version") if manifest else None
    return version if isinstance(version, str) else None


def find_workspace_project(workspace: Path) -> Path | None:
    """The nearest folder at or above ``workspace`` with a package.json and next installed.

    Walking up covers monorepos, where ``next`` is hoisted to the root's node_modules.
    """
    for folder in (workspace, *workspace.parents):
        if (folder / "package.json").is_file() and installed_next_version(folder) is not None:
            return folder
    return None


def _check_version(found: str | None, wanted: str, where: str) -> None:
    if found is not None and found != wanted:
        raise RagginError(f"{where} holds the docs of Next.js {found}, not {wanted}.")


@dataclass(frozen=True)
class FolderSource:
    """Docs already on disk: a workspace's node_modules, or a folder the user named."""

    docs: Path
    errors: Path | None = None
    kind: str = "path"
    location: str = ""

    def stage(self, entry: Path, *, progress: Progress | None, limits: Limits) -> dict[str, Any]:
        origin = f"The folder {self.docs}"
        files = copy_docs_tree(self.docs, entry / "docs", limits=limits, origin=origin)
        if self.errors is not None and self.errors.is_dir():
            files += copy_docs_tree(self.errors, entry / "errors", limits=limits, origin=origin)
        if files == 0:
            raise MissingDocsError(f"{self.docs} holds no Markdown (.md or .mdx) files.")
        return {"files": files}


@dataclass(frozen=True)
class ArchiveSource:
    """A tarball on disk: an npm package tarball or a GitHub-style archive."""

    archive: Path
    version: str
    layout: Layout = "any"
    kind: str = "path"

    @property
    def location(self) -> str:
        return str(self.archive)

    def stage(self, entry: Path, *, progress: Progress | None, limits: Limits) -> dict[str, Any]:
        report = extract_docs(self.archive, entry, layout=self.layout, limits=limits)
        _check_version(report.npm_version, self.version, f"The archive {self.archive.name}")
        tops = {top for top in report.top_folders if top.startswith("next.js-")}
        if len(tops) == 1 and report.npm_version is None:
            _check_version(tops.pop().removeprefix("next.js-"), self.version, self.archive.name)
        return {"files": report.files, "bytes": report.bytes}


@dataclass(frozen=True)
class _DownloadSource:
    url: str
    version: str
    layout: Layout
    integrity: str | None
    what: str
    kind: str

    @property
    def location(self) -> str:
        return self.url

    def stage(self, entry: Path, *, progress: Progress | None, limits: Limits) -> dict[str, Any]:
        # The download lives next to the entry, inside the cache, and dies with it.
        handle, name = tempfile.mkstemp(prefix="download-", suffix=".tgz", dir=entry.parent)
        os.close(handle)
        archive = Path(name)
        try:
            digest = download(
                self.url, archive, integrity=self.integrity, progress=progress, what=self.what
            )
            extracted = ArchiveSource(archive, self.version, self.layout)
            info = extracted.stage(entry, progress=None, limits=limits)
        finally:
            archive.unlink(missing_ok=True)
        return {**info, "integrity": self.integrity or digest, "verified": bool(self.integrity)}


def npm_source(release: Release) -> DocsSource:
    if not release.tarball:
        raise RagginError(f"The release list has no npm tarball for Next.js {release.version}.")
    return _DownloadSource(
        url=release.tarball,
        version=release.version,
        layout="npm",
        integrity=release.integrity,
        what=f"the npm package next@{release.version}",
        kind="npm",
    )


def github_source(version: str) -> DocsSource:
    return _DownloadSource(
        url=github_archive_url(version),
        version=version,
        layout="github",
        integrity=None,  # codeload archives carry no published checksum
        what=f"the GitHub archive of Next.js v{version}",
        kind="github",
    )


def workspace_source(workspace: Path, version: str) -> DocsSource | None:
    """The workspace's installed docs, when its ``next`` is exactly ``version``."""
    project = find_workspace_project(workspace)
    if project is None or installed_next_version(project) != version:
        return None
    docs = project / "node_modules" / "next" / "dist" / "docs"
    if not docs.is_dir():
        return None  # before 16.2.0 the package bundles no docs
    return FolderSource(docs=docs, kind="workspace", location=str(docs))


def _holds_markdown(folder: Path) -> bool:
    return any(
        path.name.lower().endswith(DOC_SUFFIXES) for path in folder.rglob("*") if path.is_file()
    )


def path_source(path: Path, version: str) -> DocsSource:
    """Reads what a user-named path is: a tarball, a project, a package or a docs folder."""
    path = path.expanduser()
    if not path.exists():
        raise RagginError(f"{path} does not exist.")
    if path.is_file():
        if not is_archive(path):
            raise RagginError(
                f"{path} is not a tar archive. Give a docs folder, a project folder with "
                "node_modules, an npm tarball (next-<version>.tgz) or a GitHub tag archive."
            )
        return ArchiveSource(path.resolve(), version)
    project = path / "node_modules" / "next"
    if (project / "package.json").is_file():
        installed = installed_next_version(path)
        _check_version(installed, version, f"The project {path} (node_modules/next)")
        return _package_docs(project, version)
    for package in (path / "package", path):
        manifest = _read_json(package / "package.json")
        if manifest is not None and manifest.get("name") == "next":
            _check_version(str(manifest.get("version")), version, f"The package {package}")
            return _package_docs(package, version)
    docs = path / "docs"
    if docs.is_dir() and _holds_markdown(docs):
        errors = path / "errors"
        return FolderSource(
            docs=docs, errors=errors if errors.is_dir() else None, location=str(path)
        )
    if _holds_markdown(path):
        return FolderSource(docs=path, location=str(path))
    raise MissingDocsError(f"{path} holds no Next.js docs (no .md or .mdx files).")


def _package_docs(package: Path, version: str) -> DocsSource:
    docs = package / "dist" / "docs"
    if not docs.is_dir():
        raise MissingDocsError(
            f"next {version} in {package} bundles no docs (only 16.2.0 and later do); "
            "use a GitHub tag archive or a docs folder instead."
        )
    return FolderSource(docs=docs, location=str(docs))
