"""The docs cache: ``<cache>/docs/<version>/`` with ``docs/``, maybe ``errors/``, ``source.json``.

An entry is built in a temporary folder inside the same cache folder and renamed into
place only once complete, so a partial download never looks like a cache entry, and
two processes fetching the same version cannot corrupt each other: the rename is
atomic and whoever comes second keeps the entry already there.
"""

import contextlib
import json
import logging
import re
import shutil
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from raggin_lsp.corpus.extract import Limits
from raggin_lsp.corpus.sources import (
    DocsSource,
    Progress,
    github_source,
    npm_source,
    path_source,
    workspace_source,
)
from raggin_lsp.corpus.versions import load_catalog, unknown_version_message
from raggin_lsp.errors import OfflineError, RagginError, UnknownVersionError
from raggin_lsp.paths import docs_cache_dir

log = logging.getLogger(__name__)

SOURCE_FILE = "source.json"
_STAGING_PREFIX = ".tmp-"
_STALE_STAGING_SECONDS = 24 * 3600
# Also names the cache folder, so nothing that could be a path trick gets through.
_VERSION_NAME = re.compile(r"\d+\.\d+\.\d+(?:-[0-9A-Za-z][0-9A-Za-z.-]*)?")


def is_version_name(text: str) -> bool:
    """An exact version (``16.4.6``, ``16.5.0-canary.3``) rather than a range or a tag."""
    return _VERSION_NAME.fullmatch(text.strip()) is not None


def entry_path(version: str) -> Path:
    return docs_cache_dir() / version


def is_cached(version: str) -> bool:
    entry = entry_path(version)
    return (entry / SOURCE_FILE).is_file() and (entry / "docs").is_dir()


def source_info(version: str) -> dict[str, Any] | None:
    """The ``source.json`` of a cached version: where and when its docs were fetched."""
    try:
        data = json.loads((entry_path(version) / SOURCE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _version_key(version: str) -> tuple[tuple[int, ...], str]:
    numbers = tuple(int(part) for part in re.findall(r"\d+", version.split("-", 1)[0]))
    return numbers, version


def cached_versions() -> list[str]:
    """Versions with a complete docs cache entry, oldest first."""
    root = docs_cache_dir()
    if not root.is_dir():
        return []
    names = [
        path.name
        for path in root.iterdir()
        if _VERSION_NAME.fullmatch(path.name) and is_cached(path.name)
    ]
    return sorted(names, key=_version_key)


def ensure_docs(
    version: str,
    *,
    workspace: Path | None = None,
    from_path: Path | None = None,
    progress: Progress | None = None,
    force: bool = False,
    limits: Limits | None = None,
) -> Path:
    """The cache folder holding ``version``'s docs, fetching them first if needed.

    A cached entry is returned as it is (unless ``force``). Otherwise the docs come from
    ``from_path`` when given, else the workspace's ``node_modules`` when its installed
    ``next`` is exactly ``version``, else the npm tarball (16.2.0 and later) or the GitHub
    tag archive. ``progress(done, total)`` reports downloaded bytes.
    """
    version = version.strip()
    if not _VERSION_NAME.fullmatch(version):
        raise UnknownVersionError(
            f"{version!r} is not a Next.js version number (expected e.g. 16.4.6)."
        )
    if is_cached(version) and not force:
        return entry_path(version)
    source = _choose_source(version, workspace, from_path)
    try:
        return _install(version, source, progress=progress, limits=limits or Limits(), force=force)
    except OfflineError as error:
        raise OfflineError(
            f"{error} The docs of Next.js {version} are not cached yet: connect to the "
            f"internet, or give a local copy (raggin-lsp docs fetch {version} --from PATH)."
        ) from error


def _choose_source(version: str, workspace: Path | None, from_path: Path | None) -> DocsSource:
    if from_path is not None:
        return path_source(from_path, version)
    if workspace is not None:
        local = workspace_source(workspace, version)
        if local is not None:
            return local
    catalog = load_catalog()
    release = catalog.get(version)
    if release is None and catalog.origin != "registry":
        # A release newer than the cached list or the snapshot: ask the registry once.
        try:
            catalog = load_catalog(refresh=True)
            release = catalog.get(version)
        except RagginError as error:
            log.info("Could not refresh the release list: %s", error)
    if release is None:
        message = unknown_version_message(version, catalog.nearest(version))
        if "-" in version:
            message += (
                " Prereleases are not downloaded; their docs are read from a project's "
                "node_modules or from a path you give (--from PATH)."
            )
        raise UnknownVersionError(message)
    return npm_source(release) if release.source == "npm-bundled" else github_source(version)


def _install(
    version: str, source: DocsSource, *, progress: Progress | None, limits: Limits, force: bool
) -> Path:
    root = docs_cache_dir()
    root.mkdir(parents=True, exist_ok=True)
    _sweep_stale_staging(root)
    staging = Path(tempfile.mkdtemp(prefix=f"{_STAGING_PREFIX}{version}-", dir=root))
    try:
        entry = staging / "entry"
        entry.mkdir()
        info = source.stage(entry, progress=progress, limits=limits)
        record = {
            "version": version,
            "kind": source.kind,
            "location": source.location,
            "fetched_at": datetime.now(UTC).isoformat(timespec="seconds"),
            **info,
        }
        (entry / SOURCE_FILE).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        return _publish(entry, root / version, staging, replace=force)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _publish(entry: Path, final: Path, staging: Path, *, replace: bool) -> Path:
    """Renames the finished entry into place; a complete entry already there wins."""
    for _attempt in range(2):
        if final.exists() and (replace or not is_cached(final.name)):
            # Moved aside inside the cache, then deleted with the staging folder.
            with contextlib.suppress(FileNotFoundError):  # another process moved it first
                final.rename(staging / f"old-{_attempt}")
            replace = False
        try:
            entry.rename(final)
        except OSError:
            if is_cached(final.name):
                return final  # another process finished the same version first
            continue
        return final
    raise RagginError(f"Could not move the docs of Next.js {final.name} into {final}.")


def _sweep_stale_staging(root: Path) -> None:
    """Removes staging folders left by interrupted fetches (old enough to be dead)."""
    now = time.time()
    for path in root.glob(f"{_STAGING_PREFIX}*"):
        try:
            if now - path.stat().st_mtime > _STALE_STAGING_SECONDS:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            continue


def remove_cached(version: str) -> bool:
    """Deletes a version's cached docs; True when there was something to delete."""
    if not _VERSION_NAME.fullmatch(version.strip()):
        return False
    final = entry_path(version.strip())
    if not final.exists():
        return False
    root = docs_cache_dir()
    trash = Path(tempfile.mkdtemp(prefix=f"{_STAGING_PREFIX}remove-", dir=root))
    try:
        final.rename(trash / "old")
    finally:
        shutil.rmtree(trash, ignore_errors=True)
    return True
