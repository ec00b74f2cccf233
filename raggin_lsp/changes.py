"""What changed between two Next.js versions, from the newer version's docs alone.

Every API reference page with a "Version History" table says, row by row, in which
release its API changed and how. The rows of the newer version's catalog whose release
lies after the older version (exclusive) and up to the newer one (inclusive) are the
changes between the two, so the older version's docs are never needed (they may not be
fetchable at all: docs ship in the ``next`` package only from 16.2.0).

When both versions are indexed, the answer also lists the pages and sections whose
content changed (:mod:`raggin_lsp.content_changes`), which :func:`diff_json` takes ready.

Pure: takes an :class:`ApiCatalog`, returns data. Used by ``raggin-lsp diff``, the
``raggin/diff`` request and ``raggin/ask`` (:mod:`raggin_lsp.changes_asked`).
"""

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from raggin_lsp.corpus.apis import Api, ApiCatalog
from raggin_lsp.corpus.urls import site_url

_RELEASE = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?")


@dataclass(frozen=True)
class Change:
    """One Version History row of one API page."""

    version: str  # as the row writes it, e.g. ``v16.3.0``
    change: str  # the row's text, Markdown kept
    api: str  # the API's name
    kind: str
    router: str
    page: str  # the page's URL path
    url: str


def release_key(version: str) -> tuple[int, int, int] | None:
    """``v16.3.0`` / ``16.3`` -> (16, 3, 0); None for anything else (``canary``)."""
    match = _RELEASE.match(version.strip())
    if match is None:
        return None
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch or 0)


def matches(api: Api, name: str) -> bool:
    """``name`` is the API's name, one of its names or symbols, or its page's last part."""
    wanted = name.strip().strip("`'\"").lower()
    candidates = {api.title.lower(), api.url_path.rsplit("/", 1)[-1].lower()}
    candidates |= {n.lower() for n in api.names}
    candidates |= {s.name.lower() for s in api.symbols}
    return wanted in candidates


def api_pages(catalog: ApiCatalog, name: str) -> set[str]:
    """The URL paths of the pages documenting the API ``name``, with their twins."""
    found = [api for api in catalog.apis.values() if matches(api, name)]
    return {api.url_path for api in found} | {api.twin for api in found if api.twin}


def changes_between(
    catalog: ApiCatalog, since: str, until: str | None = None, api: str | None = None
) -> list[Change]:
    """The history rows after ``since`` up to ``until`` (the catalog's version when
    None), of every API or of those ``api`` names; oldest release first. A row shared
    by an App Router page and its Pages Router twin is listed once (the App Router's)."""
    low, high = release_key(since), release_key(until or catalog.version)
    if low is None or high is None:
        raise ValueError(f"not a release: {since if low is None else until}")
    return changes_within(catalog, (low[0], low[1], low[2] + 1), high, api)


def changes_within(
    catalog: ApiCatalog,
    first: tuple[int, int, int],
    last: tuple[int, int, int],
    api: str | None = None,
) -> list[Change]:
    """The history rows of releases ``first`` to ``last`` (both included), as
    :func:`changes_between` lists them."""
    found: dict[tuple[str, str, str], Change] = {}
    ordered = sorted(catalog.apis.values(), key=lambda a: (a.router != "app", a.url_path))
    for entry in ordered:
        if api is not None and not matches(entry, api):
            continue
        for row in entry.history:
            key = release_key(row.version)
            if key is None or not first <= key <= last:
                continue
            change = Change(
                row.version,
                row.change,
                entry.name,
                entry.kind,
                entry.router,
                entry.url_path,
                site_url(entry.url_path, catalog.version),
            )
            found.setdefault((row.version, row.change, entry.name), change)
    return sorted(found.values(), key=lambda c: (release_key(c.version), c.api.lower()))


def diff_json(
    catalog: ApiCatalog,
    since: str,
    until: str | None = None,
    api: str | None = None,
    content: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The answer of ``raggin/diff``, the MCP ``diff`` tool and ``raggin-lsp diff --json``;
    ``content`` is the JSON of the content comparison (``ContentChanges`` or
    ``NotCompared``), added as ``content`` when given."""
    changes = changes_between(catalog, since, until, api)
    by_release: dict[str, list[str]] = {}
    for change in changes:
        key = release_key(change.version)
        assert key is not None
        by_release.setdefault(f"{key[0]}.{key[1]}", []).append(change.api)
    return {
        "from": since,
        "to": until or catalog.version,
        "api": api,
        "source": f"Version History tables of the Next.js {catalog.version} docs",
        "changes": [asdict(change) for change in changes],
        "apisByMinor": {minor: sorted(set(names)) for minor, names in by_release.items()},
        **({"content": dict(content)} if content is not None else {}),
    }
