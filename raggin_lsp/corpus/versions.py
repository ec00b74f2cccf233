"""Which Next.js releases exist and where each one's docs come from.

The catalog lists every stable release of the ``next`` npm package from 13.0.0 on. It
is read from the npm registry (abbreviated metadata, :mod:`raggin_lsp.corpus.registry`),
kept in the cache for a day, and falls back to a committed snapshot
(``corpus/versions.yaml``) when the registry cannot be reached, so the catalog is always
available offline.
"""

import json
import logging
import os
import re
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import nodesemver  # type: ignore[import-untyped]
import yaml

from raggin_lsp.corpus.registry import DEFAULT_REGISTRY, PACKAGE, fetch_metadata, registry_url
from raggin_lsp.errors import OfflineError, RagginError, UnknownVersionError
from raggin_lsp.paths import cache_dir

log = logging.getLogger(__name__)

SourceKind = Literal["npm-bundled", "github-tag"]
Origin = Literal["registry", "cache", "snapshot"]
VersionTuple = tuple[int, int, int]

FIRST_VERSION: VersionTuple = (13, 0, 0)
# From this release on, the npm package bundles its own docs under dist/docs/.
NPM_BUNDLED_SINCE: VersionTuple = (16, 2, 0)
MAX_CACHE_AGE_SECONDS = 24 * 3600

_STABLE = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")
_REPO_SNAPSHOT = Path(__file__).resolve().parents[2] / "corpus" / "versions.yaml"
_PACKAGED_SNAPSHOT = Path(__file__).resolve().parent / "data" / "versions.yaml"


def parse_stable(version: str) -> VersionTuple | None:
    """``(major, minor, patch)`` for a stable release string, None for anything else."""
    match = _STABLE.fullmatch(version.strip())
    if match is None:
        return None
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def source_kind_for(version: VersionTuple) -> SourceKind:
    return "npm-bundled" if version >= NPM_BUNDLED_SINCE else "github-tag"


@dataclass(frozen=True)
class Release:
    """One stable release and where its docs can be downloaded from."""

    version: str
    source: SourceKind
    tarball: str | None = None  # npm tarball URL, for npm-bundled releases
    integrity: str | None = None  # its SRI string, e.g. "sha512-..."

    @property
    def key(self) -> VersionTuple:
        parsed = parse_stable(self.version)
        if parsed is None:  # pragma: no cover - the catalog only ever builds stable ones
            raise ValueError(f"not a stable version: {self.version}")
        return parsed

    def to_dict(self) -> dict[str, str]:
        data = {"version": self.version, "source": self.source}
        if self.tarball:
            data["tarball"] = self.tarball
        if self.integrity:
            data["integrity"] = self.integrity
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Release":
        version = str(data["version"])
        parsed = parse_stable(version)
        if parsed is None:
            raise ValueError(f"not a stable version: {version!r}")
        source = str(data.get("source") or source_kind_for(parsed))
        if source not in ("npm-bundled", "github-tag"):
            raise ValueError(f"unknown docs source {source!r} for {version}")
        tarball = data.get("tarball")
        integrity = data.get("integrity")
        return cls(
            version=version,
            source="npm-bundled" if source == "npm-bundled" else "github-tag",
            tarball=str(tarball) if tarball else None,
            integrity=str(integrity) if integrity else None,
        )


@dataclass(frozen=True)
class Catalog:
    """Stable releases, oldest first, and which of them npm calls ``latest``."""

    releases: tuple[Release, ...]
    latest: str
    origin: Origin = "registry"
    fetched_at: str = ""  # ISO timestamp of the registry read this catalog comes from

    @property
    def versions(self) -> list[str]:
        return [release.version for release in self.releases]

    def __contains__(self, version: object) -> bool:
        return isinstance(version, str) and self.get(version) is not None

    def __iter__(self) -> Iterator[Release]:
        return iter(self.releases)

    def __len__(self) -> int:
        return len(self.releases)

    def get(self, version: str) -> Release | None:
        for release in self.releases:
            if release.version == version.strip():
                return release
        return None

    def require(self, version: str) -> Release:
        """The release, or an :class:`UnknownVersionError` naming the nearest ones."""
        release = self.get(version)
        if release is None:
            raise UnknownVersionError(unknown_version_message(version, self.nearest(version)))
        return release

    def nearest(self, version: str, n: int = 3) -> list[str]:
        """Up to ``n`` releases closest to ``version``, same minor first, then same major."""
        target = _loose_tuple(version)
        if target is None:
            return list(reversed(self.versions[-n:]))

        def distance(release: Release) -> tuple[bool, bool, int, int]:
            key = release.key
            return (
                key[0] != target[0],
                key[:2] != target[:2],
                abs(_scalar(key) - _scalar(target)),
                -_scalar(key),  # on a tie, the newer release
            )

        return [release.version for release in sorted(self.releases, key=distance)[:n]]

    def resolve(self, spec: str) -> str:
        """The newest release satisfying an npm range (``^16.2.0``, ``16.x``, ``latest`` ...)."""
        spec = spec.strip()
        if spec in ("latest", ""):
            return self.latest
        if self.get(spec) is not None:
            return spec
        if parse_stable(spec) is not None:
            raise UnknownVersionError(unknown_version_message(spec, self.nearest(spec)))
        if nodesemver.valid_range(spec, loose=False) is None:
            raise UnknownVersionError(
                f"{spec!r} is neither a Next.js version nor an npm version range "
                "(examples: 16.4.6, ^16.2.0, ~15.5, 16.x, latest)."
            )
        best = nodesemver.max_satisfying(self.versions, spec, loose=False)
        if best is None:
            raise UnknownVersionError(
                f"No Next.js release satisfies {spec!r}; "
                f"known releases run from {self.versions[0]} to {self.versions[-1]}."
            )
        return str(best)


def unknown_version_message(version: str, nearest: Iterable[str]) -> str:
    names = ", ".join(nearest)
    hint = f"; nearest: {names}" if names else ""
    return f"Next.js {version} is not a release{hint}."


def _loose_tuple(version: str) -> VersionTuple | None:
    """Reads ``16.4.99``, ``16.4`` or ``v16`` (missing parts are 0) to rank neighbours."""
    match = re.match(r"v?(\d+)(?:\.(\d+))?(?:\.(\d+))?", version.strip())
    if match is None:
        return None
    major, minor, patch = (int(part) if part else 0 for part in match.groups())
    return major, minor, patch


def _scalar(version: VersionTuple) -> int:
    return (version[0] * 10_000 + version[1]) * 10_000 + version[2]


def catalog_from_metadata(
    metadata: Mapping[str, Any], *, origin: Origin = "registry", fetched_at: str = ""
) -> Catalog:
    """Builds the catalog from the registry's package document (full or abbreviated)."""
    raw_versions = metadata.get("versions")
    if not isinstance(raw_versions, Mapping):
        raise RagginError("The npm registry answered with package metadata that has no versions.")
    releases: list[Release] = []
    for name, manifest in raw_versions.items():
        parsed = parse_stable(str(name))
        if parsed is None or parsed < FIRST_VERSION:
            continue
        kind = source_kind_for(parsed)
        dist = manifest.get("dist", {}) if isinstance(manifest, Mapping) else {}
        tarball = dist.get("tarball") if kind == "npm-bundled" else None
        integrity = dist.get("integrity") if kind == "npm-bundled" else None
        releases.append(Release(str(name), kind, tarball, integrity))
    if not releases:
        raise RagginError("The npm registry lists no stable Next.js release from 13.0.0 on.")
    releases.sort(key=lambda release: release.key)
    tags = metadata.get("dist-tags")
    latest = tags.get("latest") if isinstance(tags, Mapping) else None
    if not isinstance(latest, str) or parse_stable(latest) is None:
        latest = releases[-1].version
    return Catalog(tuple(releases), latest, origin, fetched_at)


# --- reading and writing the catalog as a compact document -----------------------------


def catalog_to_document(catalog: Catalog, *, registry: str | None = None) -> dict[str, Any]:
    return {
        "package": PACKAGE,
        "registry": registry or registry_url(),
        "fetched_at": catalog.fetched_at,
        "latest": catalog.latest,
        "versions": [release.to_dict() for release in reversed(catalog.releases)],
    }


def catalog_from_document(document: Mapping[str, Any], *, origin: Origin) -> Catalog:
    try:
        releases = sorted(
            (Release.from_dict(entry) for entry in document["versions"]),
            key=lambda release: release.key,
        )
        latest = str(document.get("latest") or releases[-1].version)
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise ValueError(f"malformed version catalog: {error}") from error
    return Catalog(tuple(releases), latest, origin, str(document.get("fetched_at") or ""))


_SNAPSHOT_HEADER = (
    "# Stable Next.js releases from 13.0.0 on, read from the npm registry.\n"
    "# Used when the registry cannot be reached. Generated; do not edit by hand:\n"
    "#   raggin-lsp versions --refresh-snapshot corpus/versions.yaml\n"
)


def write_snapshot(catalog: Catalog, path: Path) -> None:
    """Writes the catalog as compact YAML (one line per release), atomically."""
    document = catalog_to_document(catalog, registry=DEFAULT_REGISTRY)
    # Flow style for the leaf mappings keeps one release per line: readable diffs.
    body = yaml.safe_dump(document, sort_keys=False, default_flow_style=None, width=400)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    temporary.write_text(_SNAPSHOT_HEADER + body, encoding="utf-8")
    temporary.replace(path)


def snapshot_paths() -> list[Path]:
    """Where the snapshot is looked for: the checkout's ``corpus/``, then package data."""
    return [_REPO_SNAPSHOT, _PACKAGED_SNAPSHOT]


def packaged_snapshot_path() -> Path:
    return _PACKAGED_SNAPSHOT


def load_snapshot(paths: Iterable[Path] | None = None) -> Catalog | None:
    for path in snapshot_paths() if paths is None else paths:
        try:
            document = yaml.safe_load(path.read_text(encoding="utf-8"))
            return catalog_from_document(document, origin="snapshot")
        except FileNotFoundError:
            continue
        except (OSError, ValueError, yaml.YAMLError) as error:
            log.warning("Ignoring unreadable version snapshot %s: %s", path, error)
    return None


# --- the daily cache ---------------------------------------------------------------------


def catalog_cache_file() -> Path:
    return cache_dir() / "catalog" / f"{PACKAGE}.json"


def _read_cache(path: Path) -> tuple[Catalog, dict[str, Any]] | None:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        if document.get("registry") != registry_url():
            return None  # read from another registry: treat as absent
        return catalog_from_document(document, origin="cache"), document
    except FileNotFoundError:
        return None
    except (OSError, ValueError, AttributeError) as error:
        log.warning("Ignoring unreadable catalog cache %s: %s", path, error)
        return None


def _write_cache(path: Path, catalog: Catalog, etag: str | None) -> None:
    document = catalog_to_document(catalog)
    if etag:
        document["etag"] = etag
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    temporary.write_text(json.dumps(document, separators=(",", ":")), encoding="utf-8")
    temporary.replace(path)


def fetch_catalog(etag: str | None = None) -> tuple[Catalog, str | None] | None:
    """Reads the registry. None when it answers 304 Not Modified for ``etag``."""
    fetched = fetch_metadata(etag)
    if fetched is None:
        return None
    metadata, new_etag = fetched
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    return catalog_from_metadata(metadata, fetched_at=stamp), new_etag


def load_catalog(refresh: bool = False) -> Catalog:
    """The release catalog: from a cache younger than a day, else the registry, else offline copies.

    ``refresh=True`` always asks the registry and raises :class:`OfflineError` when it
    cannot be reached (so a snapshot is never regenerated from a stale copy). Otherwise
    an unreachable registry falls back to the stale cache, then to the snapshot.
    """
    path = catalog_cache_file()
    cached = _read_cache(path)
    if cached is not None and not refresh:
        age = time.time() - path.stat().st_mtime
        if 0 <= age < MAX_CACHE_AGE_SECONDS:
            return cached[0]
    etag = cached[1].get("etag") if cached is not None and not refresh else None
    try:
        fetched = fetch_catalog(etag)
    except RagginError as error:
        if refresh:
            raise
        fallback = cached[0] if cached is not None else load_snapshot()
        if fallback is None:
            raise OfflineError(
                f"{error} No copy of the release list is cached and no snapshot is installed."
            ) from error
        log.warning("%s Using the %s release list instead.", error, fallback.origin)
        return fallback
    if fetched is None and cached is not None:
        path.touch()  # 304: the cached copy is current for another day
        return cached[0]
    if fetched is None:  # pragma: no cover - a 304 is only asked for with a cached etag
        raise RagginError("The npm registry answered 304 to an unconditional request.")
    catalog, new_etag = fetched
    try:
        _write_cache(path, catalog, new_etag)
    except OSError as error:
        log.warning("Could not cache the release list in %s: %s", path, error)
    return catalog


def resolve_range(spec: str, catalog: Catalog | None = None) -> str:
    """The newest stable release satisfying an npm range such as ``^16.2.0`` or ``latest``."""
    return (catalog or load_catalog()).resolve(spec)


def refresh_snapshot(paths: Iterable[Path]) -> Catalog:
    """Reads the registry now and writes the snapshot to each path (Makefile target)."""
    catalog = load_catalog(refresh=True)
    for path in paths:
        write_snapshot(catalog, path)
    return catalog
