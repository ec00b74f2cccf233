"""The release catalog: registry parsing, ranges, nearest releases, daily cache, offline."""

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from raggin_lsp.corpus import versions
from raggin_lsp.corpus.versions import (
    Catalog,
    catalog_from_metadata,
    load_catalog,
    load_snapshot,
    resolve_range,
    write_snapshot,
)
from raggin_lsp.errors import OfflineError, UnknownVersionError
from tests.support.npm_fake import FakeHost, fake_host, unused_local_url

RELEASES = (
    "12.3.4",
    "13.0.0",
    "13.0.1",
    "14.2.3",
    "15.5.0",
    "15.5.9",
    "15.6.0",
    "16.0.0",
    "16.1.7",
    "16.2.0",
    "16.4.5",
    "16.4.6",
    "16.10.0",
)
PRERELEASES = ("13.0.1-canary.0", "16.2.0-rc.1", "16.5.0-canary.3", "15.0.0-beta.1")


def metadata(latest: str | None = "16.4.6") -> dict[str, object]:
    entries = {
        version: {
            "version": version,
            "dist": {
                "tarball": f"https://registry.example/next/-/next-{version}.tgz",
                "integrity": f"sha512-{version}",
            },
        }
        for version in (*RELEASES, *PRERELEASES)
    }
    return {
        "name": "next",
        "dist-tags": {"latest": latest, "canary": "16.5.0-canary.3"},
        "versions": entries,
    }


@pytest.fixture
def catalog() -> Catalog:
    return catalog_from_metadata(metadata())


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private cache folder and no snapshot unless a test writes one."""
    monkeypatch.setenv("RAGGIN_CACHE_DIR", str(tmp_path / "cache"))
    snapshot = tmp_path / "snapshot" / "versions.yaml"
    monkeypatch.setattr(versions, "snapshot_paths", lambda: [snapshot])
    return snapshot


@pytest.fixture
def registry(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHost]:
    with fake_host() as host:
        host.serve_json("/next", metadata())
        monkeypatch.setenv("RAGGIN_NPM_REGISTRY", host.base_url)
        yield host


def test_catalog_keeps_stable_releases_from_13_oldest_first(catalog: Catalog) -> None:
    assert catalog.versions == [v for v in RELEASES if v != "12.3.4"]


@pytest.mark.parametrize(
    ("version", "source", "has_tarball"),
    [
        pytest.param("16.2.0", "npm-bundled", True, id="first-bundled"),
        pytest.param("16.10.0", "npm-bundled", True, id="two-digit-minor"),
        pytest.param("16.1.7", "github-tag", False, id="last-github"),
        pytest.param("13.0.0", "github-tag", False, id="oldest"),
    ],
)
def test_each_release_names_its_docs_source(
    catalog: Catalog, version: str, source: str, has_tarball: bool
) -> None:
    release = catalog.require(version)
    assert release.source == source
    assert (release.tarball is not None) is has_tarball
    assert (release.integrity is not None) is has_tarball


@pytest.mark.parametrize(
    ("dist_tag", "expected"),
    [
        pytest.param("16.4.6", "16.4.6", id="tag"),
        pytest.param(None, "16.10.0", id="missing-tag-newest"),
        pytest.param("16.5.0-canary.3", "16.10.0", id="prerelease-tag-ignored"),
    ],
)
def test_latest_follows_the_npm_tag(dist_tag: str | None, expected: str) -> None:
    assert catalog_from_metadata(metadata(dist_tag)).latest == expected


@pytest.mark.parametrize(
    ("asked", "n", "expected"),
    [
        pytest.param("16.4.99", 2, ["16.4.6", "16.4.5"], id="same-minor"),
        pytest.param("16.3.0", 2, ["16.2.0", "16.4.5"], id="same-major-both-sides"),
        pytest.param("15.5.4", 3, ["15.5.0", "15.5.9", "15.6.0"], id="patch-between"),
        pytest.param("12.0.0", 2, ["13.0.0", "13.0.1"], id="before-first"),
        pytest.param("17.0.0", 1, ["16.10.0"], id="after-last"),
    ],
)
def test_nearest_releases(catalog: Catalog, asked: str, n: int, expected: list[str]) -> None:
    assert catalog.nearest(asked, n) == expected


def test_unknown_version_names_the_nearest(catalog: Catalog) -> None:
    with pytest.raises(UnknownVersionError) as caught:
        catalog.require("16.4.99")
    assert str(caught.value) == "Next.js 16.4.99 is not a release; nearest: 16.4.6, 16.4.5, 16.2.0."


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param("latest", "16.4.6", id="latest-tag"),
        pytest.param("16.2.0", "16.2.0", id="exact"),
        pytest.param("^16.2.0", "16.10.0", id="caret"),
        pytest.param("~15.5", "15.5.9", id="tilde"),
        pytest.param(">=14 <16", "15.6.0", id="comparators"),
        pytest.param("16.x", "16.10.0", id="x-range"),
        pytest.param("13", "13.0.1", id="major-only"),
        pytest.param("^13.0.0 || ~15.5.0", "15.5.9", id="or"),
        pytest.param("<16.2.0", "16.1.7", id="below-bundled"),
    ],
)
def test_npm_ranges_resolve_to_newest_stable(catalog: Catalog, spec: str, expected: str) -> None:
    assert resolve_range(spec, catalog) == expected


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        pytest.param("^17", "No Next.js release satisfies", id="no-match"),
        pytest.param("16.4.99", "nearest: 16.4.6", id="missing-exact"),
        pytest.param("next please", "neither a Next.js version nor", id="garbage"),
    ],
)
def test_unresolvable_ranges_explain_why(catalog: Catalog, spec: str, fragment: str) -> None:
    with pytest.raises(UnknownVersionError, match=fragment):
        resolve_range(spec, catalog)


def test_snapshot_round_trip_is_compact(catalog: Catalog, tmp_path: Path) -> None:
    path = tmp_path / "versions.yaml"
    write_snapshot(catalog, path)
    loaded = load_snapshot([path])
    assert loaded is not None
    assert loaded.releases == catalog.releases
    assert loaded.latest == catalog.latest
    assert loaded.origin == "snapshot"
    release_lines = [line for line in path.read_text().splitlines() if "version:" in line]
    assert len(release_lines) == len(catalog)  # one line per release


def test_snapshot_falls_back_to_the_packaged_copy(catalog: Catalog, tmp_path: Path) -> None:
    packaged = tmp_path / "package" / "versions.yaml"
    write_snapshot(catalog, packaged)
    loaded = load_snapshot([tmp_path / "checkout" / "versions.yaml", packaged])
    assert loaded is not None
    assert loaded.versions == catalog.versions


def test_registry_is_read_once_a_day(registry: FakeHost) -> None:
    first = load_catalog()
    second = load_catalog()
    assert first.origin == "registry"
    assert second.origin == "cache"
    assert second.versions == first.versions
    assert registry.paths_requested() == ["/next"]
    assert registry.requests[0][1]["accept"] == "application/vnd.npm.install-v1+json"


def test_a_day_old_cache_is_revalidated(registry: FakeHost) -> None:
    registry.etag = '"v1"'
    load_catalog()
    cache = versions.catalog_cache_file()
    a_day_ago = time.time() - 25 * 3600
    os.utime(cache, (a_day_ago, a_day_ago))
    again = load_catalog()
    assert len(registry.requests) == 2
    assert registry.requests[1][1].get("if-none-match") == '"v1"'  # answered 304
    assert again.versions == catalog_from_metadata(metadata()).versions
    assert time.time() - cache.stat().st_mtime < 60  # good for another day
    load_catalog()
    assert len(registry.requests) == 2


def test_refresh_always_asks_the_registry(registry: FakeHost) -> None:
    load_catalog()
    assert load_catalog(refresh=True).origin == "registry"
    assert len(registry.requests) == 2


def test_offline_uses_a_stale_cache(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with fake_host() as host:
        host.serve_json("/next", metadata())
        monkeypatch.setenv("RAGGIN_NPM_REGISTRY", host.base_url)
        load_catalog()
    # The registry is gone now: same address, nobody listening.
    old = time.time() - 3 * 86400
    os.utime(versions.catalog_cache_file(), (old, old))
    stale = load_catalog()
    assert stale.origin == "cache"
    assert stale.versions == catalog_from_metadata(metadata()).versions


def test_offline_without_cache_uses_the_snapshot(
    isolated: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_snapshot(catalog, isolated)
    monkeypatch.setenv("RAGGIN_NPM_REGISTRY", unused_local_url())
    loaded = load_catalog()
    assert loaded.origin == "snapshot"
    assert loaded.versions == catalog.versions


def test_offline_with_nothing_says_so(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGGIN_NPM_REGISTRY", unused_local_url())
    with pytest.raises(OfflineError, match="Could not reach the npm registry"):
        load_catalog()


def test_refresh_never_settles_for_an_offline_copy(
    isolated: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_snapshot(catalog, isolated)
    monkeypatch.setenv("RAGGIN_NPM_REGISTRY", unused_local_url())
    with pytest.raises(OfflineError):
        load_catalog(refresh=True)
